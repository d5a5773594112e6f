/**
 * Each credential's one bucket of upstream calls, shared by everything that calls the chat server
 * with that credential: operations (which reserve their estimate before they run and give back
 * what they did not spend), `@live` re-runs, `@defer` parts, subscription payloads, the event
 * queue's polls and registrations (the live directory's loads). It is a real limit: what it does
 * not grant is never sent (README, "The upstream budget").
 *
 * Zulip limits a user to `limit` calls in any `windowSeconds` (a sliding log: each call counts
 * until `windowSeconds` after it was made; https://zulip.com/api/http-headers). A bucket that refills
 * at a constant rate would let through twice the limit in one window (a full bucket, then a
 * window of refill), so a token here comes back exactly one window after the call that spent it:
 * the bucket keeps the times of the calls it granted and never holds more than the credential's
 * share (`limit` less the headroom kept for the user's other clients). A small class rather than a
 * library (bottleneck's reservoirs refill all at once on an interval, which has the same fault,
 * and cannot take the corrections below): the bucket needs Zulip's exact window and two
 * corrections from the chat server's own answers:
 *
 * - `X-RateLimit-Limit` sets the limit; `X-RateLimit-Remaining` lower than the bucket believes
 *   means calls it did not see (the user's other clients): they are counted, from now;
 * - a 429 empties the bucket until its `Retry-After` (or the advertised reset).
 *
 * Calls are counted when they are sent (`spend`), so a reservation made early does not return its
 * tokens before the chat server forgets the calls.
 */
import { headroomCalls, ZULIP_DEFAULT_RATE_LIMIT, type Headroom } from './budget.js';

/** Time and timers, injected so tests drive the window by hand. */
export interface BucketClock {
  /** Milliseconds since the Unix epoch (the clock the chat server's headers use). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemBucketClock: BucketClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What a rate-limited answer said (zulip/connection.ts `RateLimitInfo`). */
export interface Advertised {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

/** Tokens set aside for one operation (or one re-run, one subscription event): its calls spend them. */
export interface Reservation {
  /** Tokens still set aside. */
  readonly left: number;
  /** One call is sent: a token of the reservation, or of the bucket once the reservation is spent. */
  spend(): void;
  /** Gives back what was not spent; later calls spend the bucket directly. Idempotent. */
  release(): void;
  /** Whether release() was called. */
  readonly released: boolean;
}

/** Why `reserve` refused: how long until the tokens asked for are back. */
export interface Shortfall {
  /** Tokens the bucket can grant now. */
  available: number;
  /** Milliseconds until `calls` tokens are available; Infinity when they never will be (over the share). */
  retryAfterMs: number;
  /** The share (tokens one window holds). */
  share: number;
}

export interface BucketOptions {
  headroom: Headroom;
  clock?: BucketClock;
  /** The limit until an answer advertises one. @default Zulip's 200 calls a minute */
  limit?: number;
}

export class CredentialBucket {
  /** Times (ms) of the calls counted in the current window, oldest first. */
  readonly #log: number[] = [];
  #pending = 0;
  #blockedUntil = 0;
  #limit: number = ZULIP_DEFAULT_RATE_LIMIT.limit;
  readonly #windowMs = ZULIP_DEFAULT_RATE_LIMIT.windowSeconds * 1000;
  readonly #waiters: { calls: number; grant: (reservation: Reservation) => void }[] = [];
  #timer: unknown = undefined;

  constructor(
    private readonly headroom: Headroom,
    private readonly clock: BucketClock,
    limit?: number,
  ) {
    if (limit !== undefined) this.#limit = limit;
  }

