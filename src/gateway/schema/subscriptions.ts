/**
 * Channel subscriptions (Zulip's `subscriptions` resource; GraphQL subscriptions are in events/):
 * the `ChannelSubscription` type (backed by the wire subscription of `GET /users/me/subscriptions`),
 * `Channel.subscription`, the `subscriptions` query and the `subscribe`, `unsubscribe` and
 * `updateSubscriptionSettings` mutations.
 * https://zulip.com/api/get-subscriptions, https://zulip.com/api/subscribe,
 * https://zulip.com/api/unsubscribe, https://zulip.com/api/update-subscription-settings
 */
import type { Channel, GroupSettingValue } from '../../zulip/model/channels.js';
import type { Subscription, SubscriptionRequest } from '../../zulip/model/subscriptions.js';
import { ZulipErrorCode } from '../../zulip/error-codes.js';
import { ZulipApiError } from '../../zulip/errors.js';
import {
  getSubscribers,
  getSubscriptions,
  getSubscriptionStatus,
  subscribe,
  unsubscribe,
  updateSubscriptionProperty,
  updateSubscriptionSettings,
  type Principals,
  type SubscriptionSettingChange,
} from '../../zulip/routes/subscriptions.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { ArgBuilder } from '@pothos/core';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../feature-level.js';
import { memoKey } from '../loaders/index.js';
import {
  ChannelRef,
  MessageRetentionInput,
  primeChannels,
  toWireRetention,
} from './channels.js';
import { GroupSettingValueInput, loadUsers, toWireGroupSettingValue, type GroupSettingValueInputShape } from './group-settings.js';
import { UserRef } from './users.js';
import { userLookupCost } from '../upstream-cost.js';

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
      zulip: { cost: userLookupCost },
      resolve: (s, _args, ctx) => (s.subscribers ? loadUsers(ctx, s.subscribers) : null),
    }),
  }),
});

