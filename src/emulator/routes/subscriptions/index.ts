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
import type { Route } from '../../context.js';
import { badRequest } from '../../errors.js';
import { accessChannel, serializer } from '../channels/index.js';
import { updateProperties, updateProperty } from './properties.js';
import { subscribeHandler } from './subscribe.js';
import { unsubscribeHandler } from './unsubscribe.js';
import { updateSubscriptionsHandler } from './update.js';
import { activeSubscriberIds, byName, serializeSubscription } from './wire.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';

export { initialState } from './state.js';
export { activeSubscriberIds, serializeSubscription, type SubscriptionSerializeOptions } from './wire.js';

export const routes: Route[] = [
  {
    operation: ops.getSubscriptions,
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
  { operation: ops.subscribe, handler: subscribeHandler },
  { operation: ops.unsubscribe, handler: unsubscribeHandler },
  { operation: ops.updateSubscriptions, handler: updateSubscriptionsHandler },
  { operation: ops.updateSubscriptionSettings, handler: updateProperties },
  { operation: ops.updateSubscriptionProperty, handler: updateProperty },
  {
    operation: ops.getSubscribers,
    handler: (ctx) => {
      const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata');
      return { subscribers: activeSubscriberIds(ctx.store, channel.stream_id) };
    },
  },
  {
    operation: ops.getSubscriptionStatus,
    handler: (ctx) => {
      const target = ctx.store.userById(ctx.pathInt('user_id'));
      if (!target) throw badRequest('No such user');
      const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata');
      return { is_subscribed: ctx.store.isSubscribed(target.user_id, channel.stream_id) };
    },
  },
  {
    operation: ops.getUserChannels,
    handler: (ctx) => {
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
