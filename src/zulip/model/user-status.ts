/**
 * Wire types for user status (https://zulip.com/api/get-user-status): a short text and an emoji
 * a user shows beside their name. Only the parts that are set are sent.
 */

/** A user's status; `{}` when none is set. */
export interface UserStatus {
  /** Set and non-empty only. */
  status_text?: string;
  /** With `emoji_code` and `reaction_type`, when an emoji is set. */
  emoji_name?: string;
  emoji_code?: string;
  /** `unicode_emoji`, `realm_emoji` or `zulip_extra_emoji`. */
  reaction_type?: string;
  /** Deprecated (feature level 148): the legacy "away" flag, sent only when true. */
  away?: boolean;
}

/** `GET /users/{user_id}/status` success body. */
export interface GetUserStatusResult {
  status: UserStatus;
}
