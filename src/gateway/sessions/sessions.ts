/**
 * Server-side sessions (docs/sessions.md): a browser holds an HttpOnly cookie, a non-browser client
 * a bearer token; either is a random token, and the API keys it stands for stay on the gateway.
 *
 * A session holds an ordered list of accounts, each `{ id, server, email, credential }`; with one
 * account, a request on the session behaves as if that credential had come in
 * `Authorization: Basic`. Sessions expire after `idleMs` without use (SESSION_IDLE) and `maxMs`
 * after sign-in whatever the use (SESSION_MAX). A credential the chat server refuses
 * (revocation.ts) is removed from every session holding it; the session remembers which account
 * went, so its client is told (ACCOUNT_REVOKED).
 *
 * The store (store.ts, redis-store.ts) holds only the token's keyed hash, the times, the sealed
 * record and keyed credential ids: crypto.ts.
 */
import type { Credentials } from '../../zulip/credentials.js';
import { createSessionCrypto, isTokenShape, type SessionCrypto } from './crypto.js';
import { MemorySessionStore, type SessionStore, type StoredSession } from './store.js';

/** How long a session lives without use by default (SESSION_IDLE): 7 days. */
export const DEFAULT_SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** How long a session lives after sign-in at most by default (SESSION_MAX): 30 days. */
export const DEFAULT_SESSION_MAX_MS = 30 * 24 * 3600_000;

/** An account of a session, as the code that builds its connection sees it. */
export interface SessionAccount {
  /** Opaque, stable within its session. */
  readonly id: string;
  /** The chat server's origin, e.g. `https://chat.example.com`. */
  readonly server: string;
  readonly email: string;
  /** The decrypted credential, for this account's connection only. */
  credentials(): Credentials;
}

/** An account the chat server refused, removed from the session (told to the client once asked). */
export interface RevokedAccount {
  readonly id: string;
  readonly server: string;
  readonly email: string;
}

/** The session of a request. */
export interface RequestSession {
  /** The token's keyed hash: names the session in the store and in logs, never usable as a cookie. */
  readonly id: string;
  readonly accounts: readonly SessionAccount[];
  /** Accounts removed because the chat server refused their credential. */
  readonly revoked: readonly RevokedAccount[];
  /** When the session ends at the latest (ms since the epoch), whatever its use. */
  readonly expiresAt: number;
}

/** What a session holds, sealed (crypto.ts) before it reaches the store. */
interface SealedRecord {
  accounts: { id: string; server: string; email: string; apiKey: string }[];
  revoked: RevokedAccount[];
}

/** An account to add: the credential already checked upstream. */
export interface NewAccount {
  server: string;
  email: string;
  apiKey: string;
}

export interface SessionsOptions {
  /** GATEWAY_SECRET; without it (one instance only), a random key that dies with the process. */
  secret?: string;
  /** @default DEFAULT_SESSION_IDLE_MS */
  idleMs?: number;
  /** @default DEFAULT_SESSION_MAX_MS */
  maxMs?: number;
  /** The clock (ms since the epoch); tests inject theirs. @default Date.now */
  now?: () => number;
  /** @default a MemorySessionStore */
  store?: SessionStore;
}

/** Why a session's subscriptions end: signed out, or an account removed from it. */
export type SessionChange = { session: string; reason: 'signed-out' | 'account-removed' | 'account-revoked'; accountId?: string };

export class Sessions {
  readonly idleMs: number;
  readonly maxMs: number;
  readonly store: SessionStore;
  readonly #crypto: SessionCrypto;
  readonly #now: () => number;
  readonly #listeners = new Set<(change: SessionChange) => void>();
  /** A use is written to the store at most this often per session (a write per request would double Redis traffic). */
  readonly #touchEveryMs: number;

