/**
 * The message search behind `GET /messages` and `POST /messages/flags/narrow`. As in Zulip
 * (zerver/lib/narrow.py): a narrow naming one channel (or `channels:public`) searches that channel's
 * whole history the user may read; every other narrow searches the user's personal history (the
 * messages they received). `is:` terms other than `resolved`/`followed` always use personal history.
 * `with:<id>` becomes the conversation of that message; `near:` only places the anchor.
 *
 * The search scans from the anchor outward over per-channel and per-user id indexes (store.ts), so
 * a window costs what it returns (plus what the narrow skips), not the size of the organization.
 */
import type { Channel, Message, Store, User } from '../store.js';
import { type NarrowTerm, LARGER_THAN_MAX_MESSAGE_ID } from './parse.js';
import { channelOf, messageIdOf, validateNarrow } from './operands.js';
import { type MessagePredicate, compileNarrow } from './match.js';
import { MergedCursor } from './cursor.js';

// ---- searching ---------------------------------------------------------------------------------

/** Whether the user may read a channel's history from before they joined (Zulip's can_access_stream_history). */
export function canAccessChannelHistory(store: Store, user: User, channel: Channel): boolean {
  if (channel.is_web_public) return true;
  if (!channel.invite_only && !store.isGuest(user)) return true;
  return channel.history_public_to_subscribers && store.isSubscribed(user.user_id, channel.stream_id);
}

/** Zulip's ok_to_include_history: does the search cover channel history, or only received messages? */
export function includesHistory(store: Store, user: User, narrow: NarrowTerm[]): boolean {
  let include = false;
  for (const term of narrow) {
    if (term.negated) continue;
    if (term.operator === 'channel') {
      const channel = channelOf(store, term.operand);
      include = channel !== undefined && canAccessChannelHistory(store, user, channel);
    } else if (term.operator === 'channels' && term.operand === 'public' && !store.isGuest(user)) {
      include = true;
    }
  }
  if (narrow.some((t) => t.operator === 'is' && t.operand !== 'resolved' && t.operand !== 'followed')) include = false;
  return include;
}

/**
 * `with:<id>` (feature level 271) stands for the conversation holding that message: its channel and
 * topic, or its direct-message participants. Dropped when the message is not visible.
 */
export function resolveWith(store: Store, user: User, narrow: NarrowTerm[]): NarrowTerm[] {
  const withTerm = narrow.find((t) => t.operator === 'with');
  if (!withTerm) return narrow;
  // The conversation replaces any channel, topic or dm terms of the request.
  const replaced = new Set(['with', 'channel', 'topic', 'dm']);
  const rest = narrow.filter((t) => !replaced.has(t.operator));
  const id = messageIdOf(withTerm.operand);
  const m = id === undefined ? undefined : store.messages.get(id);
  if (!m || !store.canSeeMessage(user, m)) return narrow.filter((t) => t.operator !== 'with');
  if (m.type === 'stream') {
    return [
      { operator: 'channel', operand: m.stream_id!, negated: false },
      { operator: 'topic', operand: m.topic, negated: false },
      ...rest,
    ];
  }
  return [{ operator: 'dm', operand: m.dm_user_ids!.filter((u) => u !== user.user_id), negated: false }, ...rest];
}

export interface SearchPlan {
  /** Ascending id lists to merge; together they hold every candidate. */
  sources: (readonly number[])[];
  /** Whether a message is visible under this search and matches the narrow. */
  accept: MessagePredicate;
  /** The narrow after `with:` was resolved. */
  narrow: NarrowTerm[];
  includeHistory: boolean;
}

