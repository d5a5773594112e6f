/**
 * Channel subscriptions: `GET/POST/DELETE /users/me/subscriptions`
 * (https://zulip.com/api/get-subscriptions, https://zulip.com/api/subscribe,
 * https://zulip.com/api/unsubscribe), `POST /users/me/subscriptions/properties`
 * (https://zulip.com/api/update-subscription-settings), `GET /streams/{id}/members`
 * (https://zulip.com/api/get-subscribers), `GET /users/{user_id}/subscriptions/{stream_id}`
 * (https://zulip.com/api/get-subscription-status), `PATCH /users/me/subscriptions`
 * (https://zulip.com/api/update-subscriptions), `GET /users/{user_id}/channels`
 * (https://zulip.com/api/get-user-channels), and the `subscription` register state
 * (subscriptions, unsubscribed, never_subscribed).
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { Route } from '../../context.js';
import { badRequest, requireFeatureLevel } from '../../errors.js';
import { accessChannel, serializer } from '../channels/index.js';
import { updateProperties, updateProperty } from './properties.js';
import { subscribeHandler } from './subscribe.js';
import { unsubscribeHandler } from './unsubscribe.js';
import { updateSubscriptionsHandler } from './update.js';
import { activeSubscriberIds, byName, serializeSubscription } from './wire.js';

export { initialState } from './state.js';
export { activeSubscriberIds, serializeSubscription, type SubscriptionSerializeOptions } from './wire.js';

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
  { method: 'PATCH', path: '/users/me/subscriptions', handler: updateSubscriptionsHandler },
  { method: 'POST', path: '/users/me/subscriptions/properties', handler: updateProperties },
  { method: 'PATCH', path: '/users/me/subscriptions/:stream_id', handler: updateProperty },
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
  {
    method: 'GET',
    path: '/users/:user_id/channels',
    handler: (ctx) => {
      requireFeatureLevel(ctx.settings, featureLevels.userChannels);
      const target = ctx.store.userById(ctx.pathInt('user_id'));
      if (!target) throw badRequest('No such user');
      // Only the channels whose subscribers the caller may see: those they have metadata access to.
      const subscribed_channel_ids = ctx.store
        .subscribedChannelIds(target.user_id)
        .filter((id) => ctx.store.canAccessChannelMetadata(ctx.user, ctx.store.channels.get(id)!))
        .sort((a, b) => a - b);
      return { subscribed_channel_ids };
    },
  },
];
