/**
 * Sessions in Redis (cluster mode), so that any instance serves any session. Per session, one hash
 * `<prefix>session:<token hash>` with `created`, `seen`, `sealed` (AES-256-GCM, crypto.ts) and
 * `credentials` (keyed ids), expiring with the session; per credential, a set
 * `<prefix>session-holders:<credential id>` of the sessions holding it, for revocations. No key or
 * value holds a token, an email or an API key in the clear.
 */
import type { ClusterRedis } from '../cluster/redis.js';
import type { SessionStore, StoredSession } from './store.js';

/** How long a holders set outlives its last write: the longest a session can live. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: ClusterRedis,
    private readonly prefix: string,
    /** The longest a session lives (SESSION_MAX): how long a holders set is kept after its last write. */
    private readonly maxMs: number,
  ) {}

  async get(hash: string): Promise<StoredSession | undefined> {
    const fields = await this.redis.run((c) => c.hgetall(this.#session(hash)));
    if (!fields.sealed || !fields.created || !fields.seen) return undefined;
    return {
      created: Number(fields.created),
      seen: Number(fields.seen),
      sealed: fields.sealed,
      credentials: fields.credentials ? fields.credentials.split(',') : [],
    };
  }

  async put(hash: string, session: StoredSession, ttlMs: number): Promise<void> {
    const key = this.#session(hash);
    await this.redis.run((c) => {
      const batch = c
        .multi()
        .del(key)
        .hset(key, { created: session.created, seen: session.seen, sealed: session.sealed, credentials: session.credentials.join(',') })
        .pexpire(key, Math.max(1, Math.ceil(ttlMs)));
      for (const credential of session.credentials) {
        batch.sadd(this.#holders(credential), hash).pexpire(this.#holders(credential), this.maxMs);
      }
      return batch.exec();
    });
  }

  async touch(hash: string, seen: number, ttlMs: number): Promise<void> {
    const key = this.#session(hash);
    // Only an existing session: a touch racing a signOut must not bring back a shell of it.
    await this.redis.run((c) =>
      c.eval(
        "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'seen', ARGV[1]); redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0",
        1,
        key,
        String(seen),
        String(Math.max(1, Math.ceil(ttlMs))),
      ),
    );
  }

  async delete(hash: string): Promise<void> {
    await this.redis.run((c) => c.del(this.#session(hash)));
  }

  async holders(credential: string): Promise<string[]> {
    return this.redis.run((c) => c.smembers(this.#holders(credential)));
  }

  #session(hash: string): string {
    return `${this.prefix}session:${hash}`;
  }

  #holders(credential: string): string {
    return `${this.prefix}session-holders:${credential}`;
  }
}
