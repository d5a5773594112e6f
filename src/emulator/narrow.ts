/**
 * Narrows: parsing the `narrow` parameter, matching messages against it, and the message search
 * behind `GET /messages` and `POST /messages/flags/narrow` (event queues use the matcher).
 * https://zulip.com/api/construct-narrow
 *
 * As in Zulip (zerver/lib/narrow.py):
 * - a narrow naming one channel (or `channels:public`) searches that channel's whole history the
 *   user may read ("include history"); every other narrow searches the user's personal history,
 *   the messages they received. `is:` terms other than `resolved`/`followed` always use personal
 *   history (flags only exist there);
 * - a channel the user may not even see counts as unknown: BAD_NARROW "unknown channel ...";
 * - `with:<id>` becomes the conversation of that message; `near:` only places the anchor.
 *
 * The search scans from the anchor outward over per-channel and per-user id indexes (store.ts), so
 * a window costs what it returns (plus what the narrow skips), not the size of the organization.
 */
import { ApiError, badRequest } from './errors.js';
import type { Channel, Message, Store, User } from './store.js';

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

const OPERATOR_ALIASES: Record<string, string> = {
  stream: 'channel',
  streams: 'channels',
  subject: 'topic',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
};

export const NARROW_OPERATORS = new Set([
  'channel',
  'channels',
  'topic',
  'sender',
  'dm',
  'dm-including',
  'is',
  'search',
  'id',
  'near',
  'with',
  'has',
]);

const IS_OPERANDS = new Set(['dm', 'private', 'unread', 'starred', 'mentioned', 'alerted', 'resolved', 'followed', 'muted']);
const HAS_OPERANDS = new Set(['link', 'image', 'attachment', 'reaction']);
/** Operators whose operand may be an integer id (Zulip's NarrowParameter validator). */
const ID_OPERATORS = new Set(['channel', 'id', 'sender', 'dm-including', 'with', 'near']);

/** `newest` as Zulip reports it back; also the bound above every real message id. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

export const RESOLVED_TOPIC_PREFIX = '✔ ';

export function badNarrow(desc: string): ApiError {
  return new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400);
}

function invalidNarrow(reason: string): ApiError {
  return badRequest(`Invalid narrow: ${reason}`);
}

/** Accepts both the object form and the legacy `[operator, operand]` form; checks operand types. */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest('narrow is not a list');
  return raw.map((term): NarrowTerm => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(term)) {
      if (term.length !== 2 || term.some((x) => typeof x !== 'string')) throw invalidNarrow('element is not a string pair');
      [operator, operand] = term;
    } else if (term && typeof term === 'object') {
      const t = term as Record<string, unknown>;
      if (t.operand === undefined || t.operand === null) throw invalidNarrow('operand is missing');
      if (t.operator === undefined || t.operator === null) throw invalidNarrow('operator is missing');
      ({ operator, operand } = t);
      negated = t.negated ?? false;
    } else throw invalidNarrow('dict or list required');
    if (typeof operator !== 'string') throw badRequest('operator is not a string');
    if (typeof negated !== 'boolean') throw badRequest('negated is not a boolean');
    const canonical = OPERATOR_ALIASES[operator] ?? operator;
    checkOperandType(canonical, operand);
    return { operator: canonical, operand, negated };
  });
}

function checkOperandType(operator: string, operand: unknown): void {
  if (operator === 'dm') {
    const ok =
      typeof operand === 'string' ||
      Number.isSafeInteger(operand) ||
      (Array.isArray(operand) && (operand.every((x) => Number.isSafeInteger(x)) || operand.every((x) => typeof x === 'string')));
    if (!ok) throw badRequest('operand is not a string or an integer list');
  } else if (ID_OPERATORS.has(operator)) {
    if (typeof operand !== 'string' && !Number.isSafeInteger(operand)) throw badRequest('operand is not a string or an integer');
  } else if (typeof operand !== 'string') {
    throw badRequest('operand is not a string');
  } else if (operator === 'search' && operand.trim() === '') {
    throw badRequest('operand cannot be blank.');
  }
}

// ---- operand resolution ------------------------------------------------------------------------

function userIdOf(store: Store, operand: unknown): number | undefined {
  if (typeof operand === 'number') return store.users.has(operand) ? operand : undefined;
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand) && store.users.has(Number(operand))) return Number(operand);
    return store.userByEmail(operand.trim())?.user_id;
  }
  return undefined;
}

