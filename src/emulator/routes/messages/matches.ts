/**
 * `GET /messages/matches_narrow` (https://zulip.com/api/check-messages-match-narrow). As Zulip's
 * messages_in_narrow_backend (zerver/views/message_fetch.py): of the given IDs, the messages the
 * caller received (not those only visible through public history) that match the narrow, keyed
 * by ID, with `match_content` / `match_subject` highlighted for a search narrow.
 */
import type { RouteContext } from '../../context.js';
import { checkIntArray } from '../../http.js';
import { escapeHtml } from '../../markdown.js';
import { compileNarrow, highlightMatches, parseNarrow, searchKeywords, validateNarrow } from '../../narrow/index.js';
import { displayTopic } from './wire.js';

export function checkMessagesMatchNarrow(ctx: RouteContext): Record<string, unknown> {
  const { store, user, params } = ctx;
  const ids = checkIntArray('msg_ids', params.json('msg_ids'));
  const narrow = parseNarrow(params.json('narrow'));
  validateNarrow(store, user, narrow);
  const matches = compileNarrow(store, user, narrow);
  const keywords = searchKeywords(narrow);
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  for (const id of new Set(ids)) {
    const m = store.messages.get(id);
    if (!m || !store.receivedMessage(user.user_id, m) || !store.canSeeMessage(user, m) || !matches(m)) continue;
    const topic = displayTopic(store, m.topic, false);
    messages[String(id)] =
      keywords.length > 0 ? highlightMatches(store.memo, m.rendered_content, topic, keywords) : { match_content: m.rendered_content, match_subject: escapeHtml(topic) };
  }
  return { messages };
}
