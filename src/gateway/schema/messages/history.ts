/**
 * A message's past: `messageEditHistory` (https://zulip.com/api/get-message-history), the message
 * as it was after each edit, and `messageReadReceipts` (https://zulip.com/api/get-read-receipts,
 * feature level 137), who has read it. One upstream call each; the users and channels they link
 * to come through the request's loaders.
 */
import type { MessageSnapshot } from '../../../zulip/model/messages.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { getMessageHistory, getReadReceipts } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { reaches } from '../../zulip-operations.js';
import { ChannelRef, loadChannel } from '../channels/index.js';
import { loadUsers } from '../group-settings.js';
import { UserRef } from '../users.js';
import { foundOrNull, MessageRef } from './message.js';

/** The message by ID through the request's loader; null if the caller cannot read it. */
export async function messageOrNull(ctx: Context, id: number) {
  return foundOrNull(await ctx.loaders.messages.loadMany([id]))[0] ?? null;
}

/** Refuses a non-positive message ID before any upstream call. */
export function checkMessageId(field: string, id: number, argument = 'id'): void {
  if (id <= 0) throw badInput(`${field}: \`${argument}\` must be a positive message ID.`, { argument });
}

const MessageSnapshotRef = builder.objectRef<MessageSnapshot>('MessageSnapshot').implement({
  description:
    'A message as it was right after one edit (the first snapshot: as it was sent). The `prev*` fields say what ' +
    'that edit changed, and are null when it did not change that part.',
  fields: (t) => ({
    timestamp: t.field({ type: 'Long', description: 'When the edit was made (for the first snapshot: when the message was sent), in UNIX seconds.', resolve: (s) => s.timestamp }),
    userId: t.field({ type: 'Long', nullable: true, description: 'Who made the edit (the sender, for the first snapshot); null only for edits before 2017.', resolve: (s) => s.user_id }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who made the edit; null for very old edits or users the caller cannot see.',
      resolve: (s, _args, ctx) => (s.user_id == null ? null : ctx.loaders.user(s.user_id)),
    }),
    topic: t.exposeString('topic', { description: 'The topic after this edit.' }),
    prevTopic: t.string({ nullable: true, description: 'The topic before this edit; null if the edit kept the topic.', resolve: (s) => s.prev_topic ?? null }),
    channelId: t.field({ type: 'Long', nullable: true, description: 'The channel after this edit; null if the edit kept the channel.', resolve: (s) => s.stream ?? null }),
    channel: t.field({ type: ChannelRef, nullable: true, description: 'The channel after this edit; null if the edit kept the channel.', resolve: (s, _args, ctx) => loadChannel(ctx, s.stream) }),
    prevChannelId: t.field({ type: 'Long', nullable: true, description: 'The channel before this edit; null if the edit kept the channel.', resolve: (s) => s.prev_stream ?? null }),
    prevChannel: t.field({ type: ChannelRef, nullable: true, description: 'The channel before this edit; null if the edit kept the channel.', resolve: (s, _args, ctx) => loadChannel(ctx, s.prev_stream) }),
    content: t.exposeString('content', { description: 'The Markdown content after this edit.' }),
    renderedContent: t.exposeString('rendered_content', { description: 'The HTML content after this edit.' }),
    prevContent: t.string({ nullable: true, description: 'The Markdown content before this edit; null if the edit kept the content.', resolve: (s) => s.prev_content ?? null }),
    prevRenderedContent: t.string({ nullable: true, description: 'The HTML content before this edit; null if the edit kept the content.', resolve: (s) => s.prev_rendered_content ?? null }),
    contentHtmlDiff: t.string({ nullable: true, description: 'An HTML diff between this version and the previous one; null if the edit kept the content.', resolve: (s) => s.content_html_diff ?? null }),
  }),
});

interface ReadReceipts {
  messageId: number;
  userIds: number[];
}

const MessageReadReceiptsRef = builder.objectRef<ReadReceipts>('MessageReadReceipts').implement({
  description:
    'Who has read a message. Left out: the sender, users who do not share read receipts, users the caller muted and ' +
    'users who muted the caller.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The message ID.', resolve: (r) => r.messageId }),
    message: t.field({ type: MessageRef, nullable: true, description: 'The message (fetched only when selected).', resolve: (r, _args, ctx) => messageOrNull(ctx, r.messageId) }),
    userIds: t.field({ type: ['Long'], description: 'The IDs of the users who read it.', resolve: (r) => r.userIds }),
    users: t.field({ type: [UserRef], description: 'The users who read it (those the caller cannot see are left out).', resolve: (r, _args, ctx) => loadUsers(ctx, r.userIds) }),
  }),
});

builder.queryFields((t) => ({
  messageEditHistory: t.field({
    extensions: reaches('get-message-history'),
    type: [MessageSnapshotRef],
    description:
      'A message\u2019s edit history: the message after each edit, oldest (as sent) first; one snapshot if never ' +
      'edited. Fails with BAD_REQUEST: "Invalid message(s)" (unknown or unreadable), "Message edit history is ' +
      'disabled in this organization".',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The message.' }),
      allowEmptyTopicName: t.arg.boolean({
        required: false,
        description: 'Give the empty topic as the empty string (else as the organization\u2019s display name for it; feature level 334).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      checkMessageId('messageEditHistory', args.id);
      const allow = args.allowEmptyTopicName ?? undefined;
      if (allow !== undefined) await requireFeatureLevel(ctx, featureLevels.emptyTopicName, 'allowEmptyTopicName');
      return (await getMessageHistory(ctx.connection, { messageId: args.id, allowEmptyTopicName: allow })).message_history;
    },
  }),
  messageReadReceipts: t.field({
    extensions: reaches('get-read-receipts'),
    type: MessageReadReceiptsRef,
    description:
      'Who has read a message (feature level 137, else UNSUPPORTED_BY_SERVER). Fails with BAD_REQUEST: "Invalid ' +
      'message(s)", "Read receipts are disabled in this organization.".',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The message.' }) },
    resolve: async (_root, args, ctx) => {
      checkMessageId('messageReadReceipts', args.id);
      await requireFeatureLevel(ctx, featureLevels.readReceipts, 'Read receipts');
      const { user_ids } = await getReadReceipts(ctx.connection, { messageId: args.id });
      return { messageId: args.id, userIds: user_ids };
    },
  }),
}));
