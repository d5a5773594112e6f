/**
 * The lease that makes one instance the poller of a credential's upstream queue.
 *
 * Taken with `SET key token NX PX ttl`; renewed and released only by its holder, with Lua
 * check-and-set scripts that compare the token first. The token is a fencing value: a counter
 * from Redis (so later holders have larger tokens) and a random part (so two holders never share
 * one, even after Redis lost the counter). Every write of the holder (stream.ts) is refused once the
 * lease belongs to someone else, so a paused or partitioned ex-holder can never write after the new
 * holder started: a write through the script carries the token, and a plain XADD names its entry
 * after the log's end as its writer knew it, which taking or releasing the lease moves beyond reach
 * in the same script (the seal).
 *
 * {@link LeaseKeeper} runs the cycle for one credential: try to take the lease every `retryMs`
 * while someone else holds it, renew every `retryMs` while holding it, and report the loss as soon
 * as a renewal is refused, or when Redis stayed unreachable until the lease may have expired.
 * With the defaults derived from the failover time F (TTL 0.8 F, retries every 0.2 F) a dead
 * holder's lease expires within 0.8 F and a waiting instance takes it within F.
 */
import { randomBytes } from 'node:crypto';
import { streamKeyOfLease } from './keys.js';
import type { ClusterRedis } from './redis.js';
import { SEAL_GAP } from './stream.js';

/**
 * Seals the credential's log (KEYS[stream]), if it exists, for a handover: moves the ids it accepts
 * SEAL_GAP past any it accepted so far, so that a plain XADD of the previous holder (stream.ts),
 * whose ids lie at most that far above the log's end it knew, is refused from now on.
 */
const SEAL = (stream: string) => `
if redis.call('EXISTS', ${stream}) == 1 then
  local info = redis.call('XINFO', 'STREAM', ${stream})
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local used = tonumber(string.match(info[i + 1], '^%d+'))
      redis.call('XSETID', ${stream}, string.format('%.0f', used + ${SEAL_GAP}) .. '-0')
    end
  end
end`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  ${SEAL('KEYS[2]')}
  return 1
end
return 0`;

/** Fencing counter, lease and seal in one step; the counter and the log live beside the lease, in the same slot. */
const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local n = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], 86400000)
local token = n .. '.' .. ARGV[1]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
${SEAL('KEYS[3]')}
return token`;

export interface LeaseTimes {
  /** Lifetime of the lease without renewal. */
  ttlMs: number;
  /** Interval of renewals by the holder and of attempts by the others. */
  retryMs: number;
}

/** Lease timings for a failover time: a dead holder is replaced within `failoverMs`. */
export function leaseTimes(failoverMs: number): LeaseTimes {
  return { ttlMs: Math.round(failoverMs * 0.8), retryMs: Math.max(10, Math.round(failoverMs * 0.2)) };
}

/** Lease commands on one key; every method may throw RedisUnavailableError or RedisCommandError. */
export class Lease {
  /** The log a handover seals (keys.ts `stream` of the same credential). */
  readonly #stream: string;

  constructor(
    private readonly redis: ClusterRedis,
    /** The lease key (keys.ts `lease`). */
    readonly key: string,
    private readonly ttlMs: number,
  ) {
    this.#stream = streamKeyOfLease(key);
  }

