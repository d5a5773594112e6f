/**
 * Messages: the `Message` type (backed by the wire message), the typed `NarrowInput`, the
 * `messages` connection over Zulip's anchor API, lookups by ID, and the send / edit / flag
 * mutations. Reactions live in reactions.ts, which adds `Message.reactions`.
 *
 * Cost model (what a client pays upstream):
 * - `messages`, `messagesByIds`, `message`: one request each. Links (`sender`, `channel`,
 *   `editHistory.user`, recipients' `user`...) go through the per-request loaders, so a whole page
 *   costs at most one `GET /users` and one `GET /streams` more, whatever the number of senders.
 * - `content` is what the page was fetched as: HTML by default, Markdown with `applyMarkdown: false`.
 *   `rawContent` (Markdown) and `renderedContent` (HTML) are free when they match the fetched form,
 *   and otherwise cost one batched `GET /messages?message_ids=` for the whole page (feature level
 *   300; one `GET /messages/{id}` per message on older servers). `message(id)` gets the Markdown
 *   source with the message, so its `rawContent` is always free.
 * - Narrows that name channels, direct-message users, `is: [DM]` or `id` read the server's feature
 *   level (one `GET /server_settings` per server per process) to pick operator names.
 *
 * https://zulip.com/api/get-messages, https://zulip.com/api/construct-narrow
 */
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { Channel } from '../../zulip/model/channels.js';
import type {
  Anchor,
  DetachedUpload,
  DisplayRecipientUser,
  EditHistoryEntry,
  GetMessagesResult,
  Message,
  MessageFlag,
  MoveMessagesTimeLimitExceededData,
  NarrowTerm,
  PropagateMode,
  Submessage,
  TopicLink,
  UpdateMessageFlagsForNarrowResult,
} from '../../zulip/model/messages.js';
import { ZulipApiError } from '../../zulip/errors.js';
import {
  getMessage,
  getMessages,
  sendMessage,
  updateMessage,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
} from '../../zulip/routes/messages.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { getFeatureLevel, requireFeatureLevel } from '../feature-level.js';
import { ChannelRef } from './channels.js';
import { UserRef } from './users.js';

// ---- limits and small helpers --------------------------------------------------------------------

/**
 * The largest page the gateway asks for. Zulip recommends at most 1000 messages per request and
 * refuses more than 5000 (api-spec.md, Limits); a page costs at most `first + last + 2` messages
 * upstream (one extra on each side tells whether more pages exist).
 */
export const MAX_PAGE_SIZE = 1000;

/** `extensions.code` of arguments the gateway refuses before calling upstream. */
const BAD_USER_INPUT = 'BAD_USER_INPUT';

function badInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: BAD_USER_INPUT, ...extensions } });
}

/** Feature levels that change how a request is encoded (api-spec.md, Versioning; construct-narrow). */
const FL = {
  /** `dm`, `dm-including`, `is:dm` replace `pm-with`, `group-pm-with`, `is:private`; `type: direct`. */
  dmOperators: 177,
  directType: 174,
  /** `id` operands may be integers (strings before). */
  integerIdOperand: 194,
  /** `channel` / `channels` replace `stream` / `streams`. */
  channelOperators: 250,
  messageIds: 300,
  flagsForNarrow: 155,
} as const;

// ---- cursors -------------------------------------------------------------------------------------

const CURSOR_PREFIX = 'message:';

/** Opaque to clients; wraps the message ID so a cursor is also a valid anchor. */
export function encodeCursor(messageId: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${messageId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, argument: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!/^message:\d+$/.test(text) || !Number.isSafeInteger(id)) {
    throw badInput(`\`${argument}\` is not a cursor returned by this connection.`, { argument });
  }
  return id;
}

// ---- enums ---------------------------------------------------------------------------------------

export const MessageTypeEnum = builder.enumType('MessageType', {
  description: 'Where a message was sent.',
  values: {
    CHANNEL: { value: 'stream', description: 'To a channel, under a topic.' },
    DIRECT: { value: 'private', description: 'To one or more users directly.' },
  } as const,
});

export const ContentTypeEnum = builder.enumType('MessageContentType', {
  description: 'The format of `Message.content`, chosen by the `applyMarkdown` argument of the query.',
  values: {
    HTML: { value: 'text/html', description: 'Rendered HTML (`text/html`).' },
    MARKDOWN: { value: 'text/x-markdown', description: 'The Markdown source the sender wrote (`text/x-markdown`).' },
  } as const,
});

const FLAG_VALUES = {
  READ: { value: 'read', description: 'The caller has read the message.' },
  STARRED: { value: 'starred', description: 'The caller starred the message.' },
  COLLAPSED: { value: 'collapsed', description: 'The caller collapsed the message.' },
  MENTIONED: { value: 'mentioned', description: 'The message mentions the caller, directly or through a group.' },
  STREAM_WILDCARD_MENTIONED: {
    value: 'stream_wildcard_mentioned',
    description: 'The message contains a channel wildcard mention such as @**all** (feature level 224).',
  },
  TOPIC_WILDCARD_MENTIONED: {
    value: 'topic_wildcard_mentioned',
    description: 'The message contains a topic wildcard mention, @**topic** (feature level 224).',
  },
  WILDCARD_MENTIONED: {
    value: 'wildcard_mentioned',
    description: 'Either wildcard mention flag.',
    deprecationReason: 'Use STREAM_WILDCARD_MENTIONED or TOPIC_WILDCARD_MENTIONED.',
  },
  GROUP_MENTIONED: { value: 'group_mentioned', description: 'The message mentions a group the caller belongs to.' },
  HAS_ALERT_WORD: { value: 'has_alert_word', description: "The message contains one of the caller's alert words." },
  HISTORICAL: {
    value: 'historical',
    description: 'The caller did not receive the message when it was sent (e.g. sent before they subscribed).',
  },
} as const satisfies Record<string, { value: MessageFlag; description: string; deprecationReason?: string }>;

const KNOWN_FLAGS: ReadonlySet<string> = new Set(Object.values(FLAG_VALUES).map((v) => v.value));

export const MessageFlagEnum = builder.enumType('MessageFlag', {
  description: "A personal flag of the caller's on a message. https://zulip.com/api/update-message-flags#available-flags",
  values: FLAG_VALUES,
});

