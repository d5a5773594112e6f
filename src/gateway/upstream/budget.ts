/**
 * Each credential's upstream budget, as the chat server advertises it on every answer
 * (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset: https://zulip.com/api/http-headers),
 * so that the gateway can say what is left (response `extensions.upstreamBudget`) and never be the
 * one spending a user's whole budget. Until a credential's first answer, Zulip's default applies.
 * Keyed by the credential's HMAC key (ZulipConnection.credentialKey), never the credential.
 */
import type { RateLimitInfo } from '../../zulip/connection.js';

/** Zulip's default API rate limit: 200 calls per user per minute. */
export const ZULIP_DEFAULT_RATE_LIMIT = { limit: 200, windowSeconds: 60 } as const;

export interface Budget {
  limit: number;
  remaining: number;
  /** When the window resets, in Unix seconds. */
  resetAt: number;
}

/** Estimated upstream calls one operation may make at most (`MAX_UPSTREAM_CALLS`). */
export const DEFAULT_MAX_UPSTREAM_CALLS = 50;

/**
 * What an operation may never spend of its credential's remaining budget, so that the user's other
 * clients (their own Zulip apps) keep working: a number of calls, or a share of the advertised
 * limit such as `'10%'` (`UPSTREAM_BUDGET_HEADROOM`).
 */
export type Headroom = number | `${number}%`;

export const DEFAULT_UPSTREAM_BUDGET_HEADROOM: Headroom = '10%';

/** Anonymous calls one client address may make a minute (`ANONYMOUS_RATE_LIMIT`). */
export const DEFAULT_ANONYMOUS_RATE_LIMIT = 60;

/**
 * Login attempts (each a password tried) one client address may make a minute, whatever
 * credentials came with them; Zulip itself allows few failed ones per username.
 */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

/** The headroom in calls for a credential whose limit is `limit` (a share rounds up). */
export function headroomCalls(headroom: Headroom, limit: number): number {
  if (typeof headroom === 'number') return headroom;
  return Math.ceil((limit * Number(headroom.slice(0, -1))) / 100);
}

/** Parses a headroom as configured: `N` calls or `P%` of the limit; undefined when malformed. */
export function parseHeadroom(text: string): Headroom | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  if (match[2]) return value <= 100 ? (`${value}%` as const) : undefined;
  return Number.isInteger(value) ? value : undefined;
}

/** Credentials remembered at most; past it the oldest are forgotten (they fall back to the default). */
const MAX_CREDENTIALS = 10_000;

export class UpstreamBudgets {
  readonly #budgets = new Map<string, Budget>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An answer for `credentialKey` advertised its rate limit. */
  observe(credentialKey: string, info: RateLimitInfo): void {
    // Answers of one window can arrive out of order (a long poll answers late): what is left only
    // goes down within a window, so the lowest figure seen is the newest.
    const known = this.#budgets.get(credentialKey);
    const remaining = known && known.resetAt === info.reset ? Math.min(known.remaining, info.remaining) : info.remaining;
    this.#budgets.delete(credentialKey); // re-inserted last: the map stays in recency order
    if (this.#budgets.size >= MAX_CREDENTIALS) this.#budgets.delete(this.#budgets.keys().next().value!);
    this.#budgets.set(credentialKey, { limit: info.limit, remaining, resetAt: info.reset });
  }

  /** Whether the chat server ever advertised `credentialKey`'s budget (servers without the headers: never). */
  known(credentialKey: string): boolean {
    return this.#budgets.has(credentialKey);
  }

  /** What `credentialKey` has left now: the last advertised budget, or Zulip's default once its window has passed or before any answer. */
  get(credentialKey: string): Budget {
    const nowSeconds = this.now() / 1000;
    const known = this.#budgets.get(credentialKey);
    if (known && nowSeconds < known.resetAt) return known;
    const limit = known?.limit ?? ZULIP_DEFAULT_RATE_LIMIT.limit;
    return { limit, remaining: limit, resetAt: Math.ceil(nowSeconds + ZULIP_DEFAULT_RATE_LIMIT.windowSeconds) };
  }
}
