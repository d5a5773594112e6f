/** Wire types of the login endpoints (https://zulip.com/api/fetch-api-key). */

/** An API key and whose it is. */
export interface ApiKeyResult {
  api_key: string;
  email: string;
  /** New in feature level 171. */
  user_id?: number;
}

/**
 * `POST /users/me/api_key/regenerate`, `GET /bots/{bot_id}/api_key` and
 * `POST /bots/{bot_id}/api_key/regenerate` success body: the (new) key, a secret.
 */
export interface ApiKeyOnlyResult {
  api_key: string;
}