export const EditableMessageFlagEnum = builder.enumType('EditableMessageFlag', {
  description: 'The personal flags a user can add or remove; the others follow the message content.',
  values: {
    READ: { value: 'read', description: FLAG_VALUES.READ.description },
    STARRED: { value: 'starred', description: FLAG_VALUES.STARRED.description },
    COLLAPSED: { value: 'collapsed', description: FLAG_VALUES.COLLAPSED.description },
  } as const,
});

export const FlagOperationEnum = builder.enumType('FlagOperation', {
  description: 'Whether to add or remove a flag.',
  values: {
    ADD: { value: 'add', description: 'Set the flag.' },
    REMOVE: { value: 'remove', description: 'Clear the flag.' },
  } as const,
});

export const PropagateModeEnum = builder.enumType('PropagateMode', {
  description: 'Which messages a topic or channel move applies to.',
  values: {
    CHANGE_ONE: { value: 'change_one', description: 'Only the target message (the only mode for content-only edits).' },
    CHANGE_LATER: { value: 'change_later', description: 'The target message and every later message in its topic.' },
    CHANGE_ALL: { value: 'change_all', description: 'Every message in the topic.' },
  } as const,
});

export const NamedAnchorEnum = builder.enumType('NamedAnchor', {
  description: 'An anchor the server computes.',
  values: {
    NEWEST: { value: 'newest', description: 'The newest message matching the narrow.' },
    OLDEST: { value: 'oldest', description: 'The oldest message matching the narrow.' },
    FIRST_UNREAD: {
      value: 'first_unread',
      description: 'The oldest unread message matching the narrow, or the newest one when none is unread.',
    },
  } as const,
});

export const NarrowIsEnum = builder.enumType('NarrowIs', {
  description: 'Message states a narrow can filter on (the `is:` operator).',
  values: {
    DM: { value: 'dm', description: 'Direct messages (sent as `is:private` to servers before feature level 177).' },
    UNREAD: { value: 'unread', description: 'Unread by the caller (indexed: the cheap way to find unread messages).' },
    STARRED: { value: 'starred', description: 'Starred by the caller.' },
    MENTIONED: { value: 'mentioned', description: 'Mentioning the caller (directly, by group or by wildcard).' },
    ALERTED: { value: 'alerted', description: "Containing one of the caller's alert words." },
    RESOLVED: { value: 'resolved', description: 'In resolved topics.' },
    FOLLOWED: { value: 'followed', description: 'In topics the caller follows.' },
    MUTED: { value: 'muted', description: 'In muted topics or channels.' },
  } as const,
});

export const NarrowHasEnum = builder.enumType('NarrowHas', {
  description: 'Content a narrow can filter on (the `has:` operator).',
  values: {
    LINK: { value: 'link', description: 'Messages with a link.' },
    IMAGE: { value: 'image', description: 'Messages with an image.' },
    ATTACHMENT: { value: 'attachment', description: 'Messages with an uploaded file.' },
    REACTION: { value: 'reaction', description: 'Messages with at least one emoji reaction.' },
  } as const,
});

export const NarrowChannelsEnum = builder.enumType('NarrowChannels', {
  description: 'Groups of channels a narrow can search in full, beyond the caller\u2019s own history.',
  values: {
    PUBLIC: { value: 'public', description: 'Every public channel.' },
    WEB_PUBLIC: { value: 'web-public', description: 'Every web-public channel.' },
  } as const,
});

// ---- NarrowInput -----------------------------------------------------------------------------------

/** The GraphQL input as resolvers receive it. */
export interface NarrowShape {
  channelId?: number | null;
  channelName?: string | null;
  channels?: string | null;
  topic?: string | null;
  senderId?: number | null;
  dmUserIds?: number[] | null;
  dmIncluding?: number | null;
  is?: string[] | null;
  has?: string[] | null;
  search?: string | null;
  id?: number | null;
  not?: NarrowShape | null;
}

export const NarrowInput = builder.inputRef<NarrowShape>('NarrowInput').implement({
  description:
    'Which messages to consider. Every field given adds one condition and a message must meet all of them; ' +
    'the conditions under `not` are each negated. Without channel conditions only the caller\u2019s personal ' +
    'history is searched (add `channels: PUBLIC` to search all public channels). An empty narrow means every ' +
    'message the caller has received. https://zulip.com/api/construct-narrow',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: false, description: 'Messages in this channel.' }),
    channelName: t.string({ required: false, description: 'Messages in the channel with this name (use channelId when known).' }),
    channels: t.field({ type: NarrowChannelsEnum, required: false, description: 'Search all channels of a kind.' }),
    topic: t.string({ required: false, description: 'Messages in this topic (case-insensitive).' }),
    senderId: t.field({ type: 'Long', required: false, description: 'Messages sent by this user.' }),
    dmUserIds: t.field({
      type: ['Long'],
      required: false,
      description: 'The direct-message conversation between the caller and exactly these users.',
    }),
    dmIncluding: t.field({
      type: 'Long',
      required: false,
      description: 'Direct messages (1:1 and group) that include this user (feature level 177).',
    }),
    is: t.field({ type: [NarrowIsEnum], required: false, description: 'Message states; all must hold.' }),
    has: t.field({ type: [NarrowHasEnum], required: false, description: 'Content the message must have; all must hold.' }),
    search: t.string({ required: false, description: 'Full-text search: every word must appear.' }),
    id: t.field({ type: 'Long', required: false, description: 'Only the message with this ID.' }),
    not: t.field({
      type: NarrowInput,
      required: false,
      description: 'Conditions that must each NOT hold (e.g. `not: { senderId: 5, topic: "x" }`: neither). Cannot be nested.',
    }),
  }),
});

/** Whether encoding `narrow` depends on the server's feature level. */
function narrowNeedsFeatureLevel(narrow: NarrowShape | null | undefined): boolean {
  if (!narrow) return false;
  return (
    narrow.channelId != null ||
    narrow.channelName != null ||
    narrow.channels != null ||
    narrow.dmUserIds != null ||
    narrow.dmIncluding != null ||
    narrow.id != null ||
    (narrow.is ?? []).includes('dm') ||
    narrowNeedsFeatureLevel(narrow.not)
  );
}

