/**
 * Channel subscriptions (Zulip's `subscriptions` resource; GraphQL subscriptions are in events/):
 * the `ChannelSubscription` type (backed by the wire subscription of `GET /users/me/subscriptions`),
 * `Channel.subscription`, the channel's subscriber fields and the `subscriptions` query. Joining and
 * leaving are in membership.ts, the personal settings in settings.ts.
 * https://zulip.com/api/get-subscriptions
 */
import type { Channel } from '../../../zulip/model/channels.js';
import type { Subscription } from '../../../zulip/model/subscriptions.js';
import { getSubscribers, getSubscriptions, getSubscriptionStatus } from '../../../zulip/routes/subscriptions.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { memoKey } from '../../loaders/index.js';
import { ChannelRef, primeChannels } from '../channels/index.js';
import { loadUsers } from '../group-settings.js';
import { UserRef } from '../users.js';
import { upstreamCost, userLookupCost } from '../../upstream/cost.js';
import { reaches } from '../../zulip-operations.js';

// ---- the caller's subscriptions, once per request ------------------------------------------------

const callerSubscriptionsKey = memoKey<Map<number, Subscription>>('caller subscriptions');

/** The caller's subscriptions by channel ID, fetched at most once per request. */
function callerSubscriptions(ctx: Context): Promise<Map<number, Subscription>> {
  return ctx.loaders.memo.get(callerSubscriptionsKey, () =>
    getSubscriptions(ctx.connection).then(({ subscriptions: list }) => new Map(list.map((s) => [s.stream_id, s]))),
  );
}

// ---- types ---------------------------------------------------------------------------------------

export const SubscriptionRef = builder.objectRef<Subscription>('ChannelSubscription').implement({
  description:
    "The caller's subscription to a channel: the channel and the caller's personal settings for it. " +
    'Notification settings are null when they follow the user-level default. https://zulip.com/api/get-subscriptions',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel.', resolve: (s) => s.stream_id }),
    channel: t.field({
      type: ChannelRef,
      description: 'The channel (as the subscription carries it; no extra request).',
      resolve: (s) => s as unknown as Channel,
    }),
    color: t.exposeString('color', { description: "The caller's color for the channel, #rrggbb." }),
    isMuted: t.exposeBoolean('is_muted', {
      description: 'Muted channels do not count toward unread totals and are left out of the combined feed.',
    }),
    inHomeView: t.boolean({
      description: 'The inverse of isMuted.',
      deprecationReason: 'Use isMuted.',
      resolve: (s) => s.in_home_view ?? !s.is_muted,
    }),
    pinToTop: t.exposeBoolean('pin_to_top', { description: 'Whether the channel is pinned to the top of the list.' }),
    desktopNotifications: t.boolean({
      nullable: true,
      description: 'Desktop notifications for every message; null follows the user setting.',
      resolve: (s) => s.desktop_notifications ?? null,
    }),
    emailNotifications: t.boolean({
      nullable: true,
      description: 'Email notifications for every message; null follows the user setting.',
      resolve: (s) => s.email_notifications ?? null,
    }),
    pushNotifications: t.boolean({
      nullable: true,
      description: 'Mobile push notifications for every message; null follows the user setting.',
      resolve: (s) => s.push_notifications ?? null,
    }),
    audibleNotifications: t.boolean({
      nullable: true,
      description: 'A sound for every message; null follows the user setting.',
      resolve: (s) => s.audible_notifications ?? null,
    }),
    wildcardMentionsNotify: t.boolean({
      nullable: true,
      description: 'Whether wildcard mentions notify like personal mentions; null follows the user setting.',
      resolve: (s) => s.wildcard_mentions_notify ?? null,
    }),
    subscriberIds: t.field({
      type: ['Long'],
      nullable: true,
      description: 'IDs of the subscribers; null unless fetched with includeSubscribers.',
      resolve: (s) => s.subscribers ?? null,
    }),
    subscribers: t.field({
      type: [UserRef],
      nullable: true,
      description: 'The subscribers the caller can see; null unless fetched with includeSubscribers.',
      extensions: userLookupCost,
      resolve: (s, _args, ctx) => (s.subscribers ? loadUsers(ctx, s.subscribers) : null),
    }),
  }),
});

