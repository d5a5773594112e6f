/**
 * Wire types for emoji reactions (https://zulip.com/api/add-reaction), snake_case as sent.
 */

/**
 * Which namespace `emoji_code` belongs to:
 * - `unicode_emoji`: dash-separated hex codepoints (e.g. `1f44d`);
 * - `realm_emoji`: the ID of an uploaded custom emoji;
 * - `service_extra_emoji`: special emoji that come with the server; the code is the name.
 *   Servers before the rename send (and accept) `zulip_extra_emoji` for the same namespace.
 */
export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji' | 'zulip_extra_emoji';

/** One user's reaction to a message, as carried in `Message.reactions`. */
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
  /** New in feature level 2; older servers send only the deprecated `user` object. */
  user_id: number;
  /** @deprecated use `user_id`; `{ id, email, full_name, is_mirror_dummy }`. */
  user?: { id: number; email?: string; full_name?: string; is_mirror_dummy?: boolean };
}
