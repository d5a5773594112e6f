/**
 * Channel subscriptions: `GET/POST/DELETE /users/me/subscriptions`
 * (https://zulip.com/api/get-subscriptions, https://zulip.com/api/subscribe,
 * https://zulip.com/api/unsubscribe), `POST /users/me/subscriptions/properties`
 * (https://zulip.com/api/update-subscription-settings), `GET /streams/{id}/members`
 * (https://zulip.com/api/get-subscribers), `GET /users/{user_id}/subscriptions/{stream_id}`
 * (https://zulip.com/api/get-subscription-status), and the `subscription` register state
 * (subscriptions, unsubscribed, never_subscribed).
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { ChannelPermissionSetting } from '../../zulip/model/channels.js';
import type { Subscription as WireSubscription } from '../../zulip/model/subscriptions.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest, streamDoesNotExistByName } from '../errors.js';
import { addChannel, subscribe as addSubscription } from '../factory.js';
import { CHANNEL_PERMISSION_SETTINGS, Role, type Channel, type GroupSettingValue, type Store, type Subscription, type User } from '../store.js';
import {
  accessChannel,
  canAdminister,
  checkCanMakeWebPublic,
  checkChannelName,
  checkDescription,
  type ChannelSerializer,
  metadataAudience,
  notifyAccessChange,
  notifyDefaultStreams,
  parseChannelGroupSetting,
  readRetentionDays,
  serializer,
} from './channels.js';

/** The subscription the user once had to the channel (see {@link Store.formerSubscriptions}). */
function formerSubscription(store: Store, streamId: number, userId: number): Subscription | undefined {
  return store.formerSubscriptions.get(streamId)?.get(userId);
}

// ---- serialization -------------------------------------------------------------------------------

/** Subscriber IDs of active users, sorted. */
export function activeSubscriberIds(store: Store, streamId: number): number[] {
  return store
    .subscriberIds(streamId)
    .filter((id) => store.users.get(id)?.is_active)
    .sort((a, b) => a - b);
}

export interface SubscriptionSerializeOptions {
  /** Add `subscribers` (when the user may see them). */
  includeSubscribers: boolean;
  /**
   * Leave inherited notification settings null (REST always does; register only with the
   * `notification_settings_null` capability, otherwise the user's defaults are filled in).
   */
  nullSettings: boolean;
}

/** A subscription as the API sends it: the channel's fields and the user's settings. */
export function serializeSubscription(
  s: ChannelSerializer,
  store: Store,
  user: User,
  channel: Channel,
  sub: Subscription,
  options: SubscriptionSerializeOptions,
): WireSubscription {
  const inherit = (value: boolean | null, setting: string, fallback: boolean): boolean | null => {
    if (value !== null || options.nullSettings) return value;
    const v = user.settings[setting];
    return typeof v === 'boolean' ? v : fallback;
  };
  const wire: WireSubscription = {
    ...s.channel(channel),
    color: sub.color,
    is_muted: sub.is_muted,
    in_home_view: !sub.is_muted,
    pin_to_top: sub.pin_to_top,
    desktop_notifications: inherit(sub.desktop_notifications, 'enable_stream_desktop_notifications', false),
    email_notifications: inherit(sub.email_notifications, 'enable_stream_email_notifications', false),
    push_notifications: inherit(sub.push_notifications, 'enable_stream_push_notifications', false),
    audible_notifications: inherit(sub.audible_notifications, 'enable_stream_audible_notifications', false),
    wildcard_mentions_notify: inherit(sub.wildcard_mentions_notify, 'wildcard_mentions_notify', true),
  };
  if (options.includeSubscribers && store.canAccessChannelMetadata(user, channel)) {
    wire.subscribers = activeSubscriberIds(store, channel.stream_id);
  }
  return wire;
}

function byName(a: Channel, b: Channel): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

// ---- principals ----------------------------------------------------------------------------------

/**
 * The `principals` parameter: user IDs (feature level 9) or API emails, never mixed. An unknown
 * or deactivated user is 400 BAD_REQUEST since feature level 208, 403 UNAUTHORIZED_PRINCIPAL before.
 * Undefined when absent or empty (the caller acts on themself).
 */
