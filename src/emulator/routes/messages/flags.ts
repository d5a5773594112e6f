/**
 * `POST /messages/flags` (https://zulip.com/api/update-message-flags) and
 * `POST /messages/flags/narrow` (https://zulip.com/api/update-message-flags-for-narrow), with the
 * `update_message_flags` events.
 */
import type { RouteContext } from '../../context.js';
import { badRequest, invalidMessage, missingArgument } from '../../errors.js';
import {
  fetchWindow,
  firstUnreadId,
  LARGER_THAN_MAX_MESSAGE_ID,
  parseNarrow,
  planSearch,
  validateNarrow,
  type NarrowTerm,
} from '../../narrow/index.js';
import type { Message, Store } from '../../store.js';
import { MAX_MESSAGES_PER_UPDATE, EDITABLE_FLAGS, NON_EDITABLE_FLAGS } from './rules.js';
import { parseAnchor, nonNegative } from './fetch.js';

// ---- flags -----------------------------------------------------------------------------------------

export function checkFlagRequest(op: string, flag: string): void {
  if (!EDITABLE_FLAGS.has(flag) && !NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
}

/** `message_details` of a `remove read` event: what clients need to rebuild unread counts. */
export function messageDetails(store: Store, userId: number, ids: number[]): Record<string, Record<string, unknown>> {
  const details: Record<string, Record<string, unknown>> = {};
  for (const id of ids) {
    const m = store.messages.get(id)!;
    const entry: Record<string, unknown> =
      m.type === 'stream'
        ? { type: 'stream', stream_id: m.stream_id!, topic: m.topic }
        : { type: 'private', user_ids: m.dm_user_ids!.filter((u) => u !== userId) };
    if (['mentioned', 'group_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'].some((f) => store.hasFlag(userId, id, f))) {
      entry.mentioned = true;
    }
    details[String(id)] = entry;
  }
  return details;
}

export function notifyFlags(ctx: Pick<RouteContext, 'store' | 'events'>, userId: number, op: 'add' | 'remove', flag: string, ids: number[]): void {
  const messages = [...ids].sort((a, b) => a - b);
  const event: Record<string, unknown> & { type: string } = { type: 'update_message_flags', op, operation: op, flag, messages, all: false };
  if (op === 'remove' && flag === 'read') event.message_details = messageDetails(ctx.store, userId, messages);
  ctx.events.notify([userId], event);
}

/**
 * Zulip's do_update_message_flags. Adding needs every message to be readable ("Invalid
 * message(s)"); removing `read` skips messages of channels the user is not subscribed to.
 */
export function updateFlags(
  ctx: RouteContext,
  ids: number[],
  op: 'add' | 'remove',
  flag: string,
): { changed: number[]; skippedChannels: number[] } {
  const { store, user } = ctx;
  const uid = user.user_id;
  const targets: Message[] = [];
  const skippedChannels = new Set<number>();
  for (const id of new Set(ids)) {
    const m = store.messages.get(id);
    const visible = m !== undefined && store.canSeeMessage(user, m);
    if (op === 'add') {
      if (!visible) throw invalidMessage();
      targets.push(m);
      continue;
    }
    if (!visible) continue;
    if (flag === 'read' && m.type === 'stream' && !store.isSubscribed(uid, m.stream_id!)) {
      skippedChannels.add(m.stream_id!);
      continue;
    }
    targets.push(m);
  }
  const changed = targets.filter((m) => store.setFlag(uid, m.id, flag, op === 'add')).map((m) => m.id);
  if (changed.length > 0) notifyFlags(ctx, uid, op, flag, changed);
  return { changed, skippedChannels: [...skippedChannels].sort((a, b) => a - b) };
}

export function postFlags(ctx: RouteContext): Record<string, unknown> {
  const ids = ctx.params.intArray('messages');
  const op = ctx.params.str('op');
  const flag = ctx.params.str('flag');
  checkFlagRequest(op, flag);
  updateFlags(ctx, ids, op as 'add' | 'remove', flag);
  return { messages: ids };
}

export function postFlagsForNarrow(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user } = ctx;
  const anchorRaw = p.optStr('anchor');
  const includeAnchor = p.bool('include_anchor', true);
  let numBefore = nonNegative('num_before', p.optInt('num_before'));
  let numAfter = nonNegative('num_after', p.optInt('num_after'));
  const narrow: NarrowTerm[] = parseNarrow(p.optJson('narrow'));
  const op = p.str('op');
  const flag = p.str('flag');
  checkFlagRequest(op, flag);
  if (anchorRaw === undefined) throw missingArgument('anchor');
  const requested = parseAnchor(anchorRaw, false);
  validateNarrow(store, user, narrow);
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) throw badRequest('The anchor can only be excluded at an end of the range');
  // Zulip's clamp: num_before + num_after stays within MAX_MESSAGES_PER_UPDATE.
  numBefore = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  numAfter = Math.min(numAfter, Math.max(MAX_MESSAGES_PER_UPDATE - numBefore, MAX_MESSAGES_PER_UPDATE / 2));
  const plan = planSearch(store, user, narrow);
  const anchor = requested ?? firstUnreadId(store, user, plan) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const window = fetchWindow(store, plan, { anchor, includeAnchor, numBefore, numAfter });
  const ids = window.messages.map((m) => m.id);
  const { changed, skippedChannels } = updateFlags(ctx, ids, op as 'add' | 'remove', flag);
  const body: Record<string, unknown> = {
    processed_count: ids.length,
    updated_count: changed.length,
    first_processed_id: ids[0] ?? null,
    last_processed_id: ids[ids.length - 1] ?? null,
    found_oldest: window.foundOldest,
    found_newest: window.foundNewest,
  };
  if (flag === 'read' && op === 'remove') body.ignored_because_not_subscribed_channels = skippedChannels;
  return body;
}
