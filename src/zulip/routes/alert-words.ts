/**
 * Bindings for the caller's alert words (https://zulip.com/api/get-alert-words and neighbours),
 * over the generated operation table. Each answers with the whole list after the call.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as alertWords from '../generated/alert-words.js';
import type { AddAlertWordsParams, GetAlertWordsParams, RemoveAlertWordsParams } from '../generated/alert-words.js';
import type { AlertWordsResult } from '../model/alert-words.js';

/** https://zulip.com/api/get-alert-words */
export const getAlertWords = (c: ZulipConnection, p: GetAlertWordsParams = {}, call?: SendOptions): Promise<AlertWordsResult> =>
  alertWords.getAlertWords(c, p, call);

/**
 * Adds words (trimmed; blank ones dropped; one already present in another case is kept as it was).
 * A word over 100 characters fails with BAD_REQUEST.
 * https://zulip.com/api/add-alert-words
 */
export const addAlertWords = (c: ZulipConnection, p: AddAlertWordsParams, call?: SendOptions): Promise<AlertWordsResult> =>
  alertWords.addAlertWords(c, p, call);

/**
 * Removes words, matched case-insensitively; unknown words are ignored.
 * https://zulip.com/api/remove-alert-words
 */
export const removeAlertWords = (c: ZulipConnection, p: RemoveAlertWordsParams, call?: SendOptions): Promise<AlertWordsResult> =>
  alertWords.removeAlertWords(c, p, call);
