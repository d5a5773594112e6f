/**
 * The `Message` type and the types it links to (direct-message recipients, edit history, topic
 * links, submessages). Links go through the request's loaders: a whole page costs at most one
 * `GET /users` and one `GET /streams` more, whatever the number of senders; `rawContent` and
 * `renderedContent` in the other format than the page cost one batched request per page
 * (loaders/content.ts).
 */
import type {
  DisplayRecipientUser,
  EditHistoryEntry,
  Message,
  MessageFlag,
  Submessage,
  TopicLink,
} from '../../../zulip/model/messages.js';
import { builder } from '../../builder.js';
import { channelLookupCost, userLookupCost } from '../../upstream/cost.js';
import type { Context } from '../../context.js';
import { isNotFound, notFoundError } from '../../errors.js';
import { invalidGlobalId } from '../../global-ids.js';
import { ChannelRef, loadChannel } from '../channels/index.js';
import { asNode } from '../node.js';
import { UserRef } from '../users.js';
import { ContentTypeEnum, KNOWN_FLAGS, MessageFlagEnum, MessageTypeEnum } from './enums.js';

/** Loader results with records the caller cannot see as null; any other failure is thrown. */
export function foundOrNull<T>(loaded: (T | Error)[]): (T | null)[] {
  return loaded.map((item) => {
    if (!(item instanceof Error)) return item;
    if (isNotFound(item)) return null;
    throw item;
  });
}

/** Lets `ctx.loaders.messages` reuse messages fetched in exactly its shape. */
export function primeMessageLoader(ctx: Context, messages: readonly Message[]): void {
  for (const message of messages) ctx.loaders.messages.prime(message.id, message);
}

export const MessageRef = builder.objectRef<Message>('Message');

const DirectMessageRecipientRef = builder.objectRef<DisplayRecipientUser>('DirectMessageRecipient').implement({
  description: 'One participant of a direct-message conversation, as the message carries it (sender included).',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user ID.', resolve: (r) => r.id }),
    email: t.exposeString('email', { description: 'The API email address.' }),
    fullName: t.exposeString('full_name', { description: 'The full name when the message was fetched.' }),
    isMirrorDummy: t.boolean({
      description: 'Whether this is a placeholder account for a mirrored (bridged) user.',
      resolve: (r) => r.is_mirror_dummy ?? false,
    }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'The full user record (null if the caller cannot see the user).',
      zulip: { cost: userLookupCost },
      resolve: (r, _args, ctx) => ctx.loaders.user(r.id),
    }),
  }),
});

const MessageEditRef = builder.objectRef<EditHistoryEntry>('MessageEdit').implement({
  description:
    'One entry of a message\u2019s edit history: a content edit, a move, or both. The previous/new fields are ' +
    'null when that part did not change in this edit.',
  fields: (t) => ({
    userId: t.field({
      type: 'Long',
      nullable: true,
      description: 'Who made the edit; null only for very old edits.',
      resolve: (e) => e.user_id,
    }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who made the edit; null for very old edits or users the caller cannot see.',
      zulip: { cost: userLookupCost },
      resolve: (e, _args, ctx) => (e.user_id == null ? null : ctx.loaders.user(e.user_id)),
    }),
    timestamp: t.field({ type: 'Long', description: 'When, in UNIX seconds.', resolve: (e) => e.timestamp }),
    prevContent: t.string({
      nullable: true,
      description: 'The Markdown content before this edit.',
      resolve: (e) => e.prev_content ?? null,
    }),
    prevRenderedContent: t.string({
      nullable: true,
      description: 'The HTML content before this edit.',
      resolve: (e) => e.prev_rendered_content ?? null,
    }),
    prevChannelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel before this move.',
      resolve: (e) => e.prev_stream ?? null,
    }),
    prevChannel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel before this move.',
      zulip: { cost: channelLookupCost },
      resolve: (e, _args, ctx) => loadChannel(ctx, e.prev_stream),
    }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel after this move.',
      resolve: (e) => e.stream ?? null,
    }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel after this move.',
      zulip: { cost: channelLookupCost },
      resolve: (e, _args, ctx) => loadChannel(ctx, e.stream),
    }),
    prevTopic: t.string({
      nullable: true,
      description: 'The topic before this move.',
      resolve: (e) => e.prev_topic ?? e.prev_subject ?? null,
    }),
    topic: t.string({ nullable: true, description: 'The topic after this move.', resolve: (e) => e.topic ?? null }),
  }),
});

