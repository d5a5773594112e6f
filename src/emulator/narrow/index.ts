/**
 * Narrows (https://zulip.com/api/construct-narrow): parsing the `narrow` parameter, matching
 * messages against it, and the message search behind `GET /messages` and
 * `POST /messages/flags/narrow` (event queues use the matcher). Zulip's zerver/lib/narrow.py is the model.
 */
export { highlightMatches } from './highlight.js';
export { compileNarrow, keywordPattern, matchesNarrow, narrowChannelId, searchKeywords, type MessagePredicate } from './match.js';
export { topicOperand, validateNarrow } from './operands.js';
export {
  badNarrow,
  LARGER_THAN_MAX_MESSAGE_ID,
  NARROW_OPERATORS,
  parseNarrow,
  RESOLVED_TOPIC_PREFIX,
  type NarrowTerm,
} from './parse.js';
export {
  canAccessChannelHistory,
  fetchWindow,
  firstUnreadId,
  planSearch,
  type SearchPlan,
  type WindowRequest,
  type WindowResult,
} from './search.js';
