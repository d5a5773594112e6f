/**
 * Revocation: a credential the chat server no longer accepts stops being served from anything the
 * gateway holds for it, at once, on every instance.
 *
 * What makes a credential refused, and how soon the gateway knows:
 * - a 401 from the chat server on any path (a request's call, its event queue's registration or
 *   poll, a check below): at once;
 * - `regenerateApiKey` through the gateway (the old key), `deactivateUser` / `deactivateOwnUser`
 *   through it (every credential of that user): at once;
 * - Zulip's events, on the queue of any credential this instance follows: a user deactivated
 *   (`realm_user` op `update` with `is_active: false`, since feature level 222; `realm_bot` the
 *   same for a bot) refuses every credential of that user; a user removed (`realm_user` op
 *   `remove`: deactivated before feature level 222, made inaccessible since) and a bot's key
 *   regenerated (`realm_bot` op `update` with `api_key`, sent to its owner and the administrators)
 *   check each credential of that user upstream at once (the new key passes, the old one is refused);
 * - nothing else: Zulip sends no event when a human regenerates their key elsewhere (its web app),
 *   so each credential this instance follows is checked upstream (`GET /users/me`) at least every
 *   `recheckMs` (CREDENTIAL_RECHECK_S), unless a call of its own succeeded meanwhile; one whose last
 *   check is older than that (the budget was short, the server unreachable) is not served from the
 *   directory until a check succeeds.
 *
 * Refusing a credential (`#purge`) drops its live directory and message windows
 * (directory/live.ts), ends its session (events/hub.ts `revoke`): its GraphQL subscriptions and
 * `@live` queries end with UNAUTHENTICATED; in cluster mode its registration snapshot, log and queue
 * state leave Redis and the other instances are told (cluster/cluster.ts), which do the same. For
 * `recheckMs` after, the credential is not served from a directory again (nor a session opened for
 * it) unless one of its calls succeeds (a reactivated user).
 *
 * Credentials are followed by their session key (never the key itself); a user's credentials are
 * known by the `user_id` of their queue's registration or check.
 */
import type { ResponseInfo, ZulipConnection } from '../zulip/connection.js';
import { ZulipErrorCode } from '../zulip/error-codes.js';
import { isAuthError, ZulipApiError } from '../zulip/errors.js';
import { getOwnUser } from '../zulip/routes/users.js';
import type { ClusterRevocation, EventCluster } from './cluster/cluster.js';
import { systemDirectoryClock, type DirectoryClock } from './directory/counters.js';
import type { LiveDirectories } from './directory/live.js';
import { sessionKey, type EventHub } from './events/hub.js';
import type { RawEvent } from './events/model.js';
import type { EventSession } from './events/session.js';

/** How often, at most, a followed credential goes unchecked upstream by default (CREDENTIAL_RECHECK_S). */
export const DEFAULT_CREDENTIAL_RECHECK_MS = 60_000;

/** Two instances learning the same user event (each from its own queues) publish it once within this. */
const USER_EVENT_DEDUP_MS = 2_000;

/** What a subscription or live query ending this way tells its client. */
const REVOKED_MESSAGE = 'The chat server no longer accepts these credentials (a regenerated API key or a deactivated user); the subscription has ended.';

export interface CredentialRevocationsOptions {
  hub: EventHub;
  directories: LiveDirectories | undefined;
  /** The gateway's connection (no credentials, no request counters): checks go through it. */
  connection: ZulipConnection;
  /** @default DEFAULT_CREDENTIAL_RECHECK_MS */
  recheckMs?: number;
  clock?: DirectoryClock;
  /**
   * Counts a check's call in the credential's budget (upstream/bucket.ts): false, and the check
   * waits, when the budget has none left, unless `anyway` (an event asked for it; it is counted).
   * @default always
   */
  spendCall?: (credentialKey: string, anyway: boolean) => boolean;
}

/** A credential this instance follows (it has an event session for it). */
interface Followed {
  session: EventSession;
  /** Its credentials over the gateway's connection. */
  connection: ZulipConnection;
  userId: number | undefined;
  /** When the chat server last accepted it (the start of a call that succeeded), on this instance's clock. */
  verifiedAt: number;
  checking: boolean;
  /** Its id in Redis (cluster mode). */
  clusterId: string | undefined;
}

