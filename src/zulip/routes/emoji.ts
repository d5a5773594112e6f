/** Bindings for custom emoji. */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as emoji from '../generated/emoji.js';
import type { GetCustomEmojiResult } from '../model/emoji.js';
import type { DeactivateCustomEmojiParams } from '../generated/emoji.js';
import type { FilePart } from '../multipart.js';

/**
 * Every custom emoji of the organization, deactivated ones included, by ID.
 * https://zulip.com/api/get-custom-emoji
 */
export const getCustomEmoji = (c: ZulipConnection, call?: SendOptions): Promise<SendResult<GetCustomEmojiResult>> =>
  emoji.getCustomEmoji(c, {}, call);

/**
 * Adds a custom emoji named `emojiName` from one image file, streamed like an upload; Zulip refuses
 * one over its `MAX_EMOJI_FILE_SIZE_MIB` (5 MiB by default). https://zulip.com/api/upload-custom-emoji
 */
export const uploadCustomEmoji = (c: ZulipConnection, emojiName: string, file: FilePart, call?: SendOptions): Promise<SendResult<Record<string, never>>> =>
  emoji.uploadCustomEmoji(c, { emojiName }, file, call);

/**
 * Deactivates a custom emoji (old messages still show it): an administrator, or its author.
 * https://zulip.com/api/deactivate-custom-emoji
 */
export const deactivateCustomEmoji = (c: ZulipConnection, p: DeactivateCustomEmojiParams, call?: SendOptions): Promise<SendResult<Record<string, never>>> =>
  emoji.deactivateCustomEmoji(c, p, call);