/** Where to look and what to keep. Call {@link validateNarrow} first. */
export function planSearch(store: Store, user: User, rawNarrow: NarrowTerm[]): SearchPlan {
  const narrow = resolveWith(store, user, rawNarrow);
  const match = compileNarrow(store, user, narrow);
  const includeHistory = includesHistory(store, user, narrow);
  const uid = user.user_id;
  const accept: MessagePredicate = includeHistory
    ? (m) => store.canSeeMessage(user, m) && match(m)
    : (m) => store.receivedMessage(uid, m) && match(m);
  const positive = (operator: string) => narrow.find((t) => t.operator === operator && !t.negated);

  let sources: (readonly number[])[];
  const idTerm = positive('id');
  const channelTerm = positive('channel');
  const channelsTerm = positive('channels');
  if (idTerm) {
    const id = messageIdOf(idTerm.operand);
    sources = id === undefined ? [] : [[id]];
  } else if (channelTerm) {
    const channel = channelOf(store, channelTerm.operand);
    sources = channel ? [store.channelMessageIds(channel.stream_id)] : [];
  } else if (channelsTerm && includeHistory) {
    const want = channelsTerm.operand === 'web-public' ? (c: Channel) => c.is_web_public : (c: Channel) => !c.invite_only;
    sources = [...store.channels.values()].filter(want).map((c) => store.channelMessageIds(c.stream_id));
  } else if (positive('dm') || positive('dm-including') || narrow.some((t) => t.operator === 'is' && !t.negated && (t.operand === 'dm' || t.operand === 'private'))) {
    sources = [store.dmMessageIds(uid)];
  } else {
    sources = [...store.subscribedChannelIds(uid).map((id) => store.channelMessageIds(id)), store.dmMessageIds(uid)];
  }
  return { sources: sources.filter((s) => s.length > 0), accept, narrow, includeHistory };
}
/** Up to `limit` accepted messages walking away from `start`, nearest first. */
export function collect(store: Store, plan: SearchPlan, start: number, direction: 'down' | 'up', limit: number): Message[] {
  const out: Message[] = [];
  if (limit <= 0 || plan.sources.length === 0) return out;
  const cursor = new MergedCursor(plan.sources, start, direction === 'down');
  for (let id = cursor.next(); id !== -1; id = cursor.next()) {
    const m = store.messages.get(id);
    if (m && plan.accept(m)) {
      out.push(m);
      if (out.length >= limit) break;
    }
  }
  return out;
}

export interface WindowRequest {
  /** A message id, 0 for `oldest`, {@link LARGER_THAN_MAX_MESSAGE_ID} (or more) for `newest`. */
  anchor: number;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
}

export interface WindowResult {
  /** Ascending. */
  messages: Message[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

/**
 * The messages around an anchor. Each side looks one message further than asked, so that
 * found_oldest / found_newest are exact promises (Zulip's are sometimes conservative).
 */
export function fetchWindow(store: Store, plan: SearchPlan, req: WindowRequest): WindowResult {
  const anchoredToLeft = req.anchor <= 0;
  const anchoredToRight = req.anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const before = anchoredToLeft ? [] : collect(store, plan, req.anchor, 'down', req.numBefore + 1);
  const after = anchoredToRight ? [] : collect(store, plan, req.anchor, 'up', req.numAfter + 1);
  // plan.accept is the whole condition; the sources only make the walks short.
  let anchorMessage: Message | undefined;
  if (req.includeAnchor && !anchoredToRight && !anchoredToLeft) {
    const m = store.messages.get(req.anchor);
    if (m && plan.accept(m)) anchorMessage = m;
  }
  const foundOldest = anchoredToLeft || before.length <= req.numBefore;
  const foundNewest = anchoredToRight || after.length <= req.numAfter;
  const messages = [
    ...before.slice(0, req.numBefore).reverse(),
    ...(anchorMessage ? [anchorMessage] : []),
    ...after.slice(0, req.numAfter),
  ];
  return { messages, foundAnchor: anchorMessage !== undefined, foundOldest, foundNewest };
}


/** The oldest unread message matching the plan, if any (`anchor=first_unread`). */
export function firstUnreadId(store: Store, user: User, plan: SearchPlan): number | undefined {
  const unread = store.flags.get(user.user_id)?.get('unread');
  if (!unread || unread.size === 0) return undefined;
  for (const id of [...unread].sort((a, b) => a - b)) {
    const m = store.messages.get(id);
    if (m && plan.accept(m)) return id;
  }
  return undefined;
}
