/**
 * Where sessions are kept: {@link MemorySessionStore} with one instance, {@link RedisSessionStore}
 * (redis-store.ts) in cluster mode, so that any instance serves any session. A store holds only
 * what sessions.ts gives it: the token's hash as the key, the times, the sealed record (crypto.ts)
 * and the keyed ids of the credentials inside, so it never sees a token, an email or an API key.
 */

/** One session as a store holds it. */
export interface StoredSession {
  /** When it was created (ms since the epoch, the sessions' clock). */
  created: number;
  /** When it was last used (ms), for the idle expiry. */
  seen: number;
  /** Its accounts, sealed (crypto.ts). */
  sealed: string;
  /** The credential ids (crypto.ts `credentialId`) of its accounts, to find it on a revocation. */
  credentials: string[];
}

export interface SessionStore {
  get(hash: string): Promise<StoredSession | undefined>;
  /** Creates or replaces the session, which expires from the store after `ttlMs`. */
  put(hash: string, session: StoredSession, ttlMs: number): Promise<void>;
  /** Records a use: `seen` and a new expiry. Does nothing when the session is gone. */
  touch(hash: string, seen: number, ttlMs: number): Promise<void>;
  delete(hash: string): Promise<void>;
  /** The sessions that held `credential` when they were last written (some may be gone since). */
  holders(credential: string): Promise<string[]>;
}

/**
 * Sessions in this process's memory. Expired sessions are dropped when read, and swept when the
 * store is written (bounded work: at most a few per write), so an idle gateway holds no timer.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, { session: StoredSession; expires: number }>();
  readonly #holders = new Map<string, Set<string>>();

  constructor(private readonly now: () => number) {}

  async get(hash: string): Promise<StoredSession | undefined> {
    const entry = this.#sessions.get(hash);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#drop(hash);
      return undefined;
    }
    return entry.session;
  }

  async put(hash: string, session: StoredSession, ttlMs: number): Promise<void> {
    this.#sweep();
    this.#drop(hash);
    this.#sessions.set(hash, { session, expires: this.now() + ttlMs });
    for (const credential of session.credentials) {
      let holders = this.#holders.get(credential);
      if (!holders) this.#holders.set(credential, (holders = new Set()));
      holders.add(hash);
    }
  }

  async touch(hash: string, seen: number, ttlMs: number): Promise<void> {
    const entry = this.#sessions.get(hash);
    if (!entry) return;
    entry.session = { ...entry.session, seen };
    entry.expires = this.now() + ttlMs;
    // Last in insertion order, so the sweep below meets the least recently used first.
    this.#sessions.delete(hash);
    this.#sessions.set(hash, entry);
  }

  async delete(hash: string): Promise<void> {
    this.#drop(hash);
  }

  async holders(credential: string): Promise<string[]> {
    return [...(this.#holders.get(credential) ?? [])];
  }

  /** How many sessions are held (expired ones not yet swept included), for tests and metrics. */
  get size(): number {
    return this.#sessions.size;
  }

  #drop(hash: string): void {
    const entry = this.#sessions.get(hash);
    if (!entry) return;
    this.#sessions.delete(hash);
    for (const credential of entry.session.credentials) {
      const holders = this.#holders.get(credential);
      holders?.delete(hash);
      if (holders?.size === 0) this.#holders.delete(credential);
    }
  }

  /** Drops a few of the oldest-inserted sessions if expired: amortised cleaning without a timer. */
  #sweep(): void {
    const now = this.now();
    let looked = 0;
    for (const [hash, entry] of this.#sessions) {
      if (looked++ >= 4) break;
      if (entry.expires <= now) this.#drop(hash);
    }
  }
}