export class CredentialRevocations {
  readonly #followed = new Map<string, Followed>();
  /** Session key → when it was refused. */
  readonly #revoked = new Map<string, number>();
  /** `action userId` → when this instance last published it. */
  readonly #published = new Map<string, number>();
  readonly #clock: DirectoryClock;
  readonly #recheckMs: number;
  readonly #tickMs: number;
  readonly #cluster: EventCluster | undefined;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #purgeListeners = new Set<(connection: ZulipConnection) => void>();
  #timer: unknown;
  #closed = false;

  constructor(private readonly options: CredentialRevocationsOptions) {
    this.#clock = options.clock ?? systemDirectoryClock;
    this.#recheckMs = options.recheckMs ?? DEFAULT_CREDENTIAL_RECHECK_MS;
    // Checked within recheckMs of the last acceptance: a tick a sixth of it apart (at most 5 s).
    this.#tickMs = Math.min(5_000, Math.max(50, Math.floor(this.#recheckMs / 6)));
    this.#cluster = options.hub.cluster;
    this.#unsubscribe.push(
      options.hub.addTap({ opened: (key, session, connection) => this.#follow(key, session, connection) }),
      options.hub.onRefused((connection) => this.refused(connection)),
    );
    if (this.#cluster) this.#unsubscribe.push(this.#cluster.onRevocation((revocation) => this.#remote(revocation)));
    this.#schedule();
  }

  /**
   * An answer to a call made with `connection`'s credentials: a 401 refuses the credential; any
   * other answer but a 5xx or 429 shows the server accepted it when the call started.
   */
  observed(connection: ZulipConnection, info: ResponseInfo): void {
    if (info.status === 401) return this.refused(connection);
    if (info.status < 500 && info.status !== 429) this.#verified(sessionKey(connection), this.#clock.now() - info.durationMs);
  }

  /** The chat server refused `connection`'s credential (or it was regenerated through the gateway). */
  refused(connection: ZulipConnection): void {
    if (!connection.credentials || this.#closed) return;
    const key = sessionKey(connection);
    const known = this.#revoked.get(key);
    const again = known !== undefined && this.#clock.now() - known < this.#recheckMs;
    this.#purge(key, connection);
    // Its later requests (each answered 401 upstream) need not tell the cluster again.
    if (!again && this.#cluster) void this.#cluster.revokeCredential(connection.baseUrl, connection.credentials).catch(() => undefined);
  }

  /** `connection`'s own user was deactivated (deactivateOwnUser): this credential and every other of the user. */
  refusedOwner(connection: ZulipConnection): void {
    const userId = this.#followed.get(sessionKey(connection))?.userId;
    this.refused(connection);
    if (userId !== undefined) this.revokeUser(userId);
  }

  /** A user was deactivated: every credential of theirs is refused, here and on the other instances. */
  revokeUser(userId: number, publish = true): void {
    // Each as refused: in cluster mode its keys leave Redis too.
    for (const followed of [...this.#followed.values()]) if (followed.userId === userId) this.refused(followed.connection);
    if (publish) this.#publishUser(userId, 'revoke');
  }

  /** A user's credentials may have changed (a regenerated bot key): check each upstream now, here and on the other instances. */
  checkUser(userId: number, publish = true): void {
    for (const followed of this.#followed.values()) if (followed.userId === userId) void this.#check(followed, true);
    if (publish) this.#publishUser(userId, 'check');
  }

  /**
   * Whether what the gateway holds for a credential (by session key) may be served: not while it
   * is refused, nor while its last acceptance upstream is older than `recheckMs` (and a tick).
   */
  trusted(key: string): boolean {
    const now = this.#clock.now();
    const revoked = this.#revoked.get(key);
    if (revoked !== undefined && now - revoked < this.#recheckMs) return false;
    const followed = this.#followed.get(key);
    return !followed || now - followed.verifiedAt <= this.#recheckMs + this.#tickMs;
  }

  /**
   * Told whenever a credential is purged here (its own 401s and checks, and those other instances
   * publish for credentials it follows): its change log (sync/logs.ts) and the sessions holding it
   * (sessions/sessions.ts) go with it. Returns its removal.
   */
  onPurged(listener: (connection: ZulipConnection) => void): () => void {
    this.#purgeListeners.add(listener);
    return () => this.#purgeListeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    this.#purgeListeners.clear();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#followed.clear();
  }

  #follow(key: string, session: EventSession, connection: ZulipConnection): void {
    if (!connection.credentials || this.#closed) return;
    const followed: Followed = {
      session,
      connection: this.options.connection.withCredentials(connection.credentials),
      userId: this.#followed.get(key)?.userId,
      // Its queue registers now, which the server refuses (a 401, refused above) or accepts.
      verifiedAt: this.#clock.now(),
      checking: false,
      clusterId: this.#cluster?.credentialId(connection.baseUrl, connection.credentials),
    };
    this.#followed.set(key, followed);
    session.listen({
      registered: (result) => {
        const userId = (result as { user_id?: unknown }).user_id;
        if (typeof userId === 'number') followed.userId = userId;
      },
      events: (events) => this.#scan(events),
    });
  }

  /** Zulip's events that refuse a user's credentials, or call for checking them (see the header). */
  #scan(events: readonly RawEvent[]): void {
    for (const event of events) {
      if (event.type !== 'realm_user' && event.type !== 'realm_bot') continue;
      const subject = (event.type === 'realm_user' ? event.person : event.bot) as { user_id?: unknown; is_active?: unknown; api_key?: unknown } | undefined;
      const userId = subject?.user_id;
      if (typeof userId !== 'number') continue;
      if (event.op === 'update' && subject!.is_active === false) this.revokeUser(userId);
      else if (event.op === 'remove' || event.op === 'delete' || (event.op === 'update' && subject!.api_key !== undefined)) this.checkUser(userId);
    }
  }

  #remote(revocation: ClusterRevocation): void {
    if ('credential' in revocation) {
      for (const [key, followed] of [...this.#followed]) if (followed.clusterId === revocation.credential) this.#purge(key, followed.connection);
      return;
    }
    if (revocation.server !== this.options.connection.baseUrl) return;
    if (revocation.action === 'revoke') this.revokeUser(revocation.userId, false);
    else this.checkUser(revocation.userId, false);
  }

  #publishUser(userId: number, action: 'revoke' | 'check'): void {
    if (!this.#cluster) return;
    const now = this.#clock.now();
    const id = `${action} ${userId}`;
    const last = this.#published.get(id);
    if (last !== undefined && now - last < USER_EVENT_DEDUP_MS) return;
    this.#published.set(id, now);
    void this.#cluster.revokeUser(this.options.connection.baseUrl, userId, action).catch(() => undefined);
  }

  /** Drops everything held for the credential, and ends its session. */
  #purge(key: string, connection: ZulipConnection): void {
    this.#revoked.set(key, this.#clock.now());
    this.#followed.delete(key);
    this.options.directories?.purge(connection);
    for (const listener of this.#purgeListeners) listener(connection);
    // As the chat server answers such a credential: 401, so that whoever waits on its session (a
    // graphql-ws connection_init, a subscription) is refused as if its own call had been. After the
    // current turn: when the 401 was the session's own registration, it fails with the server's
    // own code first (the revocation then finds the session gone).
    const refusal = new ZulipApiError('revocation', { httpStatus: 401, code: ZulipErrorCode.unauthorized, msg: REVOKED_MESSAGE });
    setImmediate(() => void this.options.hub.revoke(connection, refusal));
  }

  #verified(key: string, at: number): void {
    this.#revoked.delete(key);
    const followed = this.#followed.get(key);
    if (followed && at > followed.verifiedAt) followed.verifiedAt = at;
  }

  /** One check upstream; `now`: whatever the budget says (an event asked for it). */
  async #check(followed: Followed, now = false): Promise<void> {
    if (followed.checking) return;
    if (this.options.spendCall && !this.options.spendCall(followed.connection.credentialKey, now)) return;
    followed.checking = true;
    const started = this.#clock.now();
    try {
      const user = await getOwnUser(followed.connection, { retry: false });
      followed.userId = user.user_id;
      this.#verified(sessionKey(followed.connection), started);
    } catch (error) {
      if (isAuthError(error)) this.refused(followed.connection);
      // Anything else (unreachable, 5xx): checked again at the next tick; meanwhile trusted() ages it out.
    } finally {
      followed.checking = false;
    }
  }

  #tick(): void {
    const now = this.#clock.now();
    for (const [key, followed] of [...this.#followed]) {
      if (followed.session.stopped) {
        if (this.#followed.get(key) === followed) this.#followed.delete(key);
        continue;
      }
      if (now - followed.verifiedAt >= this.#recheckMs - this.#tickMs) void this.#check(followed);
    }
    for (const [key, at] of [...this.#revoked]) if (now - at >= this.#recheckMs) this.#revoked.delete(key);
    for (const [id, at] of [...this.#published]) if (now - at >= USER_EVENT_DEDUP_MS) this.#published.delete(id);
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#tick();
      this.#schedule();
    }, this.#tickMs);
    (this.#timer as { unref?: () => void } | undefined)?.unref?.();
  }
}