builder.objectField(ChannelRef, 'subscription', (t) =>
  t.field({
    // callerSubscriptions: one call per operation, however many channels ask.
    zulip: { reaches: ['get-subscriptions'], cost: { once: { key: 'caller subscriptions', calls: 1 } } },
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
    zulip: { reaches: ['get-subscribers'] },
    type: ['Long'],
    description:
      'IDs of the channel\u2019s active subscribers (one upstream request per channel, shared with `subscribers`). ' +
      'BAD_REQUEST when the caller cannot see the channel.',
    resolve: (c, _args, ctx) => channelSubscriberIds(ctx, c.stream_id),
  }),
  subscribers: t.field({
    zulip: { reaches: ['get-subscribers'] },
    type: [UserRef],
    description: 'The channel\u2019s active subscribers the caller can see, resolved through the user loader.',
    resolve: async (c, _args, ctx) => loadUsers(ctx, await channelSubscriberIds(ctx, c.stream_id)),
  }),
  isSubscribed: t.boolean({
    zulip: { reaches: ['get-subscription-status'] },
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

/** One user's entry of a subscribe result. */
export interface SubscriptionChange {
  key: string;
  channel_names: string[];
}

export const SubscriptionChangeRef = builder.objectRef<SubscriptionChange>('SubscriptionChange').implement({
  description: 'The channels one user was (or already was) subscribed to by a subscribe call.',
  fields: (t) => ({
    userId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The user; null when the server identified users by email (before feature level 289).',
      resolve: (e) => (/^\d+$/.test(e.key) ? Number(e.key) : null),
    }),
    email: t.string({
      nullable: true,
      description: 'The API email of the user, when the server identified users by email (before feature level 289).',
      resolve: (e) => (/^\d+$/.test(e.key) ? null : e.key),
    }),
    user: t.field({
      zulip: { cost: userLookupCost },
      type: UserRef,
      nullable: true,
      description: 'The user, when identified by ID and visible to the caller.',
      resolve: async (e, _args, ctx) => (/^\d+$/.test(e.key) ? ((await loadUsers(ctx, [Number(e.key)]))[0] ?? null) : null),
    }),
    channelNames: t.field({ type: ['String'], description: 'Channel names.', resolve: (e) => e.channel_names }),
  }),
});

/** A subscribe result's map, as SubscriptionChange entries. */
export function changeEntries(m: Record<string, string[]> | undefined): SubscriptionChange[] {
  // Keys are user IDs from feature level 289 and API emails before; SubscriptionChange tells them apart.
  return Object.entries(m ?? {}).map(([key, names]) => ({ key, channel_names: names }));
}

interface SubscribePayload {
  subscribed: SubscriptionChange[];
  already_subscribed: SubscriptionChange[];
  unauthorized: string[];
}

const SubscribePayloadRef = builder.objectRef<SubscribePayload>('SubscribePayload').implement({
  description: 'What a subscribe call did.',
  fields: (t) => ({
    subscribed: t.field({
      type: [SubscriptionChangeRef],
      description: 'Newly subscribed users and their channels.',
      resolve: (p) => p.subscribed,
    }),
    alreadySubscribed: t.field({
      type: [SubscriptionChangeRef],
      description: 'Users who already were subscribed, and to which channels.',
      resolve: (p) => p.already_subscribed,
    }),
    unauthorized: t.field({
      type: ['String'],
      description: 'Channels the caller may not join (only with authorizationErrorsFatal: false).',
      resolve: (p) => p.unauthorized,
    }),
  }),
});

interface UnsubscribePayload {
  removed: string[];
  not_removed: string[];
}

const UnsubscribePayloadRef = builder.objectRef<UnsubscribePayload>('UnsubscribePayload').implement({
  description: 'What an unsubscribe call did.',
  fields: (t) => ({
    removed: t.field({ type: ['String'], description: 'Channels unsubscribed from (one entry per user and channel).', resolve: (p) => p.removed }),
    notRemoved: t.field({
      type: ['String'],
      description: 'Channels a user was not subscribed to (one entry per user and channel).',
      resolve: (p) => p.not_removed,
    }),
  }),
});

/** STREAM_DOES_NOT_EXIST from unsubscribe, as a result the client can act on (the channel name). */
class ChannelDoesNotExistError extends Error {
  static readonly code = ZulipErrorCode.streamDoesNotExist;
  readonly channelName: string;

  constructor(message: string, channelName: string) {
    super(message);
    this.name = 'ChannelDoesNotExistError';
    this.channelName = channelName;
  }

  /** The typed form of an upstream error, or the error itself when it is another one. */
  static from(error: unknown): unknown {
    if (!(error instanceof ZulipApiError) || error.code !== ChannelDoesNotExistError.code) return error;
    const name = error.data.stream;
    return new ChannelDoesNotExistError(error.message, typeof name === 'string' ? name : '');
  }
}

builder.objectType(ChannelDoesNotExistError, {
  name: 'ChannelDoesNotExistError',
  description: 'A channel named in the request does not exist (upstream code STREAM_DOES_NOT_EXIST).',
  fields: (t) => ({
    code: t.string({ description: 'Always STREAM_DOES_NOT_EXIST.', resolve: () => ChannelDoesNotExistError.code }),
    message: t.exposeString('message', { description: 'The server\u2019s explanation, for people.' }),
    channelName: t.exposeString('channelName', { description: 'The name that matched no channel.' }),
  }),
});

// ---- inputs --------------------------------------------------------------------------------------

export interface SubscribeChannelInputShape {
  name: string;
  description?: string | null;
  color?: string | null;
}

export const SubscribeChannelInput = builder.inputRef<SubscribeChannelInputShape>('SubscribeChannelInput').implement({
  description: 'A channel to subscribe to, by name; it is created if it does not exist.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The channel name.' }),
    description: t.string({ required: false, description: 'Description (Markdown) of a channel this call creates.' }),
    color: t.string({ required: false, description: "The subscribers' color for the channel, #rrggbb." }),
  }),
});

interface SubscriptionSettingsInputShape {
  channelId: number;
  color?: string | null;
  isMuted?: boolean | null;
  pinToTop?: boolean | null;
  desktopNotifications?: boolean | null;
  emailNotifications?: boolean | null;
  pushNotifications?: boolean | null;
  audibleNotifications?: boolean | null;
  wildcardMentionsNotify?: boolean | null;
}

