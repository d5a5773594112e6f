/**
 * One session's place in its credential's interest set: the sessions (of any instance) that follow
 * the credential, a Redis sorted set (member: session, score: expiry). The last session out of it
 * deletes the upstream queue (index.ts, #leave).
 */
import { randomBytes } from 'node:crypto';
import type { LeaseTimes } from '../lease.js';
import type { ClusterRedis } from '../redis.js';

export class SessionInterest {
  readonly #key: string;
  /**
   * This session's name in the interest set: the instance's and one of its own, because a session
   * stopping after its grace period and the next one of the same credential on the same instance
   * overlap, and the one leaving must neither remove the other nor count itself.
   */
  readonly #member: string;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The latest interest refresh sent (settled, never rejecting): leaving waits for it. */
  #write: Promise<unknown> = Promise.resolve();
  /** When this session last renewed the interest key's lifetime (0: never). */
  #keyRenewedAt = 0;

  constructor(
    private readonly redis: ClusterRedis,
    leaseKey: string,
    instanceId: string,
    private readonly lease: LeaseTimes,
  ) {
    this.#key = `${leaseKey}:interest`;
    this.#member = `${instanceId}.${randomBytes(6).toString('base64url')}`;
  }

  /**
   * Keeps this session in the credential's interest set until `stopShowing`: its score (an expiry
   * time, two lease lifetimes ahead) is refreshed every two lease retries, and the key's own lifetime
   * (four lease lifetimes) only when half of it may have passed, so that a refresh is usually one ZADD.
   */
  show(): void {
    if (this.#stopped) return;
    const { ttlMs, retryMs } = this.lease;
    const now = Date.now();
    const renewKey = now - this.#keyRenewedAt >= 2 * ttlMs;
    this.#write = this.redis
      .run(async (c) => {
        await c.zadd(this.#key, now + 2 * ttlMs, this.#member);
        if (renewKey) await c.pexpire(this.#key, 4 * ttlMs);
      })
      .then(
        () => renewKey && (this.#keyRenewedAt = now),
        () => undefined,
      );
    this.#timer = setTimeout(() => this.show(), 2 * retryMs);
    this.#timer.unref?.();
  }

  /** No refresh is sent from now on. */
  stopShowing(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /**
   * Leaves the interest set once the refresh in flight has landed (so that no refresh lands after
   * it); whether another session (of any instance) is still in it (true when Redis cannot tell).
   * Leaving and counting the others are one MULTI.
   */
  async leave(): Promise<boolean> {
    this.stopShowing();
    await this.#write;
    try {
      const replies = await this.redis.run((c) =>
        c.multi().zrem(this.#key, this.#member).zremrangebyscore(this.#key, '-inf', Date.now()).zcard(this.#key).exec(),
      );
      const [error, count] = replies?.[2] ?? [new Error('no reply'), 1];
      return error !== null || Number(count) > 0;
    } catch {
      return true;
    }
  }
}
