/** Who may join a channel, add others to it or remove them. */
import type { Channel, Store, User } from '../../store.js';
import { canAdminister } from '../channels/index.js';

// ---- permissions ---------------------------------------------------------------------------------

/** Whether the user may join the channel themself (Zulip's filter_stream_authorization_for_adding_subscribers). */
export function canSubscribeSelf(store: Store, user: User, channel: Channel): boolean {
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
export function canAddSubscribers(store: Store, user: User, channel: Channel): boolean {
  if (store.isGuest(user)) return false;
  return (
    store.userHasGroupSetting(user.user_id, store.systemGroupId('role:members')) ||
    store.userHasGroupSetting(user.user_id, channel.can_add_subscribers_group) ||
    canAdminister(store, user, channel)
  );
}

/** Whether the user may unsubscribe others: they see the channel and administer it or hold can_remove_subscribers_group. */
export function canRemoveSubscribers(store: Store, user: User, channel: Channel): boolean {
  if (!store.canAccessChannelMetadata(user, channel)) return false;
  return canAdminister(store, user, channel) || store.userHasGroupSetting(user.user_id, channel.can_remove_subscribers_group);
}