const TopicLinkRef = builder.objectRef<TopicLink>('TopicLink').implement({
  description: 'A link a linkifier found in the topic.',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The text in the topic.' }),
    url: t.exposeString('url', { description: 'Where it links to.' }),
  }),
});

const SubmessageRef = builder.objectRef<Submessage>('Submessage').implement({
  description: 'Data of an experimental integration (polls, to-do lists) attached to a message.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The submessage ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (s) => s.id }),
    senderId: t.field({ type: 'Long', description: 'Who added it.', resolve: (s) => s.sender_id }),
    msgType: t.exposeString('msg_type', { description: 'The integration\u2019s message type (e.g. `widget`).' }),
    content: t.exposeString('content', { description: 'JSON text, interpreted by the integration.' }),
  }),
});

// A submessage is read with its message, so its key names both: `<message ID>:<submessage ID>`.
asNode(SubmessageRef, {
  key: (s) => `${s.message_id}:${s.id}`,
  keyKind: 'string',
  load: async (key, ctx) => {
    const [messageId, id] = key.split(':').map((part) => (/^\d{1,16}$/.test(part) ? Number(part) : Number.NaN));
    if (!Number.isSafeInteger(messageId) || !Number.isSafeInteger(id)) {
      throw invalidGlobalId(`Submessage:${key}`, 'a Submessage key is a message ID and a submessage ID');
    }
    const message = await ctx.loaders.messages.load(messageId!);
    const submessage = message.submessages?.find((s) => s.id === id);
    if (!submessage) throw notFoundError(`No submessage with ID ${id} exists on message ${messageId} or is visible to you.`);
    return submessage;
  },
});

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned', 'group_mentioned'];

