/**
 * Who may see whom (guests with limited access, can_access_all_users_group; Zulip's
 * check_can_access_user) and the wire form of a user (https://zulip.com/api/get-user#response).
 */
import { createHash } from 'node:crypto';
import type { User as WireUser } from '../../../zulip/model/users.js';
import { Role, type Store, type User } from '../../store.js';

// ---- access and serialization ------------------------------------------------------------------

/** Whether the viewer is exempt from limited user access (non-guests, and guests in can_access_all_users_group). */
export function canAccessAllUsers(store: Store, viewer: User): boolean {
  return !store.isGuest(viewer) || store.userHasGroupSetting(viewer.user_id, store.realm.settings.can_access_all_users_group);
}

/**
 * The users a viewer may access, or null for "everyone". A guest with limited access sees
 * themselves, bots, active users sharing a channel subscription, and people they exchanged direct
 * messages with (Zulip's check_can_access_user).
 */
export function accessibleUserIds(store: Store, viewer: User): Set<number> | null {
  if (canAccessAllUsers(store, viewer)) return null;
  const ids = new Set<number>([viewer.user_id]);
  for (const u of store.users.values()) if (u.is_bot) ids.add(u.user_id);
  for (const subscribers of store.subscriptions.values()) {
    if (!subscribers.has(viewer.user_id)) continue;
    for (const id of subscribers.keys()) if (store.users.get(id)?.is_active) ids.add(id);
  }
  for (const message of store.messages.values()) {
    if (message.type === 'private' && message.dm_user_ids!.includes(viewer.user_id)) {
      for (const id of message.dm_user_ids!) ids.add(id);
    }
  }
  return ids;
}

export function canAccessUser(store: Store, viewer: User, target: User): boolean {
  const ids = accessibleUserIds(store, viewer);
  return ids === null || ids.has(target.user_id);
}

/** Active users who can access `target`: the audience of `realm_user` events about it (FL 228). */
export function usersWhoCanAccess(store: Store, target: User): number[] {
  return [...store.users.values()]
    .filter((viewer) => viewer.is_active && canAccessUser(store, viewer, target))
    .map((viewer) => viewer.user_id);
}

/** Hashes cost more than the rest of a serialized message; the store's memo keeps them (bounded). */
function cachedHash(store: Store, algorithm: 'md5' | 'sha1', input: string): string {
  const hashes = store.memo.hashes;
  const key = `${algorithm}:${input}`;
  let hash = hashes.get(key);
  if (hash === undefined) {
    if (hashes.size >= 100_000) hashes.clear();
    hash = createHash(algorithm).update(input).digest('hex');
    hashes.set(key, hash);
  }
  return hash;
}


export interface AvatarOptions {
  baseUrl: string;
  /** The client computes gravatar URLs itself (then gravatar users get null when it sees the real email). */
  clientGravatar: boolean;
  viewer: User;
  medium?: boolean;
}

/** The avatar URL the API reports, or null per the client_gravatar rule. */
export function avatarUrl(store: Store, target: User, options: AvatarOptions): string | null {
  if (target.avatar_source === 'G') {
    if (options.clientGravatar && store.canSeeRealEmail(options.viewer, target)) return null;
    const size = options.medium ? '&s=500' : '';
    return `https://secure.gravatar.com/avatar/${cachedHash(store, 'md5', target.delivery_email.toLowerCase())}?d=identicon${size}&version=${target.avatar_version}`;
  }
  const hash = cachedHash(store, 'sha1', `${store.realm.id}:${target.user_id}`);
  return `${options.baseUrl}/user_avatars/${store.realm.id}/${hash}${options.medium ? '-medium' : ''}.png?version=${target.avatar_version}`;
}

/**
 * The level at which user objects stopped carrying `is_billing_admin` (Zulip 10.0, feature level
 * 363: the organization's `can_manage_billing_group` replaced it; https://zulip.com/api/get-users).
 */
export const BILLING_ADMIN_REMOVED = 363;

export interface SerializeOptions {
  baseUrl: string;
  /** The level the emulator claims: the user object's shape follows it. */
  featureLevel: number;
  /** @default true, as the endpoints default it */
  clientGravatar?: boolean;
  /** Add `profile_data` (non-bots only). @default false */
  includeProfileData?: boolean;
}

/** A user object as `GET /users` returns it to `viewer`. */
export function serializeUser(store: Store, viewer: User, target: User, options: SerializeOptions): WireUser {
  const seesEmail = store.canSeeRealEmail(viewer, target);
  const user: WireUser = {
    user_id: target.user_id,
    email: target.email,
    delivery_email: seesEmail ? target.delivery_email : null,
    full_name: target.full_name,
    date_joined: target.date_joined,
    is_active: target.is_active,
    is_owner: target.role === Role.OWNER,
    is_admin: target.role <= Role.ADMINISTRATOR,
    is_guest: target.role === Role.GUEST,
    ...(options.featureLevel < BILLING_ADMIN_REMOVED && { is_billing_admin: target.is_billing_admin }),
    is_bot: target.is_bot,
    bot_type: target.is_bot ? (target.bot_type as WireUser['bot_type']) : null,
    role: target.role as WireUser['role'],
    timezone: target.timezone,
    avatar_url: avatarUrl(store, target, { baseUrl: options.baseUrl, clientGravatar: options.clientGravatar ?? true, viewer }),
    avatar_version: target.avatar_version,
  };
  if (target.is_bot) user.bot_owner_id = target.bot_owner_id;
  else if (options.includeProfileData) user.profile_data = structuredClone(target.profile_data);
  return user;
}

/** What a guest without access to a user is shown in place of that user (register without user_list_incomplete). */
export function unknownUser(store: Store, userId: number, baseUrl: string, featureLevel: number): WireUser {
  return {
    user_id: userId,
    email: store.placeholderEmail(userId),
    delivery_email: null,
    full_name: 'Unknown user',
    date_joined: new Date(store.realm.date_created * 1000).toISOString(),
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    ...(featureLevel < BILLING_ADMIN_REMOVED && { is_billing_admin: false }),
    is_bot: false,
    bot_type: null,
    role: Role.MEMBER,
    timezone: '',
    avatar_url: `${baseUrl}/static/images/unknown-user-avatar.png`,
    avatar_version: 1,
    profile_data: {},
  };
}