/** GraphQL input field → wire property of update-subscription-settings. */
const SETTING_PROPERTIES = [
  ['color', 'color'],
  ['isMuted', 'is_muted'],
  ['pinToTop', 'pin_to_top'],
  ['desktopNotifications', 'desktop_notifications'],
  ['emailNotifications', 'email_notifications'],
  ['pushNotifications', 'push_notifications'],
  ['audibleNotifications', 'audible_notifications'],
  ['wildcardMentionsNotify', 'wildcard_mentions_notify'],
] as const satisfies readonly (readonly [keyof SubscriptionSettingsInputShape, SubscriptionSettingChange['property']])[];

const SubscriptionSettingsInput = builder.inputRef<SubscriptionSettingsInputShape>('SubscriptionSettingsInput').implement({
  description: "New personal settings for one of the caller's subscriptions; only the fields given change.",
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: true, description: 'The channel.' }),
    color: t.string({ required: false, description: 'Color, #rrggbb.' }),
    isMuted: t.boolean({ required: false, description: 'Mute or unmute the channel.' }),
    pinToTop: t.boolean({ required: false, description: 'Pin the channel to the top.' }),
    desktopNotifications: t.boolean({ required: false, description: 'Desktop notifications for every message.' }),
    emailNotifications: t.boolean({ required: false, description: 'Email notifications for every message.' }),
    pushNotifications: t.boolean({ required: false, description: 'Push notifications for every message.' }),
    audibleNotifications: t.boolean({ required: false, description: 'A sound for every message.' }),
    wildcardMentionsNotify: t.boolean({ required: false, description: 'Wildcard mentions notify like personal mentions.' }),
  }),
});

/** `principals` (user IDs, feature level 9) or `principalEmails`, never both; undefined for the caller. */
async function readPrincipals(
  ctx: Context,
  ids: readonly number[] | null | undefined,
  emails: readonly string[] | null | undefined,
): Promise<Principals | undefined> {
  if (ids != null && emails != null) throw badInput('Give principals (user IDs) or principalEmails, not both.');
  if (ids != null) {
    await requireFeatureLevel(ctx, featureLevels.principalIds, 'Naming users by ID in principals');
    return [...ids];
  }
  return emails != null ? [...emails] : undefined;
}

/** The channels to subscribe to, as Zulip's `subscriptions` (or `add`) list takes them. */
export function toSubscriptionRequests(channels: readonly SubscribeChannelInputShape[]): SubscriptionRequest[] {
  return channels.map((c) => ({
    name: c.name,
    ...(c.description != null && { description: c.description }),
    ...(c.color != null && { color: c.color }),
  }));
}

// ---- queries -------------------------------------------------------------------------------------

