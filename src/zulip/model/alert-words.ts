/**
 * Wire types for alert words (https://zulip.com/api/get-alert-words): words or phrases that
 * notify the user like a mention. Zulip matches them case-insensitively.
 */

/** The success body of every alert-words endpoint: the caller's alert words after the call. */
export interface AlertWordsResult {
  alert_words: string[];
}
