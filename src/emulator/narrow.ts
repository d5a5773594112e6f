/**
 * Narrows: parsing the `narrow` parameter and matching messages against it, shared by `GET /messages`,
 * `POST /messages/flags/narrow` and event queues. https://zulip.com/api/construct-narrow
 */
import { ApiError, badRequest } from './errors.js';
import type { Message, Store, User } from './store.js';

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

export function badNarrow(desc: string): ApiError {
  return new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400);
}

/** Accepts both the object form and the legacy `[operator, operand]` form. */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest('narrow is not a list');
  return raw.map((term): NarrowTerm => {
    let operator: unknown;
    let operand: unknown;
    let negated = false;
    if (Array.isArray(term) && term.length === 2) [operator, operand] = term;
    else if (term && typeof term === 'object' && 'operator' in term && 'operand' in term) {
      ({ operator, operand } = term as { operator: unknown; operand: unknown });
      negated = (term as { negated?: unknown }).negated === true;
    } else throw badRequest('Invalid narrow');
    if (typeof operator !== 'string') throw badRequest('Invalid narrow');
    const canonical = OPERATOR_ALIASES[operator] ?? operator;
    if (!NARROW_OPERATORS.has(canonical)) throw badNarrow('unknown operator');
    return { operator: canonical, operand, negated };
  });
}

/** Resolves a user operand given as an id or an email. */
function userIdOf(store: Store, operand: unknown): number | undefined {
  if (typeof operand === 'number') return store.users.has(operand) ? operand : undefined;
  if (typeof operand === 'string') return store.userByEmail(operand)?.user_id;
  return undefined;
}

/** A list of users given as ids, emails, or one comma-separated email string. */
function userIdsOf(store: Store, operand: unknown): number[] | undefined {
  const list = typeof operand === 'string' ? operand.split(',').map((s) => s.trim()) : operand;
  if (typeof list === 'number') return userIdsOf(store, [list]);
  if (!Array.isArray(list)) return undefined;
  const ids: number[] = [];
  for (const x of list) {
    const id = userIdOf(store, x);
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}

function channelIdOf(store: Store, operand: unknown): number | undefined {
  if (typeof operand === 'number') return store.channels.has(operand) ? operand : undefined;
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand) && store.channels.has(Number(operand))) return Number(operand);
    return store.channelByName(operand)?.stream_id;
  }
  return undefined;
}

export const RESOLVED_TOPIC_PREFIX = '✔ ';

function matchesIs(store: Store, user: User, m: Message, operand: unknown): boolean {
  switch (operand) {
    case 'dm':
    case 'private':
      return m.type === 'private';
    case 'unread':
      return !store.hasFlag(user.user_id, m.id, 'read');
    case 'starred':
      return store.hasFlag(user.user_id, m.id, 'starred');
    case 'mentioned':
    case 'alerted':
      return ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word'].some((f) =>
        store.hasFlag(user.user_id, m.id, f),
      );
    case 'resolved':
      return m.type === 'stream' && m.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
    case 'muted': {
      if (m.type !== 'stream') return false;
      const policy = store.userTopics.get(user.user_id)?.get(store.userTopicKey(m.stream_id!, m.topic))?.visibility_policy;
      return operand === 'followed' ? policy === 3 : policy === 1 || store.subscription(m.stream_id!, user.user_id)?.is_muted === true;
    }
    default:
      throw badNarrow(`is:${String(operand)}`);
  }
}

function matchesSearch(m: Message, operand: unknown): boolean {
  if (typeof operand !== 'string') throw badNarrow('search');
  const haystack = `${m.topic}\n${m.content}`.toLowerCase();
  return operand
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

function matchesTerm(store: Store, user: User, m: Message, term: NarrowTerm): boolean {
  const { operator, operand } = term;
  switch (operator) {
    case 'channel': {
      const id = channelIdOf(store, operand);
      return id !== undefined && m.type === 'stream' && m.stream_id === id;
    }
    case 'channels':
      if (operand === 'public') return m.type === 'stream' && !store.channels.get(m.stream_id!)!.invite_only;
      if (operand === 'web-public') return m.type === 'stream' && store.channels.get(m.stream_id!)!.is_web_public;
      throw badNarrow(`channels:${String(operand)}`);
    case 'topic':
      return m.type === 'stream' && typeof operand === 'string' && m.topic.toLowerCase() === operand.toLowerCase();
    case 'sender':
      return userIdOf(store, operand) === m.sender_id;
    case 'dm': {
      const ids = userIdsOf(store, operand);
      if (!ids || m.type !== 'private') return false;
      const wanted = new Set([...ids, user.user_id]);
      const have = new Set(m.dm_user_ids);
      return wanted.size === have.size && [...wanted].every((id) => have.has(id));
    }
    case 'dm-including': {
      const id = userIdOf(store, operand);
      return id !== undefined && m.type === 'private' && m.dm_user_ids!.includes(id);
    }
    case 'is':
      return matchesIs(store, user, m, operand);
    case 'search':
      return matchesSearch(m, operand);
    case 'id':
      return Number(operand) === m.id;
    case 'has':
      return matchesHas(m, operand);
    case 'near':
    case 'with':
      return true;
    default:
      throw badNarrow('unknown operator');
  }
}

function matchesHas(m: Message, operand: unknown): boolean {
  switch (operand) {
    case 'link':
      return /<a href=/.test(m.rendered_content);
    case 'image':
      return /<img /.test(m.rendered_content);
    case 'attachment':
      return m.content.includes('/user_uploads/');
    case 'reaction':
      return m.reactions.length > 0;
    default:
      throw badNarrow(`has:${String(operand)}`);
  }
}

/** Whether the message matches every term (negated terms must not match). */
export function matchesNarrow(store: Store, user: User, m: Message, narrow: NarrowTerm[]): boolean {
  return narrow.every((term) => matchesTerm(store, user, m, term) !== term.negated);
}

/** Checks operands eagerly so that a bad narrow fails even when no message is scanned. */
export function validateNarrow(store: Store, narrow: NarrowTerm[]): void {
  for (const { operator, operand } of narrow) {
    if (operator === 'channel' && channelIdOf(store, operand) === undefined) {
      throw badNarrow(`unknown channel ${JSON.stringify(operand)}`);
    }
    if ((operator === 'sender' || operator === 'dm-including') && userIdOf(store, operand) === undefined) {
      throw badNarrow(`unknown user ${JSON.stringify(operand)}`);
    }
    if (operator === 'dm' && userIdsOf(store, operand) === undefined) throw badNarrow('unknown user in dm');
    if (operator === 'topic' && typeof operand !== 'string') throw badNarrow('topic operand must be a string');
  }
}

/** The channel a narrow is limited to, if any: lets `GET /messages` scan one channel instead of all. */
export function narrowChannelId(store: Store, narrow: NarrowTerm[]): number | undefined {
  const term = narrow.find((t) => t.operator === 'channel' && !t.negated);
  return term ? channelIdOf(store, term.operand) : undefined;
}