/** A list of users given as ids, emails, or one comma-separated email string. */
function userIdsOf(store: Store, operand: unknown): number[] | undefined {
  const list = typeof operand === 'string' ? operand.split(',').map((s) => s.trim()).filter(Boolean) : operand;
  if (typeof list === 'number') return userIdsOf(store, [list]);
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const ids: number[] = [];
  for (const x of list) {
    const id = userIdOf(store, x);
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}

function channelOf(store: Store, operand: unknown): Channel | undefined {
  if (typeof operand === 'number') return store.channels.get(operand);
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand) && store.channels.has(Number(operand))) return store.channels.get(Number(operand));
    return store.channelByName(operand);
  }
  return undefined;
}

function messageIdOf(operand: unknown): number | undefined {
  if (typeof operand === 'number') return operand;
  if (typeof operand === 'string' && /^\d+$/.test(operand)) return Number(operand);
  return undefined;
}

/** A topic operand as stored: the organization's empty-topic display name means the empty topic. */
export function topicOperand(store: Store, operand: string): string {
  return operand === store.realm.empty_topic_display_name ? '' : operand;
}

/**
 * Checks operands eagerly (so a bad narrow fails even when no message is scanned), with Zulip's
 * BAD_NARROW messages. `viewer` decides which channels count as known.
 */
