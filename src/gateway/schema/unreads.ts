/**
 * Unread counts: the root field `unreads` and `unreadCount` on `Channel` and `Topic`, from the
 * caller's `unread_msgs` (https://zulip.com/api/register-queue) kept current by their event queue
 * (directory/unreads.ts has the counting rules, loaders/unreads.ts where the counts come from).
 */
import type { User } from '../../zulip/model/users.js';
import type { ChannelUnreads, ConversationUnreads, TopicUnreads, UnreadsView } from '../directory/unreads.js';
import { builder } from '../builder.js';
import { channelLookupCost, userLookupCost } from '../upstream/cost.js';
import type { UpstreamCost } from '../upstream/cost.js';
import type { Context } from '../context.js';
import { memoKey } from '../loaders/index.js';
import { loadUnreads } from '../loaders/unreads.js';
import { UNREADS } from '../live/resources.js';
import { ChannelRef, channelOrNull, TopicRef } from './channels/index.js';
import { UserRef } from './users.js';

const callerUnreads = memoKey<UnreadsView>('caller unreads');

/** loadUnreads: nothing from a warm directory, else a registration of its own (three calls), once per operation. */
export const unreadsCost: UpstreamCost = { once: { key: 'unreads', calls: 3 }, directory: true };

/** The caller's unread counts, once per request. */
export function unreads(ctx: Context): Promise<UnreadsView> {
  ctx.liveReads?.(UNREADS);
  return ctx.loaders.memo.get(callerUnreads, () => loadUnreads(ctx.server, ctx.connection));
}

const TopicUnreadsRef = builder.objectRef<TopicUnreads>('TopicUnreads').implement({
  description: 'The unread messages of one topic.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel of the topic.', resolve: (e) => e.channelId }),
    channel: t.field({
      zulip: { cost: channelLookupCost },
      type: ChannelRef,
      nullable: true,
      description: 'The channel of the topic; null if the caller can no longer see it.',
      resolve: (e, _args, ctx) => channelOrNull(ctx, e.channelId),
    }),
    topic: t.exposeString('topic', { description: 'The topic name, as the messages have it.' }),
    count: t.int({ description: 'How many messages of the topic are unread.', resolve: (e) => e.messageIds.length }),
    muted: t.exposeBoolean('muted', {
      description:
        'Whether the topic is muted for the caller: muted itself, or in a muted channel and neither unmuted nor followed. ' +
        'Its messages do not count toward `Unreads.total`.',
    }),
    messageIds: t.field({ type: ['Long'], description: 'The unread message IDs, ascending.', resolve: (e) => e.messageIds }),
  }),
});

const ChannelUnreadsRef = builder.objectRef<ChannelUnreads>('ChannelUnreads').implement({
  description: 'The unread messages of one channel the caller is subscribed to, by topic.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel ID.', resolve: (e) => e.channelId }),
    channel: t.field({
      zulip: { cost: channelLookupCost },
      type: ChannelRef,
      nullable: true,
      description: 'The channel; null if the caller can no longer see it.',
      resolve: (e, _args, ctx) => channelOrNull(ctx, e.channelId),
    }),
    count: t.exposeInt('count', { description: 'Every unread message of the channel, muted topics included.' }),
    unmutedCount: t.exposeInt('unmutedCount', {
      description: 'The unread messages of the channel that count toward `Unreads.total` (those of topics that are not muted).',
    }),
    topics: t.field({ type: [TopicUnreadsRef], description: 'Topics with unread messages, by name.', resolve: (e) => e.topics }),
  }),
});

const ConversationUnreadsRef = builder.objectRef<ConversationUnreads>('ConversationUnreads').implement({
  description: 'The unread messages of one direct-message conversation.',
  fields: (t) => ({
    userIds: t.field({
      type: ['Long'],
      description: 'The other participants, ascending; only the caller for their own conversation.',
      resolve: (e) => e.userIds,
    }),
    users: t.field({
      zulip: { cost: userLookupCost },
      type: [UserRef],
      description: 'The other participants the caller can see (`userIds` lists them all).',
      resolve: async (e, _args, ctx) => (await ctx.loaders.users.loadMany(e.userIds)).filter((u): u is User => !(u instanceof Error)),
    }),
    count: t.int({ description: 'How many messages of the conversation are unread.', resolve: (e) => e.messageIds.length }),
    messageIds: t.field({ type: ['Long'], description: 'The unread message IDs, ascending.', resolve: (e) => e.messageIds }),
  }),
});

export const UnreadsRef = builder.objectRef<UnreadsView>('Unreads').implement({
  description:
    "The caller's unread messages, as Zulip counts them (https://zulip.com/api/register-queue, `unread_msgs`). " +
    'Kept current by the caller\'s event queue: once loaded, reading them costs no upstream call.',
  fields: (t) => ({
    total: t.exposeInt('total', {
      description: 'Unread direct messages plus unread channel messages that are not muted (muted channels and topics left out).',
    }),
    mentions: t.int({
      description: 'Unread messages that mention the caller: personal and group mentions always, wildcard mentions only outside muted topics.',
      resolve: (v) => v.mentionIds.length,
    }),
    mentionedMessageIds: t.field({ type: ['Long'], description: 'The IDs counted by `mentions`, ascending.', resolve: (v) => v.mentionIds }),
    channels: t.field({
      type: [ChannelUnreadsRef],
      description: 'Subscribed channels with unread messages (muted ones included), by channel ID.',
      resolve: (v) => v.channels,
    }),
    directMessages: t.field({
      type: [ConversationUnreadsRef],
      description: 'Direct-message conversations with unread messages, one-on-one and group.',
      resolve: (v) => v.conversations,
    }),
    oldUnreadsMissing: t.exposeBoolean('oldUnreadsMissing', {
      description: 'Whether the server left out the oldest unread messages (it sends at most 50,000); until all are marked read, counts may be low.',
    }),
  }),
});

builder.queryField('unreads', (t) =>
  t.field({
    type: UnreadsRef,
    description: "The caller's unread counts: total, mentions, and per channel, topic and direct-message conversation.",
    zulip: { cost: unreadsCost, live: [UNREADS] },
    resolve: (_root, _args, ctx) => unreads(ctx),
  }),
);

builder.objectField(ChannelRef, 'unreadCount', (t) =>
  t.int({
    description: "The caller's unread messages in this channel, muted topics included (0 when not subscribed). See `unreads` for the rules.",
    zulip: { cost: unreadsCost },
    resolve: async (channel, _args, ctx) => (await unreads(ctx)).channels.find((c) => c.channelId === channel.stream_id)?.count ?? 0,
  }),
);

builder.objectField(TopicRef, 'unreadCount', (t) =>
  t.int({
    description: "The caller's unread messages in this topic (topics match case-insensitively, as in Zulip).",
    zulip: { cost: unreadsCost },
    resolve: async (topic, _args, ctx) => {
      const channel = (await unreads(ctx)).channels.find((c) => c.channelId === topic.stream_id);
      const name = topic.name.toLowerCase();
      return channel?.topics.reduce((n, e) => n + (e.topic.toLowerCase() === name ? e.messageIds.length : 0), 0) ?? 0;
    },
  }),
);
