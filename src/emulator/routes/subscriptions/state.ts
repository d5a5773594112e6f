/** The `subscription` part of the register state (subscriptions, unsubscribed, never_subscribed). */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { Subscription as WireSubscription } from '../../../zulip/model/subscriptions.js';
import type { StateContext } from '../../context.js';
import { serializer } from '../channels/index.js';
import { activeSubscriberIds, byName, formerSubscription, serializeSubscription, type SubscriptionSerializeOptions } from './wire.js';

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
    // TODO(server-10): archivedChannelEdits (362); drop the older branch once every supported server has it.
    } else if (!channel.is_archived || ctx.settings.featureLevel >= featureLevels.archivedChannelEdits) {
      const entry: Record<string, unknown> = { ...s.channel(channel) };
      if (options.includeSubscribers) entry.subscribers = activeSubscriberIds(store, channel.stream_id);
      neverSubscribed.push(entry);
    }
  }
  return { subscriptions, unsubscribed, never_subscribed: neverSubscribed };
}