  constructor(options: SessionsOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.maxMs = options.maxMs ?? DEFAULT_SESSION_MAX_MS;
    if (!(this.idleMs > 0) || !(this.maxMs > 0)) throw new Error('Session lifetimes must be positive.');
    this.#now = options.now ?? Date.now;
    this.#crypto = createSessionCrypto(options.secret);
    this.store = options.store ?? new MemorySessionStore(this.#now);
    this.#touchEveryMs = Math.min(60_000, Math.floor(this.idleMs / 10));
  }

  /** Opens a session of `accounts`; answers its token (the only copy: the store keeps its hash). */
  async create(accounts: readonly NewAccount[]): Promise<{ token: string; session: RequestSession }> {
    const token = this.#crypto.newToken();
    const hash = this.#crypto.hashToken(token);
    const now = this.#now();
    const record: SealedRecord = { accounts: accounts.map((a) => ({ id: this.#crypto.newAccountId(), ...a })), revoked: [] };
    await this.#write(hash, record, now, now);
    return { token, session: this.#view(hash, record, now) };
  }

  /** The session of `token`; undefined when it is malformed, unknown, expired or does not open. */
  async resolve(token: string): Promise<RequestSession | undefined> {
    if (!isTokenShape(token)) return undefined;
    const hash = this.#crypto.hashToken(token);
    const found = await this.#read(hash);
    if (!found) return undefined;
    const now = this.#now();
    if (now - found.stored.seen >= this.#touchEveryMs) await this.store.touch(hash, now, this.#ttl(found.stored.created, now));
    return this.#view(hash, found.record, found.stored.created);
  }

  /** Ends the session of `token` (signOut): gone from the store, so from every instance. */
  async end(token: string): Promise<boolean> {
    if (!isTokenShape(token)) return false;
    const hash = this.#crypto.hashToken(token);
    if (!(await this.#read(hash))) return false;
    await this.store.delete(hash);
    this.#tell({ session: hash, reason: 'signed-out' });
    return true;
  }

  /** Adds an account to the session `id`; undefined when the session is gone. */
  async addAccount(id: string, account: NewAccount): Promise<{ session: RequestSession; accountId: string } | undefined> {
    const found = await this.#read(id);
    if (!found) return undefined;
    const same = found.record.accounts.find((a) => a.server === account.server && a.email === account.email);
    const accountId = same?.id ?? this.#crypto.newAccountId();
    // The same account signed in again replaces its credential in place (a new key), keeping its id.
    const accounts = same
      ? found.record.accounts.map((a) => (a === same ? { ...a, apiKey: account.apiKey } : a))
      : [...found.record.accounts, { id: accountId, ...account }];
    const record: SealedRecord = { accounts, revoked: found.record.revoked.filter((r) => !(r.server === account.server && r.email === account.email)) };
    await this.#write(id, record, found.stored.created, this.#now());
    return { session: this.#view(id, record, found.stored.created), accountId };
  }

  /** Removes an account from the session `id`; false when the session does not hold it. */
  async removeAccount(id: string, accountId: string): Promise<RequestSession | undefined> {
    const found = await this.#read(id);
    if (!found || !found.record.accounts.some((a) => a.id === accountId)) return undefined;
    const record: SealedRecord = { accounts: found.record.accounts.filter((a) => a.id !== accountId), revoked: found.record.revoked };
    await this.#write(id, record, found.stored.created, this.#now());
    this.#tell({ session: id, reason: 'account-removed', accountId });
    return this.#view(id, record, found.stored.created);
  }

  /**
   * The chat server refused this credential (revocation.ts): it leaves every session holding it,
   * each remembering which account went. Answers how many sessions changed.
   */
  async revokeCredential(server: string, credentials: Credentials): Promise<number> {
    const credential = this.#crypto.credentialId(server, credentials.email, credentials.apiKey);
    let changed = 0;
    for (const hash of await this.store.holders(credential)) {
      const found = await this.#read(hash);
      if (!found) continue;
      const gone = found.record.accounts.filter((a) => a.server === server && a.email === credentials.email && a.apiKey === credentials.apiKey);
      if (gone.length === 0) continue;
      const record: SealedRecord = {
        accounts: found.record.accounts.filter((a) => !gone.includes(a)),
        revoked: [...found.record.revoked, ...gone.map(({ id, email }) => ({ id, server, email }))],
      };
      await this.#write(hash, record, found.stored.created, found.stored.seen);
      for (const account of gone) this.#tell({ session: hash, reason: 'account-revoked', accountId: account.id });
      changed++;
    }
    return changed;
  }

  /** Told of each session signed out or changed on this instance; returns its removal. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The session's record, when it exists, has not expired and opens; an expired one is deleted. */
  async #read(hash: string): Promise<{ stored: StoredSession; record: SealedRecord } | undefined> {
    const stored = await this.store.get(hash);
    if (!stored) return undefined;
    const now = this.#now();
    if (now - stored.seen >= this.idleMs || now - stored.created >= this.maxMs) {
      await this.store.delete(hash);
      return undefined;
    }
    const record = this.#crypto.open(hash, stored.sealed) as SealedRecord | undefined;
    return record && Array.isArray(record.accounts) ? { stored, record } : undefined;
  }

  async #write(hash: string, record: SealedRecord, created: number, seen: number): Promise<void> {
    const credentials = record.accounts.map((a) => this.#crypto.credentialId(a.server, a.email, a.apiKey));
    await this.store.put(hash, { created, seen, sealed: this.#crypto.seal(hash, record), credentials }, this.#ttl(created, seen));
  }

  /** How long the store keeps a session used at `seen`: the idle time, never past the absolute end. */
  #ttl(created: number, seen: number): number {
    return Math.max(1, Math.min(this.idleMs, created + this.maxMs - seen));
  }

  #view(hash: string, record: SealedRecord, created: number): RequestSession {
    return {
      id: hash,
      accounts: record.accounts.map(({ id, server, email, apiKey }) => ({ id, server, email, credentials: () => ({ email, apiKey }) })),
      revoked: record.revoked,
      expiresAt: created + this.maxMs,
    };
  }

  #tell(change: SessionChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