/**
 * Encodes a narrow for the server at `featureLevel` (only consulted for the terms
 * {@link narrowNeedsFeatureLevel} names).
 */
export function encodeNarrow(narrow: NarrowShape | null | undefined, featureLevel: number, negated = false): NarrowTerm[] {
  if (!narrow) return [];
  const terms: NarrowTerm[] = [];
  const add = (operator: string, operand: string | number | number[]) =>
    terms.push(negated ? { operator, operand, negated: true } : { operator, operand });
  const modernChannels = featureLevel >= FL.channelOperators;
  const modernDms = featureLevel >= FL.dmOperators;

  if (narrow.channelId != null && narrow.channelName != null) {
    throw badInput('NarrowInput: give channelId or channelName, not both.');
  }
  if (narrow.channelId != null) add(modernChannels ? 'channel' : 'stream', narrow.channelId);
  if (narrow.channelName != null) add(modernChannels ? 'channel' : 'stream', narrow.channelName);
  if (narrow.channels != null) add(modernChannels ? 'channels' : 'streams', narrow.channels);
  if (narrow.topic != null) add('topic', narrow.topic);
  if (narrow.senderId != null) add('sender', narrow.senderId);
  if (narrow.dmUserIds != null) {
    if (narrow.dmUserIds.length === 0) throw badInput('NarrowInput.dmUserIds must name at least one user.');
    add(modernDms ? 'dm' : 'pm-with', narrow.dmUserIds);
  }
  if (narrow.dmIncluding != null) {
    // `group-pm-with`, its predecessor, matched group conversations only: not the same question.
    if (!modernDms) throw unsupported('NarrowInput.dmIncluding', FL.dmOperators, featureLevel);
    add('dm-including', narrow.dmIncluding);
  }
  for (const state of narrow.is ?? []) add('is', state === 'dm' && !modernDms ? 'private' : state);
  for (const content of narrow.has ?? []) add('has', content);
  if (narrow.search != null) add('search', narrow.search);
  if (narrow.id != null) add('id', featureLevel >= FL.integerIdOperand ? narrow.id : String(narrow.id));
  if (narrow.not) {
    if (negated) throw badInput('NarrowInput.not cannot be nested.');
    terms.push(...encodeNarrow(narrow.not, featureLevel, true));
  }
  return terms;
}

function unsupported(what: string, level: number, current: number): GraphQLError {
  return new GraphQLError(
    `${what} needs a chat server with feature level ${level} or newer; this one has feature level ${current}.`,
    { extensions: { code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: level, featureLevel: current } },
  );
}

/** The wire narrow for the caller's server; reads the feature level only when the narrow needs it. */
export async function narrowFor(ctx: Context, narrow: NarrowShape | null | undefined): Promise<NarrowTerm[]> {
  if (!narrow) return [];
  // Encoding validates too: refuse a bad narrow before spending a request on the feature level.
  encodeNarrow(narrow, Number.MAX_SAFE_INTEGER);
  const level = narrowNeedsFeatureLevel(narrow) ? await getFeatureLevel(ctx.anonymousConnection) : Number.MAX_SAFE_INTEGER;
  return encodeNarrow(narrow, level);
}

// ---- anchors ---------------------------------------------------------------------------------------

export interface AnchorShape {
  messageId?: number | null;
  named?: 'newest' | 'oldest' | 'first_unread' | null;
}

export const MessageAnchorInput = builder.inputRef<AnchorShape>('MessageAnchorInput').implement({
  description: 'Where a message window starts: a message ID, or an anchor the server computes. Give exactly one.',
  fields: (t) => ({
    messageId: t.field({
      type: 'Long',
      required: false,
      description: 'A message ID; it need not match the narrow, or exist (the window is placed around it).',
    }),
    named: t.field({ type: NamedAnchorEnum, required: false, description: 'A computed anchor.' }),
  }),
});

function anchorFrom(input: AnchorShape, argument: string): Anchor {
  const hasId = input.messageId != null;
  if (hasId === (input.named != null)) throw badInput(`\`${argument}\`: give exactly one of messageId and named.`, { argument });
  return hasId ? input.messageId! : input.named!;
}

// ---- content loaders -------------------------------------------------------------------------------

type ContentFormat = 'html' | 'markdown';

/** Per request (keyed by the context object, so nothing crosses requests or credentials); made on first use. */
const contentLoaders = new WeakMap<Context, Partial<Record<ContentFormat, DataLoader<number, string>>>>();

/** Markdown sources that came with a message (`GET /messages/{id}` returns `raw_content`). */
const rawContents = new WeakMap<Message, string>();

/** Message content in the other format than the page was fetched in, one batch per page. */
function contentLoader(ctx: Context, format: ContentFormat): DataLoader<number, string> {
  let loaders = contentLoaders.get(ctx);
  if (!loaders) contentLoaders.set(ctx, (loaders = {}));
  return (loaders[format] ??= makeContentLoader(ctx, format === 'html'));
}

function makeContentLoader(ctx: Context, applyMarkdown: boolean): DataLoader<number, string> {
  return new DataLoader<number, string>(
    async (ids) => {
      if ((await getFeatureLevel(ctx.anonymousConnection)) >= FL.messageIds) {
        const { messages } = await getMessages(ctx.connection, { messageIds: [...ids], applyMarkdown, clientGravatar: false });
        const byId = new Map(messages.map((m) => [m.id, m.content]));
        return ids.map((id) => byId.get(id) ?? messageNotFound(id));
      }
      // TODO(server-300): one request per message until message_ids is everywhere.
      return Promise.all(
        ids.map(async (messageId) => {
          const { message, raw_content } = await getMessage(ctx.connection, { messageId, applyMarkdown });
          return applyMarkdown || raw_content === undefined ? message.content : raw_content;
        }),
      );
    },
    { maxBatchSize: MAX_PAGE_SIZE },
  );
}

/** Loader results with records the caller cannot see as null; any other failure is thrown. */
function foundOrNull<T>(loaded: (T | Error)[]): (T | null)[] {
  return loaded.map((item) => {
    if (!(item instanceof Error)) return item;
    if (item instanceof GraphQLError && item.extensions.code === 'NOT_FOUND') return null;
    throw item;
  });
}

function messageNotFound(id: number): GraphQLError {
  return new GraphQLError(`No message with ID ${id} exists or is visible to you.`, { extensions: { code: 'NOT_FOUND' } });
}

