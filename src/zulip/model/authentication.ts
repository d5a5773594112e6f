/** Wire types of the login endpoints (https://zulip.com/api/fetch-api-key). */

/** An API key and whose it is. */
export interface ApiKeyResult {
  api_key: string;
  email: string;
  /** New in feature level 171. */
  user_id?: number;
}