builder.queryField('subscriptions', (t) =>
  t.field({
    zulip: { reaches: ['get-subscriptions'], cost: { each: 1, size: { directory: 'subscriptions' } }, live: ['Subscriptions'] },
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

// ---- mutations -----------------------------------------------------------------------------------

const GROUP_ARGS = [
  ['canAddSubscribersGroup', featureLevels.canAddSubscribersGroup],
  ['canRemoveSubscribersGroup', 0],
  ['canAdministerChannelGroup', featureLevels.canAdministerChannelGroup],
  ['canSendMessageGroup', featureLevels.canSendMessageGroup],
  ['canSubscribeGroup', featureLevels.canSubscribeGroup],
] as const;

/** The permission arguments of a channel to create, as `GROUP_ARGS` names them. */
export type ChannelGroupArgs = Partial<Record<(typeof GROUP_ARGS)[number][0], GroupSettingValueInputShape | null>>;

/** The permission arguments of channels a mutation creates (subscribe, createChannel). */
export function channelGroupArgs(t: { arg: ArgBuilder<typeof builder.$inferSchemaTypes> }, what: string) {
  return Object.fromEntries(
    GROUP_ARGS.map(([name, level]) => [
      name,
      t.arg({ type: GroupSettingValueInput, required: false, description: `${name} of ${what}${level ? ` (feature level ${level})` : ''}.` }),
    ]),
  ) as Record<(typeof GROUP_ARGS)[number][0], ReturnType<typeof t.arg>>;
}

/** The wire values of the permission arguments given, once the server is new enough for each. */
export async function channelGroupSettings(ctx: Context, a: ChannelGroupArgs): Promise<Record<string, GroupSettingValue>> {
  const groups: Record<string, GroupSettingValue> = {};
  let needed = 0;
  for (const [name, level] of GROUP_ARGS) {
    const input = a[name];
    if (input == null) continue;
    groups[name] = toWireGroupSettingValue(input, name);
    needed = Math.max(needed, level);
  }
  if (needed > 0) await requireFeatureLevel(ctx, needed, 'This channel setting');
  return groups;
}

builder.mutationFields((t) => ({
  subscribe: t.field({
    zulip: { reaches: ['subscribe'], writes: ['subscription'] },
    type: SubscribePayloadRef,
    description:
      'Subscribes users (default: the caller) to channels by name, creating those that do not exist with the ' +
      'settings given. Refusals are GraphQL errors with the server code.',
    args: {
      channels: t.arg({ type: [SubscribeChannelInput], required: true, description: 'The channels.' }),
      principals: t.arg({ type: ['Long'], required: false, description: 'Users to subscribe, by ID (feature level 9).' }),
      principalEmails: t.arg.stringList({ required: false, description: 'Users to subscribe, by API email (older servers).' }),
      authorizationErrorsFatal: t.arg.boolean({
        required: false,
        description: 'Fail on a channel the caller may not join (default true) instead of listing it in unauthorized.',
      }),
      announce: t.arg.boolean({ required: false, description: 'Announce channels this call creates (default false).' }),
      inviteOnly: t.arg.boolean({ required: false, description: 'Create channels private (default false).' }),
      isWebPublic: t.arg.boolean({ required: false, description: 'Create channels web-public (default false).' }),
      isDefault: t.arg.boolean({ required: false, description: 'Make created channels default channels (default false).' }),
      historyPublicToSubscribers: t.arg.boolean({
        required: false,
        description: 'Whether new subscribers of created private channels see older messages.',
      }),
      messageRetentionDays: t.arg({
        type: MessageRetentionInput,
        required: false,
        description: 'Retention of created channels (organization owners only).',
      }),
      ...channelGroupArgs(t, 'channels this call creates'),
    },
    resolve: async (_root, args, ctx) => {
      const a = args as typeof args & ChannelGroupArgs;
      const principals = await readPrincipals(ctx, a.principals, a.principalEmails);
      const groups = await channelGroupSettings(ctx, a);
      const result = await subscribe(ctx.connection, {
        subscriptions: toSubscriptionRequests(a.channels),
        principals,
        authorizationErrorsFatal: a.authorizationErrorsFatal ?? undefined,
        announce: a.announce ?? undefined,
        inviteOnly: a.inviteOnly ?? undefined,
        isWebPublic: a.isWebPublic ?? undefined,
        isDefaultStream: a.isDefault ?? undefined,
        historyPublicToSubscribers: a.historyPublicToSubscribers ?? undefined,
        messageRetentionDays: a.messageRetentionDays ? toWireRetention(a.messageRetentionDays) : undefined,
        ...groups,
      });
      return {
        subscribed: changeEntries(result.subscribed),
        already_subscribed: changeEntries(result.already_subscribed),
        unauthorized: result.unauthorized ?? [],
      };
    },
  }),
  unsubscribe: t.field({
    zulip: { reaches: ['unsubscribe'], writes: ['subscription'] },
    type: UnsubscribePayloadRef,
    errors: {
      types: [ChannelDoesNotExistError],
      directResult: true,
      union: {
        name: 'UnsubscribeResult',
        description: 'What was removed, or the channel name that does not exist.',
      },
    },
    description:
      'Unsubscribes users (default: the caller) from channels by name. Removing others needs administration ' +
      'rights, can_remove_subscribers_group, or owning the bot. An unknown channel is a ChannelDoesNotExistError ' +
      'result; other refusals are GraphQL errors with the server code.',
    args: {
      channelNames: t.arg.stringList({ required: true, description: 'The channels, by name.' }),
      principals: t.arg({ type: ['Long'], required: false, description: 'Users to unsubscribe, by ID (feature level 9).' }),
      principalEmails: t.arg.stringList({ required: false, description: 'Users to unsubscribe, by API email (older servers).' }),
    },
    resolve: async (_root, args, ctx) => {
      const principals = await readPrincipals(ctx, args.principals, args.principalEmails);
      try {
        return await unsubscribe(ctx.connection, { subscriptions: [...args.channelNames], principals });
      } catch (error) {
        throw ChannelDoesNotExistError.from(error);
      }
    },
  }),
  updateSubscriptionProperty: t.field({
    zulip: { reaches: ['update-subscription-property'], writes: ['subscription'] },
    type: SubscriptionRef,
    nullable: true,
    description:
      "Changes exactly one personal setting of one of the caller's subscriptions (else BAD_USER_INPUT, before any " +
      'upstream call), then returns the subscription as it now is (a second upstream request). BAD_REQUEST "Not ' +
      'subscribed to channel ID \u2026" when the caller is not subscribed.',
    args: {
      change: t.arg({ type: SubscriptionSettingsInput, required: true, description: 'The channel and the one setting to change.' }),
    },
    resolve: async (_root, args, ctx) => {
      const given = SETTING_PROPERTIES.filter(([field]) => args.change[field] != null);
      if (given.length !== 1) throw badInput('updateSubscriptionProperty: give exactly one setting.', { argument: 'change' });
      const [field, property] = given[0]!;
      await updateSubscriptionProperty(ctx.connection, { streamId: args.change.channelId, property, value: args.change[field]! });
      const { subscriptions } = await getSubscriptions(ctx.connection);
      return subscriptions.find((s) => s.stream_id === args.change.channelId) ?? null;
    },
  }),
  updateSubscriptionSettings: t.field({
    zulip: { reaches: ['update-subscription-settings'], writes: ['subscription'] },
    type: [SubscriptionRef],
    description:
      "Changes the caller's personal settings of channels they are subscribed to, in one upstream call after one " +
      'read of the subscriptions: a channel the caller is not subscribed to fails with BAD_USER_INPUT before ' +
      'any change (the server would apply the changes before it, then stop). Returns the changed subscriptions.',
    args: {
      changes: t.arg({ type: [SubscriptionSettingsInput], required: true, description: 'The changes, per channel.' }),
    },
    resolve: async (_root, args, ctx) => {
      const subscriptionData: SubscriptionSettingChange[] = [];
      for (const change of args.changes) {
        for (const [field, property] of SETTING_PROPERTIES) {
          const value = change[field];
          if (value != null) subscriptionData.push({ streamId: change.channelId, property, value });
        }
      }
      if (subscriptionData.length === 0) throw badInput('changes: give at least one setting to change.');
      // Zulip applies the list entry by entry and stops at the first channel the caller is not
      // subscribed to (update_subscription_properties_backend): check them all first.
      const { subscriptions } = await getSubscriptions(ctx.connection);
      const byId = new Map(subscriptions.map((s) => [s.stream_id, s]));
      const missing = args.changes.find((c) => !byId.has(c.channelId));
      if (missing) throw badInput(`Not subscribed to channel ID ${missing.channelId}`, { argument: 'changes' });
      await updateSubscriptionSettings(ctx.connection, { subscriptionData });
      // The server took the values as sent: the subscriptions as they now are, without a second read.
      const changed = new Map<number, Subscription>();
      for (const { streamId, property, value } of subscriptionData) {
        const current = changed.get(streamId) ?? { ...byId.get(streamId)! };
        Object.assign(current, { [property]: value }, property === 'is_muted' && 'in_home_view' in current ? { in_home_view: !value } : {});
        changed.set(streamId, current);
      }
      return subscriptions.filter((s) => changed.has(s.stream_id)).map((s) => changed.get(s.stream_id)!);
    },
  }),
}));