/** Lets `ctx.loaders.messages` reuse messages fetched in exactly its shape. */
function primeMessageLoader(ctx: Context, messages: readonly Message[]): void {
  for (const message of messages) ctx.loaders.messages.prime(message.id, message);
}

// ---- object types ----------------------------------------------------------------------------------

export const MessageRef = builder.objectRef<Message>('Message');

function loadChannel(ctx: Context, id: number | undefined | null): Promise<Channel> | null {
  return id == null ? null : ctx.loaders.channels.load(id);
}

export const DirectMessageRecipientRef = builder.objectRef<DisplayRecipientUser>('DirectMessageRecipient').implement({
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
      resolve: (r, _args, ctx) => ctx.loaders.users.load(r.id),
    }),
  }),
});

export const MessageEditRef = builder.objectRef<EditHistoryEntry>('MessageEdit').implement({
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
      resolve: (e, _args, ctx) => (e.user_id == null ? null : ctx.loaders.users.load(e.user_id)),
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

export const TopicLinkRef = builder.objectRef<TopicLink>('TopicLink').implement({
  description: 'A link a linkifier found in the topic.',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The text in the topic.' }),
    url: t.exposeString('url', { description: 'Where it links to.' }),
  }),
});

export const SubmessageRef = builder.objectRef<Submessage>('Submessage').implement({
  description: 'Data of an experimental integration (polls, to-do lists) attached to a message.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The submessage ID.', resolve: (s) => s.id }),
    senderId: t.field({ type: 'Long', description: 'Who added it.', resolve: (s) => s.sender_id }),
    msgType: t.exposeString('msg_type', { description: 'The integration\u2019s message type (e.g. `widget`).' }),
    content: t.exposeString('content', { description: 'JSON text, interpreted by the integration.' }),
  }),
});

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned', 'group_mentioned'];