function readPrincipals(ctx: RouteContext): User[] | undefined {
  const raw = ctx.params.optJson<unknown>('principals');
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw badRequest('principals is not a list');
  if (raw.length === 0) return undefined;
  const ints = raw.every((p) => Number.isSafeInteger(p));
  const strings = raw.every((p) => typeof p === 'string');
  if (!ints && !strings) throw badRequest('principals is not a list of user IDs or emails');
  if (ints && ctx.settings.featureLevel < featureLevels.principalIds) throw badRequest('principals[0] is not a string');
  const users = new Map<number, User>();
  for (const p of raw as (number | string)[]) {
    const user = typeof p === 'number' ? ctx.store.userById(p) : ctx.store.userByEmail(p);
    if (!user || !user.is_active) {
      if (ctx.settings.featureLevel < featureLevels.principalsBadRequest) {
        throw new ApiError('UNAUTHORIZED_PRINCIPAL', `User not authorized to execute queries on behalf of '${p}'`, 403, {
          principal: p,
        });
      }
      throw badRequest(user ? 'User is deactivated' : 'No such user');
    }
    users.set(user.user_id, user);
  }
  return [...users.values()];
}

function readStringList(ctx: RouteContext, name: string): string[] {
  const raw = ctx.params.json<unknown>(name);
  if (!Array.isArray(raw)) throw badRequest(`${name} is not a list`);
  raw.forEach((v, i) => {
    if (typeof v !== 'string') throw badRequest(`${name}[${i}] is not a string`);
  });
  return raw as string[];
}

/** Before feature level 362 archived channels' subscriptions cannot change: they count as absent. */
function usableChannel(ctx: RouteContext, channel: Channel | undefined): Channel | undefined {
  if (!channel || (channel.is_archived && ctx.settings.featureLevel < featureLevels.archivedChannelEdits)) return undefined;
  return channel;
}

// ---- permissions ---------------------------------------------------------------------------------

/** Whether the user may join the channel themself (Zulip's filter_stream_authorization_for_adding_subscribers). */
function canSubscribeSelf(store: Store, user: User, channel: Channel): boolean {
  if (store.isSubscribed(user.user_id, channel.stream_id) || channel.is_web_public) return true;
  if (store.isGuest(user)) return false;
  if (!channel.invite_only) return true;
  return (
    store.userHasGroupSetting(user.user_id, channel.can_subscribe_group) ||
    store.userHasGroupSetting(user.user_id, channel.can_add_subscribers_group)
  );
}

/**
 * Whether the user may add others: the organization's can_add_subscribers_group (Zulip's default,
 * role:members, which the emulator's realm does not override), the channel's, or administering it.
 */
function canAddSubscribers(store: Store, user: User, channel: Channel): boolean {
  if (store.isGuest(user)) return false;
  return (
    store.userHasGroupSetting(user.user_id, store.systemGroupId('role:members')) ||
    store.userHasGroupSetting(user.user_id, channel.can_add_subscribers_group) ||
    canAdminister(store, user, channel)
  );
}

/** Whether the user may unsubscribe others: they see the channel and administer it or hold can_remove_subscribers_group. */
function canRemoveSubscribers(store: Store, user: User, channel: Channel): boolean {
  if (!store.canAccessChannelMetadata(user, channel)) return false;
  return canAdminister(store, user, channel) || store.userHasGroupSetting(user.user_id, channel.can_remove_subscribers_group);
}

// ---- POST /users/me/subscriptions -----------------------------------------------------------------

