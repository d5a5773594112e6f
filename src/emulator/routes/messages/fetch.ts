/**
 * `GET /messages` (https://zulip.com/api/get-messages) and `GET /messages/{id}`
 * (https://zulip.com/api/get-message). `found_oldest` / `found_newest` are exact (the search looks
 * one message beyond the window).
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { type ApiError, badRequest, missingArgument } from '../../errors.js';
import { checkIntArray } from '../../http.js';
import {
  fetchWindow,
  firstUnreadId,
  highlightMatches,
  LARGER_THAN_MAX_MESSAGE_ID,
  parseNarrow,
  planSearch,
  searchKeywords,
  validateNarrow,
} from '../../narrow/index.js';
import type { Message, Store, User } from '../../store.js';
import { type SerializeOptions, displayTopic, serializeMessage } from './wire.js';
import { accessMessage } from './access.js';
import { MAX_MESSAGES_PER_FETCH } from './rules.js';

// ---- GET /messages -------------------------------------------------------------------------------

export function parseAnchor(raw: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw missingArgument('anchor');
  const value = raw.trim();
  if (value === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (value === 'oldest') return 0;
  if (value === 'first_unread') return null;
  if (!/^-?\d+$/.test(value)) throw badRequest('Invalid anchor');
  const n = Number(value);
  if (n < 0) return 0;
  return Math.min(n, LARGER_THAN_MAX_MESSAGE_ID);
}

export function nonNegative(name: string, value: number | undefined): number {
  if (value === undefined) throw missingArgument(name);
  if (value < 0) throw badRequest(`${name} is too small`);
  return value;
}

export function getMessages(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user } = ctx;
  // message_ids arrived at feature level 300; an older server ignores it (and then wants an anchor).
  // TODO(server-10): messageIds (300); drop the older branch once every supported server has it.
  const messageIdsRaw = ctx.settings.featureLevel >= featureLevels.messageIds ? p.optJson('message_ids') : undefined;
  const anchorRaw = p.optStr('anchor');
  const includeAnchor = p.optBool('include_anchor');
  const numBeforeRaw = p.optInt('num_before');
  const numAfterRaw = p.optInt('num_after');
  const useFirstUnread = p.optBool('use_first_unread_anchor');
  const narrowRaw = p.optJson('narrow');
  const options: SerializeOptions = {
    applyMarkdown: p.bool('apply_markdown', true),
    clientGravatar: p.bool('client_gravatar', true),
    allowEmptyTopicName: p.bool('allow_empty_topic_name', false),
    baseUrl: ctx.baseUrl,
  };
  const narrow = parseNarrow(narrowRaw);
  validateNarrow(store, user, narrow);

  if (messageIdsRaw !== undefined) {
    const conflicts = (
      [
        ['anchor', anchorRaw],
        ['include_anchor', includeAnchor],
        ['use_first_unread_anchor', useFirstUnread],
        ['num_before', numBeforeRaw],
        ['num_after', numAfterRaw],
      ] as const
    )
      .filter(([, v]) => v !== undefined)
      .map(([name]) => name);
    if (conflicts.length > 0) throw incompatible(['message_ids', ...conflicts]);
    const ids = [...new Set(checkIntArray('message_ids', messageIdsRaw))].sort((a, b) => a - b);
    const plan = planSearch(store, user, narrow);
    const match = narrow.length > 0 ? plan.accept : () => true;
    const keywords = searchKeywords(plan.narrow);
    const messages = ids
      .map((id) => store.messages.get(id))
      .filter((m): m is Message => m !== undefined && store.canSeeMessage(user, m) && match(m));
    return {
      found_anchor: false,
      found_newest: false,
      found_oldest: false,
      history_limited: false,
      messages: messages.map((m) => messageForList(store, user, m, options, keywords)),
    };
  }

  const numBefore = nonNegative('num_before', numBeforeRaw);
  const numAfter = nonNegative('num_after', numAfterRaw);
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) {
    throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  // Zulip's get_messages_backend (zerver/views/message_fetch.py): the same rule as flags/narrow.
  if (numBefore > 0 && numAfter > 0 && includeAnchor === false) throw badRequest('The anchor can only be excluded at an end of the range');
  if (useFirstUnread === true && anchorRaw !== undefined) throw incompatible(['anchor', 'use_first_unread_anchor']);
  const requested = parseAnchor(anchorRaw, useFirstUnread === true);
  const plan = planSearch(store, user, narrow);
  const anchor = requested ?? firstUnreadId(store, user, plan) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const window = fetchWindow(store, plan, { anchor, includeAnchor: includeAnchor ?? true, numBefore, numAfter });
  const keywords = searchKeywords(plan.narrow);
  return {
    anchor,
    found_anchor: window.foundAnchor,
    found_newest: window.foundNewest,
    found_oldest: window.foundOldest,
    history_limited: false,
    messages: window.messages.map((m) => messageForList(store, user, m, options, keywords)),
  };
}

export function incompatible(parameters: string[]): ApiError {
  return badRequest(`Unsupported parameter combination: ${parameters.join(', ')}`, { parameters: parameters.join(', ') });
}

export function messageForList(store: Store, user: User, m: Message, options: SerializeOptions, keywords: string[]): Record<string, unknown> {
  const wire = serializeMessage(store, user, m, options) as unknown as Record<string, unknown>;
  wire.flags = store.messageFlags(user.user_id, m);
  if (keywords.length > 0) {
    Object.assign(wire, highlightMatches(store.memo, m.rendered_content, displayTopic(store, m.topic, options.allowEmptyTopicName), keywords));
  }
  return wire;
}

export function getMessage(ctx: RouteContext): Record<string, unknown> {
  const id = ctx.pathInt('message_id');
  // No client_gravatar here: Zulip serializes this one as if it were true.
  const options: SerializeOptions = {
    applyMarkdown: ctx.params.bool('apply_markdown', true),
    clientGravatar: true,
    allowEmptyTopicName: ctx.params.bool('allow_empty_topic_name', false),
    baseUrl: ctx.baseUrl,
  };
  const message = accessMessage(ctx.store, ctx.user, id);
  return {
    raw_content: message.content,
    message: { ...serializeMessage(ctx.store, ctx.user, message, options), flags: ctx.store.messageFlags(ctx.user.user_id, message) },
  };
}