MessageRef.implement({
  description:
    'A message in a channel topic or a direct-message conversation, as the caller sees it (with the caller\u2019s ' +
    'personal flags).',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The message ID; messages are ordered by it.', resolve: (m) => m.id }),
    type: t.field({ type: MessageTypeEnum, description: 'Channel or direct message.', resolve: (m) => m.type }),
    senderId: t.field({ type: 'Long', description: 'The sender\u2019s user ID.', resolve: (m) => m.sender_id }),
    senderFullName: t.exposeString('sender_full_name', { description: 'The sender\u2019s name when the message was fetched.' }),
    senderEmail: t.exposeString('sender_email', { description: 'The sender\u2019s API email address.' }),
    senderRealmStr: t.exposeString('sender_realm_str', { description: 'The sender\u2019s organization identifier.' }),
    sender: t.field({
      type: UserRef,
      nullable: true,
      description: 'The sender (one `GET /users` per request for all senders); null if the caller cannot see them.',
      resolve: (m, _args, ctx) => ctx.loaders.users.load(m.sender_id),
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
      resolve: (m, _args, ctx) =>
        m.content_type === 'text/html' ? m.content : contentLoader(ctx, 'html').load(m.id),
    }),
    rawContent: t.string({
      description:
        'The Markdown source. Free when `content` is Markdown or the message came from `message(id)`; otherwise ' +
        'one batched upstream request for the whole page (pass `applyMarkdown: false` to avoid it).',
      resolve: (m, _args, ctx) =>
        m.content_type === 'text/x-markdown' ? m.content : (rawContents.get(m) ?? contentLoader(ctx, 'markdown').load(m.id)),
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

// ---- the messages connection ------------------------------------------------------------------------

interface MessagePage {
  result: GetMessagesResult;
  edges: Message[];
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

export const PageInfoRef = builder.objectRef<{ edges: Message[]; hasPreviousPage: boolean; hasNextPage: boolean }>('PageInfo').implement({
  description: 'Relay pagination state of a connection.',
  fields: (t) => ({
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description: 'Whether older matching messages exist before the first edge.',
    }),
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether newer matching messages exist after the last edge.' }),
    startCursor: t.string({
      nullable: true,
      description: 'The cursor of the first edge; null when there are no edges.',
      resolve: (p) => (p.edges.length > 0 ? encodeCursor(p.edges[0]!.id) : null),
    }),
    endCursor: t.string({
      nullable: true,
      description: 'The cursor of the last edge; null when there are no edges.',
      resolve: (p) => (p.edges.length > 0 ? encodeCursor(p.edges[p.edges.length - 1]!.id) : null),
    }),
  }),
});

export const MessageEdgeRef = builder.objectRef<Message>('MessageEdge').implement({
  description: 'A message in a connection, with its cursor.',
  fields: (t) => ({
    cursor: t.string({ description: 'Opaque; pass as `after` or `before` to page on.', resolve: (m) => encodeCursor(m.id) }),
    node: t.field({ type: MessageRef, description: 'The message.', resolve: (m) => m }),
  }),
});

export const MessageConnectionRef = builder.objectRef<MessagePage>('MessageConnection').implement({
  description: 'A page of messages in ID order (oldest first), with Relay paging and Zulip\u2019s window metadata.',
  fields: (t) => ({
    edges: t.field({ type: [MessageEdgeRef], description: 'The messages with their cursors.', resolve: (p) => p.edges }),
    nodes: t.field({ type: [MessageRef], description: 'The messages, without cursors.', resolve: (p) => p.edges }),
    pageInfo: t.field({ type: PageInfoRef, description: 'Whether more pages exist, and their cursors.', resolve: (p) => p }),
    anchor: t.field({
      type: 'Long',
      nullable: true,
      description:
        'The anchor the server used (computed for named anchors; 10000000000000000 stands for "newest").',
      resolve: (p) => p.result.anchor ?? null,
    }),
    foundAnchor: t.boolean({
      description: 'Whether the anchor message exists, matches the narrow and was asked for.',
      resolve: (p) => p.result.found_anchor,
    }),
    foundNewest: t.boolean({
      description: 'The server promises the window reached the newest matching message.',
      resolve: (p) => p.result.found_newest,
    }),
    foundOldest: t.boolean({
      description: 'The server promises the window reached the oldest matching message.',
      resolve: (p) => p.result.found_oldest,
    }),
    historyLimited: t.boolean({
      description: 'Whether older history exists that the organization\u2019s plan does not show.',
      resolve: (p) => p.result.history_limited,
    }),
  }),
});

export interface PageArgs {
  anchor?: AnchorShape | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  includeAnchor?: boolean | null;
}

/** The upstream window for Relay arguments; see {@link fetchMessagePage}. */
export interface MessageWindow {
  anchor: Anchor;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  /** Edges wanted before the anchor / from the anchor on. */
  lastN: number;
  firstN: number;
  /** Which side the anchor message counts on. */
  anchorSide: 'before' | 'after';
}

function pageSize(value: number | null | undefined, argument: string): number | undefined {
  if (value == null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_SIZE) {
    throw badInput(
      `\`${argument}\` must be between 0 and ${MAX_PAGE_SIZE} (the gateway's page-size cap; the chat server allows ` +
        'at most 5000 messages per request).',
      { argument, maxPageSize: MAX_PAGE_SIZE },
    );
  }
  return value;
}

/**
 * Maps Relay arguments onto one anchor window:
 * - `first: n, after: c` → anchor c (excluded), n messages after it;
 * - `last: n, before: c` → anchor c (excluded), n messages before it;
 * - without a cursor: the anchor (default OLDEST with `first`, NEWEST with `last`; required with both),
 *   `last` messages before it and `first` from it on (the anchor message counts on the `first` side,
 *   or on the `last` side when only `last` is given).
 * One extra message is asked for on each side, so hasPreviousPage/hasNextPage are exact.
 */
export function messageWindow(args: PageArgs): MessageWindow {
  const first = pageSize(args.first, 'first');
  const last = pageSize(args.last, 'last');
  if (first === undefined && last === undefined) throw badInput('Pass `first` or `last` (at most 1000).');
  if (args.after != null && args.before != null) throw badInput('Pass `after` or `before`, not both.');
  const cursor = args.after ?? args.before;
  if (cursor != null && args.anchor != null) throw badInput('Pass a cursor (`after`/`before`) or `anchor`, not both.');
  let anchor: Anchor;
  let includeAnchor = args.includeAnchor ?? true;
  if (args.after != null) {
    if (last !== undefined) throw badInput('`after` pages forward: use it with `first`, not `last`.');
    anchor = decodeCursor(args.after, 'after');
    includeAnchor = false;
  } else if (args.before != null) {
    if (first !== undefined) throw badInput('`before` pages backward: use it with `last`, not `first`.');
    anchor = decodeCursor(args.before, 'before');
    includeAnchor = false;
  } else if (args.anchor != null) {
    anchor = anchorFrom(args.anchor, 'anchor');
  } else {
    if (first !== undefined && last !== undefined) throw badInput('With both `first` and `last`, pass the `anchor` they surround.');
    anchor = first !== undefined ? 'oldest' : 'newest';
  }
  const firstN = first ?? 0;
  const lastN = last ?? 0;
  return {
    anchor,
    includeAnchor,
    numBefore: lastN + 1,
    numAfter: firstN + 1,
    firstN,
    lastN,
    anchorSide: first !== undefined ? 'after' : 'before',
  };
}

/** The anchor ID the server used, from the response or (for old servers) the request. */
function anchorIdOf(result: GetMessagesResult, anchor: Anchor): number {
  if (typeof result.anchor === 'number') return result.anchor;
  if (typeof anchor === 'number') return anchor;
  return anchor === 'oldest' ? 0 : Number.MAX_SAFE_INTEGER;
}

/** Cuts a fetched window into the page's edges and exact page info. */
export function pageFrom(result: GetMessagesResult, window: MessageWindow): MessagePage {
  const anchorId = anchorIdOf(result, window.anchor);
  const before: Message[] = [];
  const at: Message[] = [];
  const after: Message[] = [];
  for (const message of result.messages) {
    if (message.id < anchorId) before.push(message);
    else if (message.id > anchorId) after.push(message);
    // Servers before feature level 155 ignore include_anchor; drop the anchor here as well.
    else if (window.includeAnchor) at.push(message);
  }
  const beforeSide = window.anchorSide === 'before' ? [...before, ...at] : before;
  const afterSide = window.anchorSide === 'after' ? [...at, ...after] : after;
  const edges = [...beforeSide.slice(beforeSide.length - Math.min(window.lastN, beforeSide.length)), ...afterSide.slice(0, window.firstN)];
  return {
    result,
    edges,
    hasPreviousPage: beforeSide.length > window.lastN,
    hasNextPage: afterSide.length > window.firstN,
  };
}

export interface FetchOptions {
  narrow?: NarrowShape | null;
  applyMarkdown?: boolean | null;
  clientGravatar?: boolean | null;
  allowEmptyTopicName?: boolean | null;
}

/** One `GET /messages` for a Relay page. */
export async function fetchMessagePage(ctx: Context, args: PageArgs & FetchOptions): Promise<MessagePage> {
  const window = messageWindow(args);
  const narrow = await narrowFor(ctx, args.narrow);
  const result = await getMessages(ctx.connection, {
    anchor: window.anchor,
    includeAnchor: window.includeAnchor,
    numBefore: window.numBefore,
    numAfter: window.numAfter,
    narrow,
    applyMarkdown: args.applyMarkdown ?? true,
    clientGravatar: args.clientGravatar ?? false,
    allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
  });
  return pageFrom(result, window);
}

/** Whether a message fetched with these options looks exactly like one `ctx.loaders.messages` returns. */
function isLoaderShaped(args: FetchOptions): boolean {
  return (args.applyMarkdown ?? true) && !(args.clientGravatar ?? false) && !args.allowEmptyTopicName;
}

// ---- queries ---------------------------------------------------------------------------------------

builder.queryFields((t) => ({
  messages: t.field({
    type: MessageConnectionRef,
    nullable: true,
    description:
      'Messages matching a narrow, as a Relay connection over the anchor API (one upstream request per page). ' +
      `Pass \`first\` or \`last\` (at most ${MAX_PAGE_SIZE}); \`after\`/\`before\` page on from a cursor, ` +
      '`anchor` places the window (e.g. `{ named: FIRST_UNREAD }` with both `last` and `first` for the messages ' +
      'around the first unread).',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages; default: the caller\u2019s whole history.' }),
      anchor: t.arg({
        type: MessageAnchorInput,
        required: false,
        description: 'Where the window starts when no cursor is given (default OLDEST with `first`, NEWEST with `last`).',
      }),
      first: t.arg.int({ required: false, description: `Messages from the anchor (or after the \`after\` cursor) on; at most ${MAX_PAGE_SIZE}.` }),
      after: t.arg.string({ required: false, description: 'Page forward from this cursor (exclusive).' }),
      last: t.arg.int({ required: false, description: `Messages before the anchor (or the \`before\` cursor); at most ${MAX_PAGE_SIZE}.` }),
      before: t.arg.string({ required: false, description: 'Page backward from this cursor (exclusive).' }),
      includeAnchor: t.arg.boolean({
        required: false,
        description: 'Whether the anchor message itself may be included (default true; cursors always exclude it).',
      }),
      applyMarkdown: t.arg.boolean({
        required: false,
        description: 'Fetch `content` as HTML (default true) or as Markdown.',
      }),
      clientGravatar: t.arg.boolean({
        required: false,
        description: 'Let `avatarUrl` be null for gravatar users whose email you see, to compute it yourself (default false).',
      }),
      allowEmptyTopicName: t.arg.boolean({
        required: false,
        description: 'Return the empty topic as "" instead of its display name (default false; feature level 334).',
      }),
    },
    resolve: (_root, args, ctx) => fetchMessagePage(ctx, args),
  }),
  messagesByIds: t.field({
    type: [MessageRef],
    nullable: { list: true, items: true },
    description:
      'Messages by ID in one upstream request (feature level 300, else UNSUPPORTED_BY_SERVER), in the order asked; ' +
      'null for IDs that do not exist, are not visible to the caller or do not match the narrow.',
    args: {
      ids: t.arg({ type: ['Long'], required: true, description: `Message IDs (at most ${MAX_PAGE_SIZE}).` }),
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Only return the messages matching it.' }),
      applyMarkdown: t.arg.boolean({ required: false, description: 'Fetch `content` as HTML (default true) or as Markdown.' }),
      allowEmptyTopicName: t.arg.boolean({
        required: false,
        description: 'Return the empty topic as "" instead of its display name (default false).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.ids.length > MAX_PAGE_SIZE) {
        throw badInput(`\`ids\` may name at most ${MAX_PAGE_SIZE} messages.`, { argument: 'ids', maxPageSize: MAX_PAGE_SIZE });
      }
      await requireFeatureLevel(ctx, FL.messageIds, 'messagesByIds');
      if (args.ids.length === 0) return [];
      const { messages } = await getMessages(ctx.connection, {
        messageIds: [...new Set(args.ids)],
        narrow: await narrowFor(ctx, args.narrow),
        applyMarkdown: args.applyMarkdown ?? true,
        clientGravatar: false,
        allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
      });
      if (isLoaderShaped(args) && args.narrow == null) primeMessageLoader(ctx, messages);
      const byId = new Map(messages.map((m) => [m.id, m]));
      return args.ids.map((id) => byId.get(id) ?? null);
    },
  }),
  message: t.field({
    type: MessageRef,
    nullable: true,
    description: 'One message by ID (one upstream request, Markdown source included, so `rawContent` is free).',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The message ID.' }),
      applyMarkdown: t.arg.boolean({ required: false, description: 'Fetch `content` as HTML (default true) or as Markdown.' }),
      allowEmptyTopicName: t.arg.boolean({
        required: false,
        description: 'Return the empty topic as "" instead of its display name (default false).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { message, raw_content } = await getMessage(ctx.connection, {
        messageId: args.id,
        applyMarkdown: args.applyMarkdown ?? undefined,
        allowEmptyTopicName: args.allowEmptyTopicName ?? undefined,
      });
      if (raw_content !== undefined) rawContents.set(message, raw_content);
      return message;
    },
  }),
}));

// ---- mutations -------------------------------------------------------------------------------------

interface SentMessage {
  id: number;
  automatic_new_visibility_policy?: number;
}

export const SendMessagePayloadRef = builder.objectRef<SentMessage>('SendMessagePayload').implement({
  description: 'A message that was sent.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The new message\u2019s ID.', resolve: (p) => p.id }),
    message: t.field({
      type: MessageRef,
      nullable: true,
      description: 'The new message (fetched only when selected; feature level 300).',
      resolve: (p, _args, ctx) => ctx.loaders.messages.load(p.id),
    }),
    automaticNewVisibilityPolicy: t.int({
      nullable: true,
      description:
        'When sending changed the sender\u2019s visibility policy for the topic (their settings can follow or unmute ' +
        'topics they post in): the new policy value (2 or 3, as `POST /user_topics` takes it).',
      resolve: (p) => p.automatic_new_visibility_policy ?? null,
    }),
  }),
});

