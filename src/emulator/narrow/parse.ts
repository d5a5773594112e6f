/**
 * Parsing the `narrow` parameter (https://zulip.com/api/construct-narrow): both the object form and
 * the legacy `[operator, operand]` form, operator aliases, operand types.
 */
import { ApiError, badRequest } from '../errors.js';

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

export const OPERATOR_ALIASES: Record<string, string> = {
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

export const IS_OPERANDS = new Set(['dm', 'private', 'unread', 'starred', 'mentioned', 'alerted', 'resolved', 'followed', 'muted']);
export const HAS_OPERANDS = new Set(['link', 'image', 'attachment', 'reaction']);
/** Operators whose operand may be an integer id (Zulip's NarrowParameter validator). */
export const ID_OPERATORS = new Set(['channel', 'id', 'sender', 'dm-including', 'with', 'near']);

/** `newest` as Zulip reports it back; also the bound above every real message id. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

export const RESOLVED_TOPIC_PREFIX = '✔ ';

export function badNarrow(desc: string): ApiError {
  return new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400);
}

export function invalidNarrow(reason: string): ApiError {
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

export function checkOperandType(operator: string, operand: unknown): void {
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
