/**
 * Wire types for users (https://zulip.com/api/get-users), snake_case as sent.
 */

/** Role values: 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest. */
export type UserRole = 100 | 200 | 300 | 400 | 600;

/** Bot types: 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded. */
export type BotType = 1 | 2 | 3 | 4;

/** One custom profile field value, keyed by the field ID (as text) in `profile_data`. */
export interface ProfileFieldValue {
  value: string;
  /** Only for Markdown-capable fields. */
  rendered_value?: string;
}

export interface User {
  user_id: number;
  /** Real email; null when the requester cannot see it. Always the real email for bots. */
  delivery_email: string | null;
  /** API email; may be a placeholder (`user{id}@{host}`) usable only with the API. */
  email: string;
  full_name: string;
  /** ISO 8601. */
  date_joined: string;
  is_active: boolean;
  /** If true, is_admin is also true. Prefer `role`, which is the only one events update. */
  is_owner: boolean;
  is_admin: boolean;
  is_guest: boolean;
  is_billing_admin?: boolean;
  is_bot: boolean;
  bot_type: BotType | null;
  /** For bots; null for legacy bots without an owner. Absent for humans on some servers. */
  bot_owner_id?: number | null;
  role: UserRole;
  /** IANA identifier (may be empty when unset). */
  timezone: string;
  /**
   * Null when client_gravatar was true, the requester sees the real email and the user never
   * uploaded an avatar; missing at the server's discretion with user_avatar_url_field_optional.
   */
  avatar_url?: string | null;
  avatar_version: number;
  /** Only for non-bots and only when include_custom_profile_fields is true. */
  profile_data?: Record<string, ProfileFieldValue>;
}

/** `GET /users` success body. */
export interface GetUsersResult {
  members: User[];
}

/** `GET /users/{user_id}` and `GET /users/{email}` success body. */
export interface GetUserResult {
  user: User;
}

/** `GET /users/me` success body: the caller's own basic data (no bot_type / bot_owner_id). */
export interface OwnUser {
  user_id: number;
  email: string;
  /** Always the real email for one's own account (since feature level 163). */
  delivery_email?: string;
  full_name: string;
  avatar_url: string;
  avatar_version: number;
  is_admin: boolean;
  is_owner: boolean;
  is_billing_admin?: boolean;
  role: UserRole;
  is_guest: boolean;
  is_bot: boolean;
  is_active: boolean;
  timezone: string;
  date_joined: string;
  /** @deprecated use GET /messages with anchor "newest". */
  max_message_id?: number;
  profile_data?: Record<string, ProfileFieldValue>;
}

/** One entry of the `profile_data` parameter of `PATCH /users/{user_id}`. */
export interface ProfileDataUpdate {
  /** Custom profile field ID. */
  id: number;
  /** New value; an empty string or null clears the field. */
  value: string | null;
}

/** `POST /users` success body: the new account's ID (feature level 30). */
export interface CreateUserResult {
  user_id: number;
}