interface EditedMessage {
  messageId: number;
  detachedUploads: DetachedUpload[];
  baseUrl: string;
}

export const DetachedUploadRef = builder.objectRef<DetachedUpload & { baseUrl: string }>('DetachedUpload').implement({
  description:
    'An uploaded file that the edit left unreferenced; clients should ask whether to delete it.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The attachment ID.', resolve: (u) => u.id }),
    name: t.exposeString('name', { description: 'The file name.' }),
    pathId: t.exposeString('path_id', { description: 'The path in the server\u2019s upload store.' }),
    url: t.string({
      description: 'Where the file is served (the server URL, /user_uploads/ and the path).',
      resolve: (u) => `${u.baseUrl}/user_uploads/${u.path_id}`,
    }),
    size: t.field({ type: 'Long', description: 'Size in bytes.', resolve: (u) => u.size }),
    createTime: t.field({ type: 'Long', description: 'When it was uploaded, in UNIX milliseconds.', resolve: (u) => u.create_time }),
    messageIds: t.field({
      type: ['Long'],
      description: 'Messages that still reference it (normally none).',
      resolve: (u) => u.messages.map((m) => m.id),
    }),
  }),
});

export const EditMessagePayloadRef = builder.objectRef<EditedMessage>('EditMessagePayload').implement({
  description: 'A message that was edited or moved.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The target message.', resolve: (p) => p.messageId }),
    message: t.field({
      type: MessageRef,
      nullable: true,
      description: 'The target message after the edit (fetched only when selected; feature level 300).',
      resolve: (p, _args, ctx) => ctx.loaders.messages.clear(p.messageId).load(p.messageId),
    }),
    detachedUploads: t.field({
      type: [DetachedUploadRef],
      description: 'Files whose only references the edit removed (empty from servers that do not report them).',
      resolve: (p) => p.detachedUploads.map((u) => ({ ...u, baseUrl: p.baseUrl })),
    }),
  }),
});

