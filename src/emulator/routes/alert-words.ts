/**
 * Alert words: `GET`, `POST` and `DELETE /users/me/alert_words`
 * (https://zulip.com/api/get-alert-words and neighbours), the `alert_words` event
 * (https://zulip.com/api/get-events#alert_words) and the `alert_words` register state.
 *
 * As in Zulip (zerver/views/alert_words.py, zerver/lib/alert_words.py): each word is at most 100
 * characters when added (checked before trimming); added words are trimmed and blank ones dropped; a word
 * already present in any case is not added again; removal matches case-insensitively and ignores
 * unknown words. Every endpoint answers with the whole list, oldest first.
 */
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { Store } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's AlertWord.MAX_WORD_LENGTH. */
const MAX_WORD_LENGTH = 100;

export function alertWordsOf(store: Store, userId: number): string[] {
  return [...(store.alertWords.get(userId) ?? [])];
}

/** The `alert_words` parameter: a JSON list of strings (for adding, each within the length limit). */
function readWords(ctx: RouteContext, limit: boolean): string[] {
  const words = ctx.params.json('alert_words');
  if (!Array.isArray(words)) throw badRequest('alert_words is not a list');
  words.forEach((word, i) => {
    if (typeof word !== 'string') throw badRequest(`alert_words[${i}] is not a string`);
    if (limit && word.length > MAX_WORD_LENGTH) throw badRequest(`alert_words[${i}] is too long (limit: ${MAX_WORD_LENGTH} characters)`);
  });
  return words as string[];
}

function store(ctx: RouteContext, words: string[]): Record<string, unknown> {
  ctx.store.alertWords.set(ctx.user.user_id, words);
  ctx.events.notify([ctx.user.user_id], { type: 'alert_words', alert_words: [...words] });
  return { alert_words: [...words] };
}

/** https://zulip.com/api/add-alert-words */
function add(ctx: RouteContext): Record<string, unknown> {
  const current = alertWordsOf(ctx.store, ctx.user.user_id);
  const known = new Set(current.map((w) => w.toLowerCase()));
  // Among the new words, the last spelling of a word wins (Zulip keys them by their lower case).
  const added = new Map<string, string>();
  for (const word of readWords(ctx, true).map((w) => w.trim()).filter((w) => w !== '')) {
    if (!known.has(word.toLowerCase())) added.set(word.toLowerCase(), word);
  }
  return store(ctx, [...current, ...added.values()]);
}

/** https://zulip.com/api/remove-alert-words */
function remove(ctx: RouteContext): Record<string, unknown> {
  const removed = new Set(readWords(ctx, false).map((w) => w.toLowerCase()));
  return store(ctx, alertWordsOf(ctx.store, ctx.user.user_id).filter((w) => !removed.has(w.toLowerCase())));
}

export const routes: Route[] = [
  { operation: ops.getAlertWords, handler: (ctx) => ({ alert_words: alertWordsOf(ctx.store, ctx.user.user_id) }) },
  { operation: ops.addAlertWords, handler: add },
  { operation: ops.removeAlertWords, handler: remove },
];

/** The `alert_words` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('alert_words') ? { alert_words: alertWordsOf(ctx.store, ctx.user.user_id) } : {};
}