export function validateNarrow(store: Store, viewer: User, narrow: NarrowTerm[]): void {
  for (const { operator, operand } of narrow) {
    switch (operator) {
      case 'channel': {
        const channel = channelOf(store, operand);
        if (!channel || !store.canAccessChannelMetadata(viewer, channel)) throw badNarrow(`unknown channel ${String(operand)}`);
        break;
      }
      case 'channels':
        if (operand !== 'public' && operand !== 'web-public') throw badNarrow(`unknown channels operand ${String(operand)}`);
        break;
      case 'sender':
      case 'dm-including':
        if (userIdOf(store, operand) === undefined) throw badNarrow(`unknown user ${String(operand)}`);
        break;
      case 'dm':
        if (userIdsOf(store, operand) === undefined) throw badNarrow(`unknown user in ${String(operand)}`);
        break;
      case 'is':
        if (!IS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'is' operand ${String(operand)}`);
        break;
      case 'has':
        if (!HAS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'has' operand ${String(operand)}`);
        break;
      case 'id':
      case 'near':
      case 'with':
        if (messageIdOf(operand) === undefined) throw badNarrow('Invalid message ID');
        break;
      case 'topic':
      case 'search':
        break;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
  }
}

// ---- matching ----------------------------------------------------------------------------------

export type MessagePredicate = (m: Message) => boolean;

/** Lowercased `topic + content`, cached per message until either changes. */
const searchTextCache = new WeakMap<Message, { topic: string; content: string; text: string }>();

function searchText(m: Message): string {
  const cached = searchTextCache.get(m);
  if (cached && cached.topic === m.topic && cached.content === m.content) return cached.text;
  const text = `${m.topic}\n${m.content}`.toLowerCase();
  searchTextCache.set(m, { topic: m.topic, content: m.content, text });
  return text;
}

/** Search keywords: whitespace-separated words, or "quoted phrases". */
export function searchKeywords(narrow: NarrowTerm[]): string[] {
  const words: string[] = [];
  for (const term of narrow) {
    if (term.operator !== 'search' || term.negated || typeof term.operand !== 'string') continue;
    for (const match of term.operand.toLowerCase().matchAll(/"([^"]+)"|(\S+)/g)) {
      const word = (match[1] ?? match[2] ?? '').trim();
      if (word) words.push(word);
    }
  }
  return words;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A keyword matches at the start of a word (a cheap stand-in for Zulip's stemmed full-text search:
 * `deploy` finds "deployed" but not "redeploy"); the match extends to the end of that word.
 */
export function keywordPattern(word: string): RegExp {
  let re = keywordPatterns.get(word);
  if (!re) {
    // Unicode property classes are costly to compile: keep the latest few hundred.
    if (keywordPatterns.size >= 256) keywordPatterns.delete(keywordPatterns.keys().next().value!);
    re = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}[\\p{L}\\p{N}_]*`, 'giu');
    keywordPatterns.set(word, re);
  }
  re.lastIndex = 0;
  return re;
}

const keywordPatterns = new Map<string, RegExp>();

function compileSearch(operand: string): MessagePredicate {
  const patterns = searchKeywords([{ operator: 'search', operand, negated: false }]).map((word) => ({ word, re: keywordPattern(word) }));
  return (m) => {
    const text = searchText(m);
    // includes() first: most messages do not contain the word at all, and that test is cheap.
    return patterns.every(({ word, re }) => {
      if (!text.includes(word)) return false;
      re.lastIndex = 0;
      return re.test(text);
    });
  };
}

function compileIs(store: Store, user: User, operand: unknown): MessagePredicate {
  const uid = user.user_id;
  switch (operand) {
    case 'dm':
    case 'private':
      return (m) => m.type === 'private';
    case 'unread':
      return (m) => !store.hasFlag(uid, m.id, 'read');
    case 'starred':
      return (m) => store.hasFlag(uid, m.id, 'starred');
    case 'mentioned':
    case 'alerted':
      return (m) =>
        ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word'].some((f) =>
          store.hasFlag(uid, m.id, f),
        );
    case 'resolved':
      return (m) => m.type === 'stream' && m.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
    case 'muted':
      return (m) => {
        if (m.type !== 'stream') return false;
        const policy = store.userTopics.get(uid)?.get(store.userTopicKey(m.stream_id!, m.topic))?.visibility_policy;
        if (operand === 'followed') return policy === 3;
        return policy === 1 || (store.subscription(m.stream_id!, uid)?.is_muted === true && policy !== 2 && policy !== 3);
      };
    default:
      // Zulip's event-queue matcher lets an unknown `is:` operand match everything; GET /messages
      // rejects it in validateNarrow before matching.
      return () => true;
  }
}

function compileHas(operand: unknown): MessagePredicate {
  switch (operand) {
    case 'link':
      return (m) => /<a href=/.test(m.rendered_content);
    case 'image':
      return (m) => /<img /.test(m.rendered_content);
    case 'attachment':
      return (m) => m.content.includes('/user_uploads/');
    case 'reaction':
      return (m) => m.reactions.length > 0;
    default:
      return () => false;
  }
}

function compileTerm(store: Store, user: User, term: NarrowTerm): MessagePredicate {
  const { operator, operand } = term;
  switch (operator) {
    case 'channel': {
      const id = channelOf(store, operand)?.stream_id;
      return (m) => m.type === 'stream' && m.stream_id === id;
    }
    case 'channels': {
      const flag = operand === 'web-public' ? 'is_web_public' : 'public';
      return (m) => {
        if (m.type !== 'stream') return false;
        const c = store.channels.get(m.stream_id!);
        return c !== undefined && (flag === 'public' ? !c.invite_only : c.is_web_public);
      };
    }
    case 'topic': {
      if (typeof operand !== 'string') return () => false;
      const wanted = topicOperand(store, operand).toLowerCase();
      return (m) => m.type === 'stream' && m.topic.toLowerCase() === wanted;
    }
    case 'sender': {
      const id = userIdOf(store, operand);
      return (m) => m.sender_id === id;
    }
    case 'dm': {
      const ids = userIdsOf(store, operand);
      if (!ids) return () => false;
      const wanted = new Set([...ids, user.user_id]);
      return (m) => m.type === 'private' && m.dm_user_ids!.length === wanted.size && m.dm_user_ids!.every((id) => wanted.has(id));
    }
    case 'dm-including': {
      const id = userIdOf(store, operand);
      return (m) => m.type === 'private' && id !== undefined && m.dm_user_ids!.includes(id) && m.dm_user_ids!.includes(user.user_id);
    }
    case 'is':
      return compileIs(store, user, operand);
    case 'search':
      return typeof operand === 'string' ? compileSearch(operand) : () => false;
    case 'id': {
      const id = messageIdOf(operand);
      return (m) => m.id === id;
    }
    case 'has':
      return compileHas(operand);
    default:
      // near and with only steer the anchor / the conversation (see resolveWith).
      return () => true;
  }
}

/** One predicate for the whole narrow (operands resolved once, not per message). */
export function compileNarrow(store: Store, user: User, narrow: NarrowTerm[]): MessagePredicate {
  const predicates = narrow.map((term) => {
    const p = compileTerm(store, user, term);
    return term.negated ? (m: Message) => !p(m) : p;
  });
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0]!;
  return (m) => predicates.every((p) => p(m));
}

/** Whether the message matches every term (negated terms must not match). Never throws. */
export function matchesNarrow(store: Store, user: User, m: Message, narrow: NarrowTerm[]): boolean {
  return compileNarrow(store, user, narrow)(m);
}

/** The channel a narrow is limited to, if any. */
export function narrowChannelId(store: Store, narrow: NarrowTerm[]): number | undefined {
  const term = narrow.find((t) => t.operator === 'channel' && !t.negated);
  return term ? channelOf(store, term.operand)?.stream_id : undefined;
}

// ---- searching ---------------------------------------------------------------------------------

/** Whether the user may read a channel's history from before they joined (Zulip's can_access_stream_history). */
export function canAccessChannelHistory(store: Store, user: User, channel: Channel): boolean {
  if (channel.is_web_public) return true;
  if (!channel.invite_only && !store.isGuest(user)) return true;
  return channel.history_public_to_subscribers && store.isSubscribed(user.user_id, channel.stream_id);
}

/** Zulip's ok_to_include_history: does the search cover channel history, or only received messages? */
function includesHistory(store: Store, user: User, narrow: NarrowTerm[]): boolean {
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
function resolveWith(store: Store, user: User, narrow: NarrowTerm[]): NarrowTerm[] {
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

/**
 * Ids from ascending lists, merged, walking down from below `start` (exclusive) or up from above
 * it. One list walks directly; several go through a small binary heap keyed by each list's head.
 */
class MergedCursor {
  private readonly positions: number[];
  private readonly heap: number[] = [];
  private readonly step: number;

  constructor(
    private readonly sources: (readonly number[])[],
    start: number,
    private readonly down: boolean,
  ) {
    this.step = down ? -1 : 1;
    // Position of the first element to yield in each list.
    this.positions = sources.map((list) => {
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (down ? list[mid]! < start : list[mid]! <= start) lo = mid + 1;
        else hi = mid;
      }
      return down ? lo - 1 : lo;
    });
    if (sources.length > 1) {
      for (let k = 0; k < sources.length; k++) {
        if (this.inRange(k)) {
          this.heap.push(k);
          this.siftUp(this.heap.length - 1);
        }
      }
    }
  }

  /** The next id, or -1 when every list is exhausted. */
  next(): number {
    if (this.sources.length === 1) {
      const list = this.sources[0]!;
      const i = this.positions[0]!;
      if (i < 0 || i >= list.length) return -1;
      this.positions[0] = i + this.step;
      return list[i]!;
    }
    const heap = this.heap;
    if (heap.length === 0) return -1;
    const k = heap[0]!;
    const id = this.head(k);
    this.positions[k]! += this.step;
    if (!this.inRange(k)) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    if (heap.length > 0) this.siftDown(0);
    return id;
  }

  private inRange(k: number): boolean {
    const i = this.positions[k]!;
    return i >= 0 && i < this.sources[k]!.length;
  }

  private head(k: number): number {
    return this.sources[k]![this.positions[k]!]!;
  }

  /** Whether list a's head comes before list b's (larger first going down, smaller going up). */
  private before(a: number, b: number): boolean {
    return this.down ? this.head(a) > this.head(b) : this.head(a) < this.head(b);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && this.before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && this.before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
}

/** Up to `limit` accepted messages walking away from `start`, nearest first. */
function collect(store: Store, plan: SearchPlan, start: number, direction: 'down' | 'up', limit: number): Message[] {
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

// ---- search highlighting -----------------------------------------------------------------------

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function highlightText(text: string, patterns: RegExp[]): string {
  let out = text;
  for (const re of patterns) {
    re.lastIndex = 0;
    out = out.replace(re, (w) => `\u0001${w}\u0002`);
  }
  return out;
}

/**
 * Zulip's `match_content` / `match_subject`: the rendered content and the escaped topic with each
 * keyword hit wrapped in `<span class="highlight">`. Only text outside HTML tags is marked.
 */
export function highlightMatches(renderedContent: string, topic: string, keywords: string[]): { match_content: string; match_subject: string } {
  const patterns = keywords.map(keywordPattern);
  const mark = (s: string) => s.replace(/\u0001/g, '<span class="highlight">').replace(/\u0002/g, '</span>');
  // Tags and character references stay as they are; only the text between them is marked.
  const content = renderedContent
    .split(/(<[^>]*>|&#?\w+;)/)
    .map((part, i) => (i % 2 === 1 ? part : mark(highlightText(part, patterns))))
    .join('');
  const subject = mark(escapeHtml(highlightText(topic, patterns)));
  return { match_content: content, match_subject: subject };
}
