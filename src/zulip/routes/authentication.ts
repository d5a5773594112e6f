/**
 * Login: an API key for a username and password. The endpoint takes no credentials: pass an
 * anonymous connection. The password is a body parameter, so it never appears in a URL, and the
 * connection's errors never carry a request body.
 */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as authentication from '../generated/authentication.js';
import type { FetchApiKeyParams, JwtFetchApiKeyParams } from '../generated/authentication.js';
import type { ApiKeyOnlyResult, ApiKeyResult } from '../model/authentication.js';

/**
 * The API key of the account with this username (usually its email) and password; 401
 * AUTHENTICATION_FAILED "Your username or password is incorrect" otherwise.
 * https://zulip.com/api/fetch-api-key
 */
export const fetchApiKey = (c: ZulipConnection, p: FetchApiKeyParams, call?: SendOptions): Promise<SendResult<ApiKeyResult>> =>
  authentication.fetchApiKey(c, p, call);

/**
 * The API key of the account a JSON Web Token names (its `email` claim), signed with the key the
 * server holds for the organization; 401 AUTHENTICATION_FAILED for an unknown account. Feature
 * level 160. The token is a body parameter, like the password. https://zulip.com/api/jwt-fetch-api-key
 */
export const jwtFetchApiKey = (c: ZulipConnection, p: JwtFetchApiKeyParams, call?: SendOptions): Promise<SendResult<ApiKeyResult>> =>
  authentication.jwtFetchApiKey(c, p, call);

/**
 * Replaces the caller's API key with a new one (humans only) and answers it: the old key stops
 * working at once. https://zulip.com/api/regenerate-api-key
 */
export const regenerateApiKey = (c: ZulipConnection, call?: SendOptions): Promise<SendResult<ApiKeyOnlyResult>> =>
  authentication.regenerateApiKey(c, {}, call);
