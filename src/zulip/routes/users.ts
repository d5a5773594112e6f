/** Bindings for users: listing, lookup, creation, administrative update, deactivation and reactivation. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/users.js';
import type { CreateUserResult, GetUserResult, GetUsersResult, OwnUser, ProfileDataUpdate, UserRole } from '../model/users.js';

export interface GetUsersOptions {
  /**
   * Leave `avatar_url` null for users whose avatar is their gravatar, when the caller can see
   * their real email (the client then computes the URL).
   * @default true (server side)
   */
  clientGravatar?: boolean;
  /** Include `profile_data` for non-bot users. @default false (server side) */
  includeCustomProfileFields?: boolean;
  /** `GET /users` only: return just these users (feature level 384; older servers ignore it). */
  userIds?: number[];
}

/**
 * All users in the organization that the caller can access (deactivated ones included).
 * https://zulip.com/api/get-users
 */
export function getUsers(
  connection: ZulipConnection,
  options: GetUsersOptions = {},
  call: SendOptions = {},
): Promise<GetUsersResult> {
  return ops.getUsers(connection, options, call);
}

export interface GetUserOptions extends GetUsersOptions {
  userId: number;
}

/**
 * One user by ID.
 * https://zulip.com/api/get-user
 */
export function getUser(connection: ZulipConnection, options: GetUserOptions, call: SendOptions = {}): Promise<GetUserResult> {
  return ops.getUser(connection, options, call);
}

export interface GetUserByEmailOptions extends GetUsersOptions {
  /**
   * The API email, or (feature level 302) the real address when the caller may see it; the
   * placeholder form `user{id}@{realm host}` always works.
   */
  email: string;
}

/**
 * One user by email address.
 * https://zulip.com/api/get-user-by-email
 */
export function getUserByEmail(
  connection: ZulipConnection,
  options: GetUserByEmailOptions,
  call: SendOptions = {},
): Promise<GetUserResult> {
  return ops.getUserByEmail(connection, options, call);
}

/**
 * The caller's own account.
 * https://zulip.com/api/get-own-user
 */
export function getOwnUser(connection: ZulipConnection, call: SendOptions = {}): Promise<OwnUser> {
  return ops.getOwnUser(connection, {}, call);
}

/** What `PATCH /users/{user_id}` may change; only the fields given are sent. */
export interface UserChanges {
  fullName?: string;
  /** Only owners can add or remove the owner role; the only owner cannot lose it. */
  role?: UserRole;
  /** Custom profile field values to set. */
  profileData?: ProfileDataUpdate[];
  /**
   * New email address (feature level 285); the caller must be an owner holding the
   * can_change_user_emails permission.
   */
  newEmail?: string;
}

export interface UpdateUserOptions extends UserChanges {
  userId: number;
}

/**
 * Administrative update of another user (administrators only).
 * https://zulip.com/api/update-user
 */
export function updateUser(connection: ZulipConnection, options: UpdateUserOptions, call: SendOptions = {}): Promise<object> {
  return ops.updateUser(connection, options, call);
}

export interface UpdateUserByEmailOptions extends UserChanges {
  /** The real address if the caller may see it, else the placeholder form. */
  email: string;
}

/**
 * Administrative update of another user, addressed by email (feature level 313).
 * https://zulip.com/api/update-user-by-email
 */
export function updateUserByEmail(
  connection: ZulipConnection,
  options: UpdateUserByEmailOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.updateUserByEmail(connection, options, call);
}

export interface DeactivateUserOptions {
  userId: number;
  /**
   * When given, the user is emailed about the deactivation; a non-empty text is included in
   * the email (feature level 135). @default no email
   */
  deactivationNotificationComment?: string;
}

/**
 * Deactivates a user (administrators only; never the last owner).
 * https://zulip.com/api/deactivate-user
 */
export function deactivateUser(
  connection: ZulipConnection,
  options: DeactivateUserOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.deactivateUser(connection, options, call);
}

/**
 * Creates an account with a password (the caller needs the `can_create_users` permission; any
 * administrator before feature level 36). The password travels in the body only.
 * https://zulip.com/api/create-user
 */
export const createUser = (c: ZulipConnection, p: ops.CreateUserParams, call?: SendOptions): Promise<CreateUserResult> =>
  ops.createUser(c, p, call);

/**
 * Deactivates the caller's own account; the only owner or the only user cannot
 * (CANNOT_DEACTIVATE_LAST_USER). https://zulip.com/api/deactivate-own-user
 */
export const deactivateOwnUser = (c: ZulipConnection, call?: SendOptions): Promise<object> =>
  ops.deactivateOwnUser(c, {}, call);

/** Reactivates a deactivated user (administrators only). https://zulip.com/api/reactivate-user */
export const reactivateUser = (c: ZulipConnection, p: ops.ReactivateUserParams, call?: SendOptions): Promise<object> =>
  ops.reactivateUser(c, p, call);