/**
 * MOVE_MESSAGES_TIME_LIMIT_EXCEEDED as a result, not an error: the client can retry with
 * CHANGE_LATER from `firstMessageIdAllowedToMove` (api-spec.md, PATCH /messages rule 4).
 */
export class MoveMessagesTimeLimitExceeded extends Error {
  static readonly code = 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED';
  readonly firstMessageIdAllowedToMove: number | null;
  readonly totalMessagesAllowedToMove: number;
  readonly totalMessagesInTopic: number;

  constructor(message: string, data: Partial<MoveMessagesTimeLimitExceededData>) {
    super(message);
    this.name = 'MoveMessagesTimeLimitExceeded';
    this.firstMessageIdAllowedToMove = data.first_message_id_allowed_to_move ?? null;
    this.totalMessagesAllowedToMove = data.total_messages_allowed_to_move ?? 0;
    this.totalMessagesInTopic = data.total_messages_in_topic ?? 0;
  }

  /** The typed form of an upstream error, or the error itself when it is another one. */
  static from(error: unknown): unknown {
    if (!(error instanceof ZulipApiError) || error.code !== MoveMessagesTimeLimitExceeded.code) return error;
    return new MoveMessagesTimeLimitExceeded(error.message, error.data as Partial<MoveMessagesTimeLimitExceededData>);
  }
}

builder.objectType(MoveMessagesTimeLimitExceeded, {
  name: 'MoveMessagesTimeLimitExceededError',
  description:
    'The move is beyond the organization\u2019s time limit for part of the topic. When `firstMessageIdAllowedToMove` ' +
    'is set, the client may retry with `messageId: firstMessageIdAllowedToMove` and `propagateMode: CHANGE_LATER` ' +
    'to move only the part it may (upstream code MOVE_MESSAGES_TIME_LIMIT_EXCEEDED).',
  fields: (t) => ({
    code: t.string({ description: 'Always MOVE_MESSAGES_TIME_LIMIT_EXCEEDED.', resolve: () => MoveMessagesTimeLimitExceeded.code }),
    message: t.exposeString('message', { description: 'The server\u2019s explanation, for people.' }),
    firstMessageIdAllowedToMove: t.field({
      type: 'Long',
      nullable: true,
      description: 'The oldest message of the topic the caller may move; null when the server did not compute it.',
      resolve: (e) => e.firstMessageIdAllowedToMove,
    }),
    totalMessagesAllowedToMove: t.exposeInt('totalMessagesAllowedToMove', {
      description: 'How many (of the most recent) messages the caller may move.',
    }),
    totalMessagesInTopic: t.exposeInt('totalMessagesInTopic', { description: 'How many messages the topic has.' }),
  }),
});

interface FlagsUpdated {
  messageIds: number[];
}

export const UpdateMessageFlagsPayloadRef = builder.objectRef<FlagsUpdated>('UpdateMessageFlagsPayload').implement({
  description: 'The result of changing a flag on messages by ID.',
  fields: (t) => ({
    messageIds: t.field({ type: ['Long'], description: 'The messages the request applied to.', resolve: (p) => p.messageIds }),
    messages: t.field({
      type: [MessageRef],
      nullable: { list: false, items: true },
      description: 'Those messages, after the change (fetched only when selected; feature level 300).',
      resolve: async (p, _args, ctx) => {
        for (const id of p.messageIds) ctx.loaders.messages.clear(id);
        return foundOrNull(await ctx.loaders.messages.loadMany(p.messageIds));
      },
    }),
  }),
});

export const UpdateMessageFlagsForNarrowPayloadRef = builder
  .objectRef<UpdateMessageFlagsForNarrowResult>('UpdateMessageFlagsForNarrowPayload')
  .implement({
    description:
      'The result of changing a flag on a range of messages in a narrow. To cover a longer range, repeat from ' +
      '`lastProcessedId` (or `firstProcessedId`) until `foundNewest` (or `foundOldest`).',
    fields: (t) => ({
      processedCount: t.exposeInt('processed_count', { description: 'Messages in the range.' }),
      updatedCount: t.exposeInt('updated_count', { description: 'Messages whose flag changed.' }),
      firstProcessedId: t.field({
        type: 'Long',
        nullable: true,
        description: 'The oldest message in the range; null when the range was empty.',
        resolve: (r) => r.first_processed_id,
      }),
      lastProcessedId: t.field({
        type: 'Long',
        nullable: true,
        description: 'The newest message in the range; null when the range was empty.',
        resolve: (r) => r.last_processed_id,
      }),
      foundOldest: t.exposeBoolean('found_oldest', { description: 'The range reached the oldest matching message.' }),
      foundNewest: t.exposeBoolean('found_newest', { description: 'The range reached the newest matching message.' }),
      ignoredBecauseNotSubscribedChannelIds: t.field({
        type: ['Long'],
        description: 'When removing READ: channels skipped because the caller is not subscribed (feature level 355).',
        resolve: (r) => r.ignored_because_not_subscribed_channels ?? [],
      }),
      ignoredBecauseNotSubscribedChannels: t.field({
        type: [ChannelRef],
        nullable: { list: false, items: true },
        description: 'The same channels (null for any the caller can no longer see).',
        resolve: async (r, _args, ctx) =>
          foundOrNull(await ctx.loaders.channels.loadMany(r.ignored_because_not_subscribed_channels ?? [])),
      }),
    }),
  });

