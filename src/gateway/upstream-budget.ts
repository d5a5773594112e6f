/**
 * Each credential's upstream budget, as the chat server advertises it on every answer
 * (X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset: https://zulip.com/api/http-headers),
 * so that the gateway can say what is left (response `extensions.upstreamBudget`) and never be the
 * one spending a user's whole budget. Until a credential's first answer, Zulip's default applies.
 * Keyed by the credential's HMAC key (ZulipConnection.credentialKey), never the credential.
 */
import type { RateLimitInfo } from '../zulip/connection.js';

/** Zulip's default API rate limit: 200 calls per user per minute. */
export const ZULIP_DEFAULT_RATE_LIMIT = { limit: 200, windowSeconds: 60 } as const;

export interface Budget {
  limit: number;
  remaining: number;
  /** When the window resets, in Unix seconds. */
  resetAt: number;
}

/** Credentials remembered at most; past it the oldest are forgotten (they fall back to the default). */
const MAX_CREDENTIALS = 10_000;

export class UpstreamBudgets {
  readonly #budgets = new Map<string, Budget>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An answer for `credentialKey` advertised its rate limit. */
  observe(credentialKey: string, info: RateLimitInfo): void {
    this.#budgets.delete(credentialKey); // re-inserted last: the map stays in recency order
    if (this.#budgets.size >= MAX_CREDENTIALS) this.#budgets.delete(this.#budgets.keys().next().value!);
    this.#budgets.set(credentialKey, { limit: info.limit, remaining: info.remaining, resetAt: info.reset });
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
