/**
 * `POST /users/me/subscriptions/properties` (https://zulip.com/api/update-subscription-settings) and
 * `PATCH /users/me/subscriptions/{stream_id}` (https://zulip.com/api/update-subscription-property).
 */
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest } from '../../errors.js';
import type { Channel, Subscription } from '../../store.js';
import { accessChannel } from '../channels/index.js';
import { COLOR } from './principals.js';

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
export function updateProperties(ctx: RouteContext) {
  const raw = ctx.params.json<unknown>('subscription_data');
  if (!Array.isArray(raw)) throw badRequest('subscription_data is not a list');
  const parsed = raw.map((entry: unknown, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`subscription_data[${i}] is not a dict`);
    const { stream_id: streamId, property, value } = entry as Record<string, unknown>;
    if (!Number.isSafeInteger(streamId)) throw badRequest(`subscription_data[${i}]["stream_id"] is not an integer`);
    if (typeof property !== 'string') throw badRequest(`subscription_data[${i}]["property"] is not a string`);
    return { streamId: streamId as number, property, value: checkProperty(property, value) };
  });
  applyChanges(ctx, parsed);
  return {};
}

/** Zulip's SubscriptionPropertyChangeRequest validation: a known property and a value of its type. */
function checkProperty(property: string, value: unknown): boolean | string {
  if (property === 'color') {
    if (typeof value !== 'string' || !COLOR.test(value)) throw badRequest('color is not a valid hex color code');
  } else if (BOOLEAN_PROPERTIES.has(property)) {
    if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
  } else {
    throw badRequest(`Unknown subscription property: ${property}`);
  }
  return value;
}

function applyChanges(ctx: RouteContext, changes: { streamId: number; property: string; value: boolean | string }[]): void {
  for (const { streamId, property, value } of changes) {
    const channel = accessChannel(ctx, streamId, 'content');
    const sub = ctx.store.subscription(channel.stream_id, ctx.user.user_id);
    if (!sub) throw badRequest(`Not subscribed to channel ID ${channel.stream_id}`);
    applyProperty(ctx, { channel, sub, property, value });
  }
}

/**
 * `PATCH /users/me/subscriptions/{stream_id}` (https://zulip.com/api/update-subscription-property):
 * one property of one subscription. `value` is read as Zulip's view does (`Json[bool] | str`, left to
 * right): JSON `true`/`false` is a boolean, anything else the text itself.
 */
export function updateProperty(ctx: RouteContext) {
  // Zulip's URL pattern takes digits only: `PATCH .../subscriptions/properties` is the POST-only route.
  if (!/^\d+$/.test(ctx.path.stream_id ?? '')) throw new ApiError('BAD_REQUEST', 'Method Not Allowed', 405);
  const streamId = ctx.pathInt('stream_id');
  const property = ctx.params.str('property');
  const raw = ctx.params.str('value');
  const value = raw === 'true' ? true : raw === 'false' ? false : raw;
  applyChanges(ctx, [{ streamId, property, value: checkProperty(property, value) }]);
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
