/**
 * Bindings for bot API keys, over the generated operation table: reading (feature level 463) and
 * regenerating a bot's key, for its owner or an administrator. Keys are secrets: they travel only
 * in response bodies, which the connection never puts into errors or logs.
 */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as ops from '../generated/bots.js';
import type { ApiKeyOnlyResult } from '../model/authentication.js';

/** A bot's API key. https://zulip.com/api/get-bot-api-key */
export const getBotApiKey = (c: ZulipConnection, p: ops.GetBotApiKeyParams, call?: SendOptions): Promise<SendResult<ApiKeyOnlyResult>> =>
  ops.getBotApiKey(c, p, call);

/** Replaces a bot's API key and answers the new one. https://zulip.com/api/regenerate-bot-api-key */
export const regenerateBotApiKey = (c: ZulipConnection, p: ops.RegenerateBotApiKeyParams, call?: SendOptions): Promise<SendResult<ApiKeyOnlyResult>> =>
  ops.regenerateBotApiKey(c, p, call);