interface SubscriptionRequest {
  name: string;
  description?: string;
  color?: string;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

function readSubscriptionRequests(ctx: RouteContext): SubscriptionRequest[] {
  const raw = ctx.params.json<unknown>('subscriptions');
  if (!Array.isArray(raw)) throw badRequest('subscriptions is not a list');
  return raw.map((entry: unknown, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`subscriptions[${i}] is not a dict`);
    const { name, description, color, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw badRequest(`subscriptions[${i}] has an unexpected key: ${extra}`);
    if (typeof name !== 'string') throw badRequest(`subscriptions[${i}]["name"] is not a string`);
    const request: SubscriptionRequest = { name: checkChannelName(ctx.settings, name.trim()) };
    if (description !== undefined && description !== null) {
      if (typeof description !== 'string') throw badRequest(`subscriptions[${i}]["description"] is not a string`);
      request.description = checkDescription(ctx.settings, 'description', description);
    }
    if (color !== undefined && color !== null) {
      if (typeof color !== 'string' || !COLOR.test(color)) throw badRequest('add.color is not a valid hex color code');
      request.color = color;
    }
    return request;
  });
}

function readGroupValues(ctx: RouteContext): Partial<Record<ChannelPermissionSetting, GroupSettingValue>> {
  const values: Partial<Record<ChannelPermissionSetting, GroupSettingValue>> = {};
  for (const setting of CHANNEL_PERMISSION_SETTINGS) {
    const raw = ctx.params.optJson<unknown>(setting);
    if (raw !== undefined && raw !== null) values[setting] = parseChannelGroupSetting(ctx.store, setting, raw);
  }
  return values;
}

function subscribeHandler(ctx: RouteContext) {
  const { store, user, settings, params } = ctx;
  if (store.isGuest(user)) throw badRequest('Not allowed for guest users');
  const requests = readSubscriptionRequests(ctx);
  const principals = readPrincipals(ctx);
  const fatal = params.bool('authorization_errors_fatal', true);
  params.bool('announce', false); // accepted; the emulator has no notification bot
  const inviteOnly = params.bool('invite_only', false);
  const isWebPublic = params.bool('is_web_public', false);
  const isDefault = params.bool('is_default_stream', false);
  const history = params.optBool('history_public_to_subscribers');
  const retention = readRetentionDays(params) ?? null;
  const groups = readGroupValues(ctx);
  const subscribingOthers = principals !== undefined && principals.some((p) => p.user_id !== user.user_id);
  const targets = subscribingOthers ? principals : [user];

  // Existing channels and the ones to create (first mention of a name wins).
  const existing: Channel[] = [];
  const toCreate: SubscriptionRequest[] = [];
  const seen = new Set<string>();
  const colors = new Map<string, string>();
  for (const request of requests) {
    const key = request.name.toLowerCase();
    if (request.color) colors.set(key, request.color);
    if (seen.has(key)) continue;
    seen.add(key);
    const channel = store.channelByName(request.name);
    if (!channel) toCreate.push(request);
    else existing.push(channel);
  }
  if (toCreate.length > 0) {
    if (inviteOnly && isWebPublic) throw badRequest('Invalid parameters');
    if (isDefault && !store.isAdmin(user)) throw badRequest('Insufficient permission');
    if (inviteOnly && isDefault) throw badRequest('A default channel cannot be private.');
    if (isWebPublic) checkCanMakeWebPublic(store, user);
    if (retention !== null && user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
  }
  const unauthorized = existing.filter((c) => usableChannel(ctx, c) === undefined || !canSubscribeSelf(store, user, c));
  if (unauthorized.length > 0 && fatal) throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  const authorized = existing.filter((c) => !unauthorized.includes(c));
  if (subscribingOthers && authorized.some((c) => !canAddSubscribers(store, user, c))) throw badRequest('Insufficient permission');

  // Everything is valid: create, subscribe, then tell everyone concerned.
  const before = new Map(authorized.map((c) => [c.stream_id, new Set(metadataAudience(store, c))]));
  const created = toCreate.map((request) => createChannel(ctx, request, { inviteOnly, isWebPublic, history, retention, groups }));
  for (const c of created) before.set(c.stream_id, new Set());
  if (isDefault && created.length > 0) {
    for (const c of created) store.defaultChannelIds.add(c.stream_id);
  }
  const subscribed = new Map<User, Channel[]>();
  const already = new Map<User, Channel[]>();
  const altered = new Map<number, Set<number>>();
  for (const target of targets) {
    for (const channel of [...authorized, ...created]) {
      if (store.isSubscribed(target.user_id, channel.stream_id)) {
        push(already, target, channel);
        continue;
      }
      const former = formerSubscription(store, channel.stream_id, target.user_id);
      store.formerSubscriptions.get(channel.stream_id)?.delete(target.user_id);
      const { subscribed_after_message_id: _, ...restored } = former ?? ({} as Partial<Subscription>);
      const color = colors.get(channel.name.toLowerCase()) ?? restored.color;
      addSubscription(store, channel.stream_id, target.user_id, { ...restored, ...(color ? { color } : {}) });
      push(subscribed, target, channel);
      let set = altered.get(channel.stream_id);
      if (!set) altered.set(channel.stream_id, (set = new Set()));
      set.add(target.user_id);
    }
  }
  if (isDefault && created.length > 0) notifyDefaultStreams(ctx);
  notifySubscribed(ctx, subscribed, altered, before);

  const key = (u: User) => (settings.featureLevel >= featureLevels.subscribeResultUserIds ? String(u.user_id) : u.email);
  const names = (m: Map<User, Channel[]>) => Object.fromEntries([...m].map(([u, cs]) => [key(u), cs.map((c) => c.name)]));
  const body: Record<string, unknown> = { subscribed: names(subscribed), already_subscribed: names(already) };
  if (!fatal) body.unauthorized = unauthorized.map((c) => c.name);
  return body;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

interface CreateOptions {
  inviteOnly: boolean;
  isWebPublic: boolean;
  history: boolean | undefined;
  retention: number | null;
  groups: Partial<Record<ChannelPermissionSetting, GroupSettingValue>>;
}

/** A channel created by subscribing to a name that does not exist, with Zulip's defaults. */
function createChannel(ctx: RouteContext, request: SubscriptionRequest, o: CreateOptions): Channel {
  const { store, user } = ctx;
  const nobody = store.systemGroupId('role:nobody');
  return addChannel(
    store,
    {
      name: request.name,
      description: request.description ?? '',
      date_created: ctx.nowSeconds(),
      creator_id: user.user_id,
      invite_only: o.inviteOnly,
      is_web_public: o.isWebPublic,
      // Public channels always share their history; private ones protect it unless asked.
      history_public_to_subscribers: o.inviteOnly ? (o.history ?? false) : true,
      message_retention_days: o.retention,
      can_add_subscribers_group: o.groups.can_add_subscribers_group ?? nobody,
      can_remove_subscribers_group: o.groups.can_remove_subscribers_group ?? store.systemGroupId('role:administrators'),
      // By default the creator administers the channel.
      can_administer_channel_group: o.groups.can_administer_channel_group ?? { direct_members: [user.user_id], direct_subgroups: [] },
      can_send_message_group: o.groups.can_send_message_group ?? store.systemGroupId('role:everyone'),
      can_subscribe_group: o.groups.can_subscribe_group ?? nobody,
    },
    ctx.clock.now(),
  );
}

/**
 * Events of a subscribe: `stream` create to users who could not see a channel before (all of them
 * for a new channel), `subscription` add to each new subscriber with its full subscription
 * objects, and `peer_add` to the others who can see the channel.
 */
function notifySubscribed(
  ctx: RouteContext,
  subscribed: Map<User, Channel[]>,
  altered: Map<number, Set<number>>,
  before: Map<number, Set<number>>,
): void {
  const { store } = ctx;
  const kept = new Map<number, number[]>();
  for (const [streamId, users] of altered) {
    kept.set(streamId, notifyAccessChange(ctx, store.channels.get(streamId)!, before.get(streamId)!, users));
  }
  const s = serializer(ctx);
  for (const [user, channels] of subscribed) {
    const subscriptions = channels.map((c) =>
      serializeSubscription(s, store, user, c, store.subscription(c.stream_id, user.user_id)!, { includeSubscribers: true, nullSettings: true }),
    );
    ctx.events.notify([user.user_id], { type: 'subscription', op: 'add', subscriptions });
  }
  for (const [streamId, users] of altered) {
    const peers = kept.get(streamId)!.filter((id) => !users.has(id));
    ctx.events.notify(peers, { type: 'subscription', op: 'peer_add', stream_ids: [streamId], user_ids: [...users].sort((a, b) => a - b) });
  }
}

// ---- DELETE /users/me/subscriptions ---------------------------------------------------------------

function unsubscribeHandler(ctx: RouteContext) {
  const { store, user } = ctx;
  const names = readStringList(ctx, 'subscriptions').map((n) => n.trim());
  const principals = readPrincipals(ctx);
  const targets = principals ?? [user];
  // Removing oneself or one's own bot needs no permission; removing anyone else does.
  const removingOthers = targets.some((t) => t.user_id !== user.user_id && !(t.is_bot && t.bot_owner_id === user.user_id));
  const channels: Channel[] = [];
  for (const name of names) {
    checkChannelName(ctx.settings, name);
    const channel = usableChannel(ctx, store.channelByName(name));
    if (!channel) throw streamDoesNotExistByName(name);
    if (!channels.includes(channel)) channels.push(channel);
  }
  if (removingOthers && channels.some((c) => !canRemoveSubscribers(store, user, c))) throw badRequest('Insufficient permission');

  const before = new Map(channels.map((c) => [c.stream_id, new Set(metadataAudience(store, c))]));
  const removed: string[] = [];
  const notRemoved: string[] = [];
  const removedByUser = new Map<number, Channel[]>();
  const altered = new Map<number, Set<number>>();
  for (const target of targets) {
    for (const channel of channels) {
      const sub = store.subscription(channel.stream_id, target.user_id);
      if (!sub) {
        notRemoved.push(channel.name);
        continue;
      }
      store.subscriptions.get(channel.stream_id)!.delete(target.user_id);
      let former = store.formerSubscriptions.get(channel.stream_id);
      if (!former) store.formerSubscriptions.set(channel.stream_id, (former = new Map()));
      former.set(target.user_id, sub);
      removed.push(channel.name);
      push(removedByUser, target.user_id, channel);
      let set = altered.get(channel.stream_id);
      if (!set) altered.set(channel.stream_id, (set = new Set()));
      set.add(target.user_id);
    }
  }
  for (const [userId, list] of removedByUser) {
    ctx.events.notify([userId], {
      type: 'subscription',
      op: 'remove',
      subscriptions: list.map((c) => ({ name: c.name, stream_id: c.stream_id })),
    });
  }
  for (const [streamId, users] of altered) {
    // Users who lost sight of a private channel get `stream` delete.
    const kept = notifyAccessChange(ctx, store.channels.get(streamId)!, before.get(streamId)!);
    const peers = kept.filter((id) => !users.has(id));
    ctx.events.notify(peers, { type: 'subscription', op: 'peer_remove', stream_ids: [streamId], user_ids: [...users].sort((a, b) => a - b) });
  }
  return { removed, not_removed: notRemoved };
}

// ---- POST /users/me/subscriptions/properties -------------------------------------------------------

const BOOLEAN_PROPERTIES = new Set([
  'in_home_view',
  'is_muted',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'pin_to_top',
  'wildcard_mentions_notify',
]);

interface PropertyChange {
  channel: Channel;
  sub: Subscription;
  property: string;
  value: boolean | string;
}

/**
 * Zulip's update_subscription_properties_backend (zerver/views/streams.py): the whole list is parsed
 * first (shapes, properties, values), then applied entry by entry; a channel the caller cannot
 * access or is not subscribed to stops it there, the entries before it staying applied.
 */
function updateProperties(ctx: RouteContext) {
  const raw = ctx.params.json<unknown>('subscription_data');
  if (!Array.isArray(raw)) throw badRequest('subscription_data is not a list');
  const parsed = raw.map((entry: unknown, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`subscription_data[${i}] is not a dict`);
    const { stream_id: streamId, property, value } = entry as Record<string, unknown>;
    if (!Number.isSafeInteger(streamId)) throw badRequest(`subscription_data[${i}]["stream_id"] is not an integer`);
    if (typeof property !== 'string') throw badRequest(`subscription_data[${i}]["property"] is not a string`);
    if (property === 'color') {
      if (typeof value !== 'string' || !COLOR.test(value)) throw badRequest('color is not a valid hex color code');
    } else if (BOOLEAN_PROPERTIES.has(property)) {
      if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
    } else {
      throw badRequest(`Unknown subscription property: ${property}`);
    }
    return { streamId: streamId as number, property, value: value as boolean | string };
  });
  for (const { streamId, property, value } of parsed) {
    const channel = accessChannel(ctx, streamId, 'content');
    const sub = ctx.store.subscription(channel.stream_id, ctx.user.user_id);
    if (!sub) throw badRequest(`Not subscribed to channel ID ${channel.stream_id}`);
    applyProperty(ctx, { channel, sub, property, value });
  }
  return {};
}

function applyProperty(ctx: RouteContext, { channel, sub, property, value }: PropertyChange): void {
  const me = [ctx.user.user_id];
  const update = (p: string, v: unknown) => ctx.events.notify(me, { type: 'subscription', op: 'update', stream_id: channel.stream_id, property: p, value: v });
  if (property === 'is_muted' || property === 'in_home_view') {
    sub.is_muted = property === 'is_muted' ? (value as boolean) : !(value as boolean);
    // Since feature level 139 a mute change is announced twice: legacy in_home_view, then is_muted.
    update('in_home_view', !sub.is_muted);
    update('is_muted', sub.is_muted);
  } else {
    (sub as unknown as Record<string, unknown>)[property] = value;
    update(property, value);
  }
}

// ---- register ----------------------------------------------------------------------------------------

export function initialState(ctx: StateContext): Record<string, unknown> {
  if (!ctx.wants('subscription')) return {};
  const { store, user } = ctx;
  const archived = ctx.options.capabilities.archived_channels === true;
  const options: SubscriptionSerializeOptions = {
    includeSubscribers: ctx.options.includeSubscribers,
    nullSettings: ctx.options.capabilities.notification_settings_null === true,
  };
  const s = serializer(ctx);
  const channels = [...store.channels.values()].sort(byName);
  const subscriptions: WireSubscription[] = [];
  const unsubscribed: WireSubscription[] = [];
  const neverSubscribed: Record<string, unknown>[] = [];
  for (const channel of channels) {
    const sub = store.subscription(channel.stream_id, user.user_id);
    const former = formerSubscription(store, channel.stream_id, user.user_id);
    if (channel.is_archived && !archived) continue;
    if (sub) {
      subscriptions.push(serializeSubscription(s, store, user, channel, sub, options));
    } else if (!store.canAccessChannelMetadata(user, channel)) {
      continue;
    } else if (former) {
      unsubscribed.push(serializeSubscription(s, store, user, channel, former, options));
    } else if (!channel.is_archived || ctx.settings.featureLevel >= featureLevels.archivedChannelEdits) {
      const entry: Record<string, unknown> = { ...s.channel(channel) };
      if (options.includeSubscribers) entry.subscribers = activeSubscriberIds(store, channel.stream_id);
      neverSubscribed.push(entry);
    }
  }
  return { subscriptions, unsubscribed, never_subscribed: neverSubscribed };
}

// ---- routes --------------------------------------------------------------------------------------------

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/users/me/subscriptions',
    handler: (ctx) => {
      const includeSubscribers = ctx.params.bool('include_subscribers', false);
      const s = serializer(ctx);
      const subscriptions = ctx.store
        .subscribedChannelIds(ctx.user.user_id)
        .map((id) => ctx.store.channels.get(id)!)
        .filter((c) => !c.is_archived)
        .sort(byName)
        .map((c) =>
          serializeSubscription(s, ctx.store, ctx.user, c, ctx.store.subscription(c.stream_id, ctx.user.user_id)!, {
            includeSubscribers,
            nullSettings: true,
          }),
        );
      return { subscriptions };
    },
  },
  { method: 'POST', path: '/users/me/subscriptions', handler: subscribeHandler },
  { method: 'DELETE', path: '/users/me/subscriptions', handler: unsubscribeHandler },
  { method: 'POST', path: '/users/me/subscriptions/properties', handler: updateProperties },
  {
    method: 'GET',
    path: '/streams/:stream_id/members',
    handler: (ctx) => {
      const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata');
      return { subscribers: activeSubscriberIds(ctx.store, channel.stream_id) };
    },
  },
  {
    method: 'GET',
    path: '/users/:user_id/subscriptions/:stream_id',
    handler: (ctx) => {
      const target = ctx.store.userById(ctx.pathInt('user_id'));
      if (!target) throw badRequest('No such user');
      const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata');
      return { is_subscribed: ctx.store.isSubscribed(target.user_id, channel.stream_id) };
    },
  },
];
