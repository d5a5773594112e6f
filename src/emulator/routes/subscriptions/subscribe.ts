/** `POST /users/me/subscriptions` (https://zulip.com/api/subscribe), creating the channels it names. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { subscribe as addSubscription } from '../../factory.js';
import type { Channel, Subscription, User } from '../../store.js';
import {
  checkChannelName,
  checkDescription,
  metadataAudience,
  checkNewChannelOptions,
  newChannel,
  readNewChannelOptions,
  notifyDefaultStreams,
} from '../channels/index.js';
import { canAddSubscribers, canSubscribeSelf } from './permissions.js';
import { COLOR, push, readPrincipals, usableChannel } from './principals.js';
import { notifySubscribed } from './notify.js';
import { formerSubscription } from './wire.js';

// ---- POST /users/me/subscriptions -----------------------------------------------------------------

interface SubscriptionRequest {
  name: string;
  description?: string;
  color?: string;
}

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


export function subscribeHandler(ctx: RouteContext) {
  const { store, user, settings, params } = ctx;
  if (store.isGuest(user)) throw badRequest('Not allowed for guest users');
  const requests = readSubscriptionRequests(ctx);
  const principals = readPrincipals(ctx);
  const fatal = params.bool('authorization_errors_fatal', true);
  params.bool('announce', false); // accepted; the emulator has no notification bot
  const options = readNewChannelOptions(ctx);
  const { isDefault } = options;
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
  if (toCreate.length > 0) checkNewChannelOptions(ctx, options);
  const unauthorized = existing.filter((c) => usableChannel(ctx, c) === undefined || !canSubscribeSelf(store, user, c));
  if (unauthorized.length > 0 && fatal) throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  const authorized = existing.filter((c) => !unauthorized.includes(c));
  if (subscribingOthers && authorized.some((c) => !canAddSubscribers(store, user, c))) throw badRequest('Insufficient permission');

  // Everything is valid: create, subscribe, then tell everyone concerned.
  const before = new Map(authorized.map((c) => [c.stream_id, new Set(metadataAudience(store, c))]));
  const created = toCreate.map((request) => newChannel(ctx, request, options));
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

  // TODO(server-10): subscribeResultUserIds (289); drop the older branch once every supported server has it.
  const key = (u: User) => (settings.featureLevel >= featureLevels.subscribeResultUserIds ? String(u.user_id) : u.email);
  const names = (m: Map<User, Channel[]>) => Object.fromEntries([...m].map(([u, cs]) => [key(u), cs.map((c) => c.name)]));
  const body: Record<string, unknown> = { subscribed: names(subscribed), already_subscribed: names(already) };
  if (!fatal) body.unauthorized = unauthorized.map((c) => c.name);
  return body;
}

