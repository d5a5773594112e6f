/** Who can see, read or administer a channel, and the audiences of its events. */
import type { RouteContext } from '../../context.js';
import { badRequest, invalidChannelId } from '../../errors.js';
import type { Channel, Store, User } from '../../store.js';

// ---- access ------------------------------------------------------------------------------------

/** Active users who can see that the channel exists (the audience of its `stream` events). */
export function metadataAudience(store: Store, channel: Channel): number[] {
  const ids: number[] = [];
  for (const u of store.users.values()) {
    if (u.is_active && store.canAccessChannelMetadata(u, channel)) ids.push(u.user_id);
  }
  return ids;
}

/** Active non-guest users (who see organization-wide data such as the default channels). */
export function nonGuestUserIds(store: Store): number[] {
  return [...store.users.values()].filter((u) => u.is_active && !store.isGuest(u)).map((u) => u.user_id);
}

/**
 * Content access as Zulip's `user_has_content_access`: besides public (for non-guests),
 * web-public and subscribed, members of can_add_subscribers_group or can_subscribe_group may read
 * a private channel, since they may join it.
 */
export function hasContentAccess(store: Store, user: User, channel: Channel): boolean {
  if (store.canAccessChannelContent(user, channel)) return true;
  if (store.isGuest(user)) return false;
  return (
    store.userHasGroupSetting(user.user_id, channel.can_add_subscribers_group) ||
    store.userHasGroupSetting(user.user_id, channel.can_subscribe_group)
  );
}

/** Administrators administer every channel they can see; guests never administer one. */
export function canAdminister(store: Store, user: User, channel: Channel): boolean {
  return !store.isGuest(user) && store.canAdministerChannel(user, channel);
}

/** A channel the caller can see, or BAD_REQUEST "Invalid channel ID" (also for unknown IDs). */
export function accessChannel(ctx: RouteContext, streamId: number, need: 'metadata' | 'content'): Channel {
  const channel = ctx.store.channels.get(streamId);
  if (!channel) throw invalidChannelId();
  const ok =
    need === 'content'
      ? hasContentAccess(ctx.store, ctx.user, channel)
      : ctx.store.canAccessChannelMetadata(ctx.user, channel);
  if (!ok) throw invalidChannelId();
  return channel;
}

/** Zulip's `access_stream_for_delete_or_update_requiring_metadata_access`. */
export function accessChannelForUpdate(ctx: RouteContext, streamId: number): Channel {
  const channel = accessChannel(ctx, streamId, 'metadata');
  if (!canAdminister(ctx.store, ctx.user, channel)) {
    throw badRequest('You do not have permission to administer this channel.');
  }
  return channel;
}
