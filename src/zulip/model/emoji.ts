/** Wire types of custom emoji (https://zulip.com/api/get-custom-emoji). */

/** One custom emoji of the organization. */
export interface RealmEmoji {
  /** The ID, a decimal string (the same as the key it is listed under). */
  id: string;
  name: string;
  /** Path of the image relative to the organization URL. */
  source_url: string;
  /** A still frame of an animated image; null otherwise (feature level 113; absent before 97). */
  still_url?: string | null;
  deactivated: boolean;
  /** Who uploaded it; null when unknown. */
  author_id?: number | null;
}

export interface GetCustomEmojiResult {
  /** Every custom emoji, deactivated ones included, by ID. */
  emoji: Record<string, RealmEmoji>;
}
