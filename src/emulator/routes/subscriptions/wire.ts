/** Subscriptions as the API sends them: the channel's fields and the user's settings. */
import type { Subscription as WireSubscription } from '../../../zulip/model/subscriptions.js';
import type { Channel, Store, Subscription, User } from '../../store.js';
import type { ChannelSerializer } from '../channels/wire.js';

/** The subscription the user once had to the channel (see {@link Store.formerSubscriptions}). */
export function formerSubscription(store: Store, streamId: number, userId: number): Subscription | undefined {
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

export function byName(a: Channel, b: Channel): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