builder.mutationFields((t) => ({
  sendMessage: t.field({
    type: SendMessagePayloadRef,
    description:
      'Sends a message: to a channel (`channelId` or `channelName`, and `topic`) or directly to users (`to`). ' +
      'Exactly one destination.',
    args: {
      channelId: t.arg({ type: 'Long', required: false, description: 'The channel to send to.' }),
      channelName: t.arg.string({ required: false, description: 'The channel to send to, by name.' }),
      topic: t.arg.string({ required: false, description: 'The topic (channel messages).' }),
      to: t.arg({ type: ['Long'], required: false, description: 'User IDs of the recipients of a direct message.' }),
      content: t.arg.string({ required: true, description: 'Markdown content.' }),
      readBySender: t.arg.boolean({
        required: false,
        description: 'Whether it starts read for the sender (feature level 236; default: a server heuristic).',
      }),
      queueId: t.arg.string({ required: false, description: 'Local echo: the caller\u2019s event queue ID (then localId too).' }),
      localId: t.arg.string({ required: false, description: 'Local echo: an ID the `message` event will carry back.' }),
    },
    resolve: async (_root, args, ctx) => {
      const destinations = [args.channelId, args.channelName, args.to].filter((d) => d != null).length;
      if (destinations !== 1) throw badInput('sendMessage: give exactly one of channelId, channelName and to.');
      const direct = args.to != null;
      if (direct && args.to!.length === 0) throw badInput('sendMessage: `to` must name at least one user.');
      if (direct && args.topic != null) throw badInput('sendMessage: direct messages have no topic.');
      const type = direct
        ? (await getFeatureLevel(ctx.anonymousConnection)) >= FL.directType
          ? 'direct'
          : 'private'
        : 'stream'; // accepted by every server version; `channel` only since feature level 248
      return sendMessage(ctx.connection, {
        type,
        to: args.to ?? args.channelId ?? args.channelName!,
        content: args.content,
        topic: args.topic ?? undefined,
        readBySender: args.readBySender ?? undefined,
        queueId: args.queueId ?? undefined,
        localId: args.localId ?? undefined,
      });
    },
  }),
  editMessage: t.field({
    type: EditMessagePayloadRef,
    errors: {
      types: [MoveMessagesTimeLimitExceeded],
      directResult: true,
      union: {
        name: 'EditMessageResult',
        description: 'The edited message, or the move time limit the client can work around.',
      },
    },
    description:
      'Edits a message\u2019s content, or moves it (and, by `propagateMode`, the rest of its topic) to another topic ' +
      'or channel. Content and channel cannot change together; topic and channel apply to channel messages only. ' +
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED is returned as a result; other refusals (BAD_REQUEST, ' +
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED, TOPIC_WILDCARD_MENTION_NOT_ALLOWED...) are GraphQL errors with that code.',
    args: {
      messageId: t.arg({ type: 'Long', required: true, description: 'The message to edit or move.' }),
      content: t.arg.string({ required: false, description: 'New Markdown content.' }),
      topic: t.arg.string({ required: false, description: 'New topic (resolve a topic with "\u2714 " + its name).' }),
      channelId: t.arg({ type: 'Long', required: false, description: 'Channel to move to.' }),
      propagateMode: t.arg({ type: PropagateModeEnum, required: false, description: 'Which messages move (default CHANGE_ONE).' }),
      sendNotificationToOldThread: t.arg.boolean({
        required: false,
        description: 'Post a notice in the old topic (default false).',
      }),
      sendNotificationToNewThread: t.arg.boolean({
        required: false,
        description: 'Post a notice in the new topic (default true; not for resolving/unresolving).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      try {
        const result = await updateMessage(ctx.connection, {
          messageId: args.messageId,
          content: args.content ?? undefined,
          topic: args.topic ?? undefined,
          streamId: args.channelId ?? undefined,
          propagateMode: (args.propagateMode ?? undefined) as PropagateMode | undefined,
          sendNotificationToOldThread: args.sendNotificationToOldThread ?? undefined,
          sendNotificationToNewThread: args.sendNotificationToNewThread ?? undefined,
        });
        return { messageId: args.messageId, detachedUploads: result.detached_uploads ?? [], baseUrl: ctx.connection.baseUrl };
      } catch (error) {
        throw MoveMessagesTimeLimitExceeded.from(error);
      }
    },
  }),
  updateMessageFlags: t.field({
    type: UpdateMessageFlagsPayloadRef,
    description: 'Adds or removes a personal flag on messages by ID.',
    args: {
      messageIds: t.arg({ type: ['Long'], required: true, description: 'The target messages.' }),
      op: t.arg({ type: FlagOperationEnum, required: true, description: 'Add or remove.' }),
      flag: t.arg({ type: EditableMessageFlagEnum, required: true, description: 'Which flag.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { messages } = await updateMessageFlags(ctx.connection, { messages: args.messageIds, op: args.op, flag: args.flag });
      return { messageIds: messages ?? args.messageIds };
    },
  }),
  updateMessageFlagsForNarrow: t.field({
    type: UpdateMessageFlagsForNarrowPayloadRef,
    description:
      'Adds or removes a personal flag on up to `numBefore + 1 + numAfter` messages of a narrow around an anchor ' +
      '(the server may process fewer). Feature level 155. For marking as read, add `is: [UNREAD]` to the narrow.',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages (default: all).' }),
      anchor: t.arg({ type: MessageAnchorInput, required: true, description: 'Where the range starts.' }),
      includeAnchor: t.arg.boolean({ required: false, description: 'Whether the anchor message is in the range (default true).' }),
      numBefore: t.arg.int({ required: true, description: 'Messages before the anchor.' }),
      numAfter: t.arg.int({ required: true, description: 'Messages after the anchor.' }),
      op: t.arg({ type: FlagOperationEnum, required: true, description: 'Add or remove.' }),
      flag: t.arg({ type: EditableMessageFlagEnum, required: true, description: 'Which flag.' }),
    },
    resolve: async (_root, args, ctx) => {
      for (const [name, value] of [['numBefore', args.numBefore], ['numAfter', args.numAfter]] as const) {
        if (value < 0) throw badInput(`\`${name}\` must not be negative.`, { argument: name });
      }
      const anchor = anchorFrom(args.anchor, 'anchor');
      await requireFeatureLevel(ctx, FL.flagsForNarrow, 'updateMessageFlagsForNarrow');
      return updateMessageFlagsForNarrow(ctx.connection, {
        anchor,
        includeAnchor: args.includeAnchor ?? undefined,
        numBefore: args.numBefore,
        numAfter: args.numAfter,
        narrow: await narrowFor(ctx, args.narrow),
        op: args.op,
        flag: args.flag,
      });
    },
  }),
}));