MessageRef.implement({
  zulip: { entity: { resource: 'Message', id: (message) => message.id } },
  description:
    'A message in a channel topic or a direct-message conversation, as the caller sees it (with the caller\u2019s ' +
    'personal flags).',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The message ID, by which messages are ordered (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (m) => m.id }),
    type: t.field({ type: MessageTypeEnum, description: 'Channel or direct message.', resolve: (m) => m.type }),
    senderId: t.field({ type: 'Long', description: 'The sender\u2019s user ID.', resolve: (m) => m.sender_id }),
    senderFullName: t.exposeString('sender_full_name', { description: 'The sender\u2019s name when the message was fetched.' }),
    senderEmail: t.exposeString('sender_email', { description: 'The sender\u2019s API email address.' }),
    senderRealmStr: t.exposeString('sender_realm_str', { description: 'The sender\u2019s organization identifier.' }),
    sender: t.field({
      type: UserRef,
      nullable: true,
      description: 'The sender (one `GET /users` per request for all senders); null if the caller cannot see them.',
      zulip: { cost: userLookupCost },
      resolve: (m, _args, ctx) => ctx.loaders.user(m.sender_id),
    }),
    avatarUrl: t.string({
      nullable: true,
      description: 'The sender\u2019s avatar URL; null only when `clientGravatar` was requested and applies.',
      resolve: (m) => m.avatar_url ?? null,
    }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel ID; null for direct messages.',
      resolve: (m) => m.stream_id ?? null,
    }),
    channelName: t.string({
      nullable: true,
      description: 'The channel name when the message was fetched; null for direct messages.',
      resolve: (m) => (typeof m.display_recipient === 'string' ? m.display_recipient : null),
    }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel (one `GET /streams` per request for all channels); null for direct messages.',
      zulip: { cost: channelLookupCost },
      resolve: (m, _args, ctx) => (m.type === 'stream' ? loadChannel(ctx, m.stream_id) : null),
    }),
    topic: t.exposeString('subject', {
      description:
        'The topic; empty for direct messages. The empty topic reads as the organization\u2019s display name ' +
        'for it unless the query passed `allowEmptyTopicName: true`.',
    }),
    topicLinks: t.field({
      type: [TopicLinkRef],
      description: 'Links linkifiers found in the topic.',
      resolve: (m) => m.topic_links ?? [],
    }),
    directMessageRecipients: t.field({
      type: [DirectMessageRecipientRef],
      nullable: true,
      description: 'Everyone in a direct-message conversation, sender included; null for channel messages.',
      resolve: (m) => (Array.isArray(m.display_recipient) ? m.display_recipient : null),
    }),
    recipientId: t.field({
      type: 'Long',
      description: 'Identifies the set of receivers (a channel, or a group of users); each 1:1 direction has its own.',
      resolve: (m) => m.recipient_id,
    }),
    content: t.exposeString('content', {
      description: 'The content as fetched: HTML by default, Markdown when the query passed `applyMarkdown: false` (see contentType).',
    }),
    contentType: t.field({
      type: ContentTypeEnum,
      description: 'The format of `content`.',
      resolve: (m) => m.content_type,
    }),
    renderedContent: t.string({
      description:
        'The rendered HTML. Free when `content` is HTML; otherwise one batched upstream request for the whole page.',
      // The content loader: one batch per page.
      zulip: { cost: { perBatch: 1 } },
      resolve: (m, _args, ctx) =>
        m.content_type === 'text/html' ? m.content : ctx.loaders.content.load('html', m.id),
    }),
    rawContent: t.string({
      description:
        'The Markdown source. Free when `content` is Markdown or the message came from `message(id)`; otherwise ' +
        'one batched upstream request for the whole page (pass `applyMarkdown: false` to avoid it).',
      zulip: { cost: { perBatch: 1 } },
      resolve: (m, _args, ctx) =>
        m.content_type === 'text/x-markdown' ? m.content : (ctx.loaders.content.rawContentOf(m) ?? ctx.loaders.content.load('markdown', m.id)),
    }),
    matchContent: t.string({
      nullable: true,
      description: 'With a `search` narrow: the HTML content with matches highlighted.',
      resolve: (m) => m.match_content ?? null,
    }),
    matchTopic: t.string({
      nullable: true,
      description: 'With a `search` narrow: the HTML-escaped topic with matches highlighted.',
      resolve: (m) => m.match_subject ?? null,
    }),
    timestamp: t.field({ type: 'Long', description: 'When it was sent, in UNIX seconds.', resolve: (m) => m.timestamp }),
    client: t.exposeString('client', { description: 'The name of the client that sent it.' }),
    isMeMessage: t.exposeBoolean('is_me_message', { description: 'Whether this is a /me status message.' }),
    lastEditTimestamp: t.field({
      type: 'Long',
      nullable: true,
      description: 'When the content was last edited (UNIX seconds); null if never.',
      resolve: (m) => m.last_edit_timestamp ?? null,
    }),
    lastMovedTimestamp: t.field({
      type: 'Long',
      nullable: true,
      description:
        'When it was last moved to another channel or topic (UNIX seconds); null if never, or if only resolved ' +
        '(feature level 365).',
      resolve: (m) => m.last_moved_timestamp ?? null,
    }),
    editHistory: t.field({
      type: [MessageEditRef],
      nullable: true,
      description:
        'Edits and moves, most recent first; null when never edited or moved, or when the organization hides edit history.',
      resolve: (m) => m.edit_history ?? null,
    }),
    flags: t.field({
      type: [MessageFlagEnum],
      description: 'The caller\u2019s personal flags (flags newer than this schema are left out; see flagNames).',
      resolve: (m) => m.flags.filter((f): f is MessageFlag => KNOWN_FLAGS.has(f)),
    }),
    flagNames: t.stringList({
      description: 'The caller\u2019s personal flags exactly as the server names them.',
      resolve: (m) => m.flags,
    }),
    read: t.boolean({ description: 'Whether the caller has read it.', resolve: (m) => m.flags.includes('read') }),
    starred: t.boolean({ description: 'Whether the caller starred it.', resolve: (m) => m.flags.includes('starred') }),
    mentioned: t.boolean({
      description: 'Whether it mentions the caller: directly, through a group, or by a wildcard (as `is: MENTIONED`).',
      resolve: (m) => m.flags.some((f) => MENTION_FLAGS.includes(f)),
    }),
    submessages: t.field({
      type: [SubmessageRef],
      description: 'Data of experimental integrations (polls, to-do lists).',
      resolve: (m) => m.submessages ?? [],
    }),
  }),
});

// The lookup `messagesByIds` uses (GET /messages?message_ids=, batched); NOT_FOUND when the caller
// cannot read it.
// The messages loader fetches up to 1000 ids in one `GET /messages`.
asNode(MessageRef, { key: (m) => m.id, load: (id, ctx) => ctx.loaders.messages.load(id), cost: (keys) => Math.ceil(keys.length / 1000) });
