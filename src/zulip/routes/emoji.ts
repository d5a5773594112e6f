/** Bindings for custom emoji. */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as emoji from '../generated/emoji.js';
import type { GetCustomEmojiResult } from '../model/emoji.js';
import { callOperation } from '../operation.js';

/**
 * Every custom emoji of the organization, deactivated ones included, by ID.
 * https://zulip.com/api/get-custom-emoji
 */
export const getCustomEmoji = (c: ZulipConnection, call?: SendOptions): Promise<SendResult<GetCustomEmojiResult>> =>
  callOperation(c, emoji.getCustomEmoji, {}, call);
