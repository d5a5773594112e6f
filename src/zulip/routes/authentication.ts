/**
 * Login: an API key for a username and password. The endpoint takes no credentials: pass an
 * anonymous connection. The password is a body parameter, so it never appears in a URL, and the
 * connection's errors never carry a request body.
 */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as authentication from '../generated/authentication.js';
import type { FetchApiKeyParams } from '../generated/authentication.js';
import type { ApiKeyOnlyResult, ApiKeyResult } from '../model/authentication.js';
import { callOperation } from '../operation.js';

/**
 * The API key of the account with this username (usually its email) and password; 401
 * AUTHENTICATION_FAILED "Your username or password is incorrect" otherwise.
 * https://zulip.com/api/fetch-api-key
 */
export const fetchApiKey = (c: ZulipConnection, p: FetchApiKeyParams, call?: SendOptions): Promise<SendResult<ApiKeyResult>> =>
  callOperation(c, authentication.fetchApiKey, p, call);

/**
 * Replaces the caller's API key with a new one (humans only) and answers it: the old key stops
 * working at once. https://zulip.com/api/regenerate-api-key
 */
export const regenerateApiKey = (c: ZulipConnection, call?: SendOptions): Promise<SendResult<ApiKeyOnlyResult>> =>
  callOperation(c, authentication.regenerateApiKey, {}, call);