  /** The most calls one window may hold for this credential: its limit less the headroom. */
  get share(): number {
    return Math.max(0, this.#limit - headroomCalls(this.headroom, this.#limit));
  }

  /** Tokens that can be granted now. */
  available(): number {
    const now = this.clock.now();
    if (now < this.#blockedUntil) return 0;
    this.#expire(now);
    return this.share - this.#log.length - this.#pending;
  }

  /** Milliseconds until `calls` tokens are available (0: now; Infinity: never, over the share). */
  retryAfterMs(calls: number): number {
    const now = this.clock.now();
    this.#expire(now);
    if (calls > this.share) return Number.POSITIVE_INFINITY;
    const blocked = Math.max(0, this.#blockedUntil - now);
    const missing = this.#log.length + this.#pending + calls - this.share;
    if (missing <= 0) return blocked;
    // The `missing` oldest calls must leave the window; pending tokens come back only when released.
    const oldest = this.#log[missing - 1];
    return Math.max(blocked, oldest === undefined ? this.#windowMs : oldest + this.#windowMs - now);
  }

  /** Sets `calls` tokens aside now, or says when they will be there. 0 calls are always granted. */
  reserve(calls: number): Reservation | Shortfall {
    if (calls > 0 && (this.#waiters.length > 0 || this.available() < calls)) {
      return { available: Math.max(0, this.available()), retryAfterMs: this.retryAfterMs(calls), share: this.share };
    }
    return this.#grant(calls);
  }

  /**
   * Sets `calls` tokens aside as soon as they are there, in turn with the other waiters (never
   * dropped; what waits behind a waiter stays behind it). Calls over the share wait for the whole
   * share.
   */
  acquire(calls: number): Promise<Reservation> {
    const wanted = Math.min(calls, this.share);
    const now = this.reserve(wanted);
    if ('spend' in now) return Promise.resolve(now);
    return new Promise((grant) => {
      this.#waiters.push({ calls: wanted, grant });
      this.#schedule();
    });
  }

  /** Counts `calls` at once (what an anonymous operation may make: its address's bucket). */
  charge(calls: number): Reservation | Shortfall {
    const granted = this.reserve(calls);
    if (!('spend' in granted)) return granted;
    for (let i = 0; i < calls; i++) granted.spend();
    granted.release();
    return granted;
  }

  /** Counts one call sent outside any reservation (a call the bucket could not gate). */
  record(): void {
    this.#log.push(this.clock.now());
  }

  /** The chat server's answer advertised the credential's rate limit. */
  observe(advertised: Advertised): void {
    if (advertised.limit > 0) this.#limit = advertised.limit;
    const now = this.clock.now();
    this.#expire(now);
    // Calls the server counted that this bucket did not see (another client of the user) are
    // counted from now: later than they were made, so they leave the window no sooner than Zulip forgets them.
    const unseen = advertised.limit - advertised.remaining - this.#log.length;
    for (let i = 0; i < unseen; i++) this.#log.push(now);
    this.#schedule();
  }

  /** The chat server answered 429: nothing more until `retryAfterSeconds` (else its whole window). */
  drain(retryAfterSeconds: number | undefined): void {
    const ms = retryAfterSeconds === undefined ? this.#windowMs : retryAfterSeconds * 1000;
    this.#blockedUntil = Math.max(this.#blockedUntil, this.clock.now() + ms);
    this.#schedule();
  }

  /** Nothing waits and nothing is counted: the bucket can be forgotten. */
  idle(): boolean {
    this.#expire(this.clock.now());
    return this.#log.length === 0 && this.#pending === 0 && this.#waiters.length === 0;
  }

  /** Ends the timer (the gateway closes); waiters stay pending. */
  close(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #grant(calls: number): Reservation {
    this.#pending += calls;
    let left = calls;
    let released = false;
    const bucket = this;
    return {
      get left() {
        return left;
      },
      get released() {
        return released;
      },
      spend() {
        if (left > 0 && !released) {
          left--;
          bucket.#pending--;
        }
        bucket.#log.push(bucket.clock.now());
      },
      release() {
        if (released) return;
        released = true;
        bucket.#pending -= left;
        left = 0;
        bucket.#wake();
      },
    };
  }

  #expire(now: number): void {
    const horizon = now - this.#windowMs;
    let drop = 0;
    while (drop < this.#log.length && this.#log[drop]! <= horizon) drop++;
    if (drop > 0) this.#log.splice(0, drop);
  }

  #wake(): void {
    while (this.#waiters.length > 0) {
      const first = this.#waiters[0]!;
      if (this.available() < first.calls) break;
      this.#waiters.shift();
      first.grant(this.#grant(first.calls));
    }
    this.#schedule();
  }

  /** A timer for the moment the first waiter can be granted. */
  #schedule(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const first = this.#waiters[0];
    if (!first) return;
    const wait = this.retryAfterMs(first.calls);
    if (wait === 0) {
      queueMicrotask(() => this.#wake());
      return;
    }
    if (!Number.isFinite(wait)) return; // pending tokens must be released first: release() wakes
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#wake();
    }, wait);
  }
}

/** Credentials remembered at most; past it idle buckets are forgotten first. */
const MAX_BUCKETS = 10_000;

/** Every credential's bucket, by credential key (an HMAC, never the credential). */
export class UpstreamBuckets {
  readonly #buckets = new Map<string, CredentialBucket>();
  readonly clock: BucketClock;

  constructor(private readonly options: BucketOptions) {
    this.clock = options.clock ?? systemBucketClock;
  }

  /** The credential's bucket, made on first use. */
  for(credentialKey: string): CredentialBucket {
    let bucket = this.#buckets.get(credentialKey);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#forgetIdle();
      bucket = new CredentialBucket(this.options.headroom, this.clock, this.options.limit);
      this.#buckets.set(credentialKey, bucket);
    }
    return bucket;
  }

  /** Whether a bucket exists for the credential (nothing is made). */
  peek(credentialKey: string): CredentialBucket | undefined {
    return this.#buckets.get(credentialKey);
  }

  close(): void {
    for (const bucket of this.#buckets.values()) bucket.close();
  }

  #forgetIdle(): void {
    for (const [key, bucket] of this.#buckets) if (bucket.idle()) this.#buckets.delete(key);
  }
}
