/**
 * Events about channels and the caller's place in them: subscriptions, channels, the default
 * channels and topic visibility preferences.
 */
import type { Subscription } from '../../../zulip/model/subscriptions.js';
import { builder } from '../../builder.js';
import { ChannelRef, loadChannel } from '../channels/index.js';
import { SubscriptionRef } from '../subscriptions/index.js';
import { VisibilityPolicyEnum } from '../user-topics.js';
import { EventOpEnum, otherType } from './kinds.js';
import { ints, num, objects, str } from './payloads.js';

export const SubscriptionEventRef = otherType(
  'SubscriptionEvent',
  'The caller\u2019s subscriptions or a channel\u2019s subscribers changed (kind SUBSCRIPTION; ops ADD, REMOVE, UPDATE, PEER_ADD, PEER_REMOVE).',
);
builder.objectFields(SubscriptionEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What changed.', resolve: (p) => String(p.event.wire.op) }),
  channelIds: t.field({
    type: ['Long'],
    description: 'The channels concerned.',
    resolve: (p) => {
      const w = p.event.wire;
      const fromList = objects(w.subscriptions).map((s) => num(s, 'stream_id')).filter((id): id is number => id !== null);
      return [...new Set([...ints(w.stream_ids), ...(num(w, 'stream_id') !== null ? [num(w, 'stream_id')!] : []), ...fromList])];
    },
  }),
  userIds: t.field({ type: ['Long'], description: 'PEER_ADD / PEER_REMOVE: the users who joined or left.', resolve: (p) => ints(p.event.wire.user_ids) }),
  property: t.string({ nullable: true, description: 'UPDATE: the property changed.', resolve: (p) => str(p.event.wire, 'property') }),
  value: t.field({ type: 'JSON', nullable: true, description: 'UPDATE: its new value.', resolve: (p) => p.event.wire.value ?? null }),
  subscriptions: t.field({
    type: [SubscriptionRef],
    description: 'ADD: the new subscriptions (empty for the other operations; see channelIds).',
    resolve: (p) => (p.event.wire.op === 'add' ? (objects(p.event.wire.subscriptions) as unknown as Subscription[]) : []),
  }),
}));

export const ChannelEventRef = otherType('ChannelEvent', 'A channel was created, deleted or changed (kind CHANNEL; ops CREATE, DELETE, UPDATE).');
builder.objectFields(ChannelEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  channelIds: t.field({
    type: ['Long'],
    description: 'The channels concerned.',
    resolve: (p) => {
      const id = num(p.event.wire, 'stream_id');
      return id !== null ? [id] : objects(p.event.wire.streams).map((s) => num(s, 'stream_id')).filter((x): x is number => x !== null);
    },
  }),
  channels: t.field({
    type: [ChannelRef],
    nullable: true,
    description: 'CREATE / DELETE: the channels, as they were sent; UPDATE: the channel as it is now (loaded); null if it cannot be read.',
    resolve: async (p, _args, ctx) => {
      const id = num(p.event.wire, 'stream_id');
      if (id !== null) return [await ctx.loaders.channel(id)];
      return objects(p.event.wire.streams) as never[];
    },
  }),
  property: t.string({ nullable: true, description: 'UPDATE: the property changed.', resolve: (p) => str(p.event.wire, 'property') }),
  value: t.field({ type: 'JSON', nullable: true, description: 'UPDATE: its new value.', resolve: (p) => p.event.wire.value ?? null }),
}));

export const DefaultChannelsEventRef = otherType('DefaultChannelsEvent', 'The organization\u2019s default channels changed (kind DEFAULT_CHANNELS).');
builder.objectFields(DefaultChannelsEventRef, (t) => ({
  channelIds: t.field({
    type: ['Long'],
    description: 'The default channels now.',
    resolve: (p) => objects(p.event.wire.default_streams).map((s) => num(s, 'stream_id')).filter((x): x is number => x !== null),
  }),
}));

export const UserTopicEventRef = otherType('UserTopicEvent', 'The caller\u2019s visibility preference for a topic changed (kind USER_TOPIC).');
builder.objectFields(UserTopicEventRef, (t) => ({
  channelId: t.field({ type: 'Long', nullable: true, description: 'The channel.', resolve: (p) => num(p.event.wire, 'stream_id') }),
  channel: t.field({ type: ChannelRef, nullable: true, description: 'The channel.', resolve: (p, _a, ctx) => loadChannel(ctx, num(p.event.wire, 'stream_id')) }),
  topic: t.string({ nullable: true, description: 'The topic.', resolve: (p) => str(p.event.wire, 'topic_name') }),
  visibilityPolicy: t.field({
    type: VisibilityPolicyEnum,
    nullable: true,
    description: 'The policy now; null for a value newer than this schema.',
    resolve: (p) => {
      const policy = num(p.event.wire, 'visibility_policy');
      return policy === 0 || policy === 1 || policy === 2 || policy === 3 ? policy : null;
    },
  }),
  lastUpdated: t.field({ type: 'Long', nullable: true, description: 'When it changed (UNIX seconds).', resolve: (p) => num(p.event.wire, 'last_updated') }),
}));