builder.objectField(ChannelRef, 'subscription', (t) =>
  t.field({
    // callerSubscriptions: one call per operation, however many channels ask.
    extensions: { ...reaches('get-subscriptions'), ...upstreamCost({ once: { key: 'caller subscriptions', calls: 1 } }) },
    type: SubscriptionRef,
    nullable: true,
    description:
      "The caller's subscription; null when not subscribed. All channels of a request share one upstream request.",
    resolve: async (c, _args, ctx) => {
      // A channel reached through the caller's own subscription is that subscription.
      if ('color' in c && 'is_muted' in c) return c as unknown as Subscription;
      return (await callerSubscriptions(ctx)).get(c.stream_id) ?? null;
    },
  }),
);

/** A channel's subscriber IDs, asked at most once per channel and request. */
const subscriberLists = memoKey<Map<number, Promise<number[]>>>('channel subscribers');

function channelSubscriberIds(ctx: Context, channelId: number): Promise<number[]> {
  return ctx.loaders.memo.getFor(subscriberLists, channelId, async () => (await getSubscribers(ctx.connection, { streamId: channelId })).subscribers);
}

// The live directory keeps no subscriber lists (it registers without include_subscribers, so it
// never holds an exact list for the caller): these fields always ask the server, once per channel.
builder.objectFields(ChannelRef, (t) => ({
  subscriberIds: t.field({
    extensions: reaches('get-subscribers'),
    type: ['Long'],
    description:
      'IDs of the channel\u2019s active subscribers (one upstream request per channel, shared with `subscribers`). ' +
      'BAD_REQUEST when the caller cannot see the channel.',
    resolve: (c, _args, ctx) => channelSubscriberIds(ctx, c.stream_id),
  }),
  subscribers: t.field({
    extensions: reaches('get-subscribers'),
    type: [UserRef],
    description: 'The channel\u2019s active subscribers the caller can see, resolved through the user loader.',
    resolve: async (c, _args, ctx) => loadUsers(ctx, await channelSubscriberIds(ctx, c.stream_id)),
  }),
  isSubscribed: t.boolean({
    extensions: reaches('get-subscription-status'),
    description:
      'Whether a user is subscribed to the channel (feature level 12; one upstream request). BAD_REQUEST for an ' +
      'unknown user or a channel the caller cannot see.',
    args: { userId: t.arg({ type: 'Long', required: true, description: 'The user.' }) },
    resolve: async (c, args, ctx) => {
      if (args.userId <= 0) throw badInput('isSubscribed: userId must be a positive user ID', { argument: 'userId' });
      await requireFeatureLevel(ctx, featureLevels.subscriptionStatus, 'Channel.isSubscribed');
      return (await getSubscriptionStatus(ctx.connection, { userId: args.userId, streamId: c.stream_id })).is_subscribed;
    },
  }),
}));

// ---- queries -------------------------------------------------------------------------------------

builder.queryField('subscriptions', (t) =>
  t.field({
    extensions: { ...reaches('get-subscriptions'), ...upstreamCost({ each: 1, size: { directory: 'subscriptions' } }) },
    type: [SubscriptionRef],
    nullable: true,
    description: "The caller's subscriptions, by channel name. One upstream request.",
    args: {
      includeSubscribers: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: 'Fill in subscriberIds and subscribers (can be slow in large organizations).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { subscriptions } = await getSubscriptions(ctx.connection, { includeSubscribers: args.includeSubscribers || undefined });
      primeChannels(ctx, subscriptions as unknown as Channel[]);
      return subscriptions;
    },
  }),
);