  /**
   * Takes the lease if free: its fencing token, or undefined when someone holds it. While it is
   * held (the waiting instances ask every retry interval) the question costs one EXISTS.
   */
  async acquire(): Promise<string | undefined> {
    if ((await this.redis.run((c) => c.exists(this.key))) === 1) return undefined;
    const token = await this.redis.run((c) =>
      c.eval(ACQUIRE, 3, this.key, `${this.key}:fence`, this.#stream, randomBytes(9).toString('base64url'), this.ttlMs),
    );
    return typeof token === 'string' ? token : undefined;
  }

  /** Extends the lease; false when `token` no longer holds it (lost). */
  async renew(token: string): Promise<boolean> {
    return (await this.redis.run((c) => c.eval(RENEW, 1, this.key, token, this.ttlMs))) === 1;
  }

  /** Gives the lease up at once if `token` still holds it (others need not wait for the TTL). */
  async release(token: string): Promise<boolean> {
    return (await this.redis.run((c) => c.eval(RELEASE, 2, this.key, this.#stream, token))) === 1;
  }

  /** The current holder's token, if any. */
  async holder(): Promise<string | undefined> {
    return (await this.redis.run((c) => c.get(this.key))) ?? undefined;
  }
}

export interface LeaseKeeperHandler {
  /** This instance now holds the lease: start polling, fencing every write with `token`. */
  acquired(token: string): void;
  /** The lease is lost (taken over, or unverifiable for too long): stop polling at once. */
  lost(token: string): void;
  /** An attempt found the lease held by another instance (its holder polls the queue). */
  held?(): void;
}

export interface LeaseKeeperOptions extends LeaseTimes {
  /** @default Date.now */
  now?: () => number;
}

/**
 * Keeps trying to hold one lease while started. One attempt (or renewal) at a time; timers are
 * unref'd so a keeper never holds the process open.
 */
export class LeaseKeeper {
  #token: string | undefined;
  /** When the lease held may have expired in Redis, by our clock (renewal sent time + TTL). */
  #validUntil = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #busy: Promise<void> = Promise.resolve();
  readonly #now: () => number;

  constructor(
    private readonly lease: Lease,
    private readonly handler: LeaseKeeperHandler,
    private readonly options: LeaseKeeperOptions,
  ) {
    this.#now = options.now ?? Date.now;
  }

  /** The fencing token while this keeper holds the lease. */
  get token(): string | undefined {
    return this.#token;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops trying; releases the lease if held (so another instance takes over at once). */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#busy;
    const token = this.#token;
    if (token === undefined) return;
    this.#token = undefined;
    this.handler.lost(token);
    try {
      await this.lease.release(token);
    } catch {
      // Redis unreachable: the lease expires on its own within the TTL
    }
  }

  /** Runs one attempt or renewal now (tests; also after a holder learns its write was refused). */
  tick(): Promise<void> {
    return this.#run(true);
  }

  #run(force: boolean): Promise<void> {
    this.#busy = this.#busy.then(() => this.#cycle(force));
    return this.#busy;
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#run(false).then(() => this.#schedule(this.options.retryMs));
    }, delayMs);
    this.#timer.unref?.();
  }

  /**
   * One attempt, or one renewal. A scheduled renewal waits until half of the lease's lifetime may
   * have passed: a failed one is then retried every interval until the lease may lapse, as before,
   * and a dead holder's lease still ends one lifetime after its last renewal.
   */
  async #cycle(force: boolean): Promise<void> {
    if (!this.#running) return;
    const sentAt = this.#now();
    const token = this.#token;
    if (token !== undefined && !force && this.#validUntil - sentAt > this.options.ttlMs / 2) return;
    try {
      if (token === undefined) {
        const acquired = await this.lease.acquire();
        if (acquired === undefined || !this.#running) {
          if (acquired !== undefined) await this.lease.release(acquired).catch(() => undefined);
          else this.handler.held?.();
          return;
        }
        this.#token = acquired;
        this.#validUntil = sentAt + this.options.ttlMs;
        this.handler.acquired(acquired);
      } else if (await this.lease.renew(token)) {
        this.#validUntil = sentAt + this.options.ttlMs;
      } else {
        this.#drop(token);
      }
    } catch {
      // Unreachable: keep polling while the lease is surely ours, give it up before it may lapse.
      if (token !== undefined && this.#now() + this.options.retryMs >= this.#validUntil) this.#drop(token);
    }
  }

  #drop(token: string): void {
    if (this.#token !== token) return;
    this.#token = undefined;
    this.handler.lost(token);
  }
}
