/**
 * The event hub: one event session per credential, shared by every subscription of that
 * credential, whatever transport it came through. The hub creates sessions, counts who holds
 * each, and stops them; each session (session.ts) polls its upstream queue, keeps the replay
 * buffer and fans events out by filter. It knows nothing of the GraphQL schema. See docs/events.md.
 *
 * - A session is created by the first subscriber of a credential and registered once with every
 *   event type the gateway supports (docs/events.md, "One queue per credential"); subscriptions
 *   filter in the gateway, so a new subscription never needs a new queue.
 * - Each subscriber has a bounded backlog; one that falls behind is ended (SLOW_CONSUMER) without
 *   holding back the queue or the others (subscriber.ts).
 * - Sessions are refcounted by their subscribers. When the last one leaves, the session lives on
 *   for a grace period (polling and buffering), so a client that reconnects and resumes with its
 *   last cursor loses nothing; after it, the poll is aborted and the queue deleted upstream.
 * - Cluster mode (`cluster`, cluster/cluster.ts): sessions are backed by Redis and shared by several
 *   gateway instances (one upstream queue per credential across them; docs/operations.md, "Running several
 *   instances"); a session that ends deletes its queue only when no other instance still wants it.
 * - `createSession` replaces the in-process session (tests, other backends);
 *   `session(connection)` gives in-process listeners (a live directory) the credential's stream.
 */
import type { BackoffOptions } from '../../zulip/backoff.js';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { ZulipApiError } from '../../zulip/errors.js';
import type { Cursor, ReplayBufferOptions } from './buffer.js';
import type { FilterSpec } from './filters.js';
import { SUPPORTED_EVENT_TYPES } from './model.js';
import type { CallGate, RegisterExtras } from './queue.js';
import type { ClusterState, EventCluster } from '../cluster/cluster.js';
import { QueueEventSession, type EventSession, type QueueEventSessionOptions } from './session.js';
import { Subscriber } from './subscriber.js';

export interface EventHubOptions {
  /** How long a session outlives its last subscriber. @default 30_000 */
  graceMs?: number;
  /** Bounds of each credential's replay buffer. @default { maxEntries: 1000, maxAgeMs: 300_000 } */
  replay?: ReplayBufferOptions;
  /**
   * The gateway's one slow-consumer limit: what one subscription may have waiting, here and in the
   * results its transport has not sent yet (plugins/share-subscriptions.ts reads it from the hub),
   * before it ends with SLOW_CONSUMER. @default DEFAULT_SLOW_CONSUMER_LIMIT
   */
  slowConsumerLimit?: number;
  /** How long a new subscription waits for the first queue registration. @default 15_000 */
  readyTimeoutMs?: number;
  /** Timeout of each long-poll (the heartbeat watchdog). @default the server's event_queue_longpoll_timeout_seconds */
  longpollTimeoutMs?: number;
  /** Backoff for transient upstream failures (inject `sleep` in tests). @default 100 ms → 10 s, full jitter */
  backoff?: BackoffOptions;
  /** Backoff before re-registering after unexpected failures. @default 100 ms → 60 s */
  unexpectedBackoff?: BackoffOptions;
  /** Queue event types. @default SUPPORTED_EVENT_TYPES */
  eventTypes?: readonly string[];
  /** How long a typing start lasts without renewal. @default the server's value (15 s when absent) */
  typingExpiryMs?: number;
  /**
   * Makes the session of one credential. `refused` must be called when the credential is refused
   * for good. @default an in-process {@link QueueEventSession}
   */
  createSession?: (connection: ZulipConnection, refused: () => void) => EventSession;
  /**
   * Cluster mode: sessions share each credential's upstream queue and event log with the other
   * gateway instances through Redis (cluster/cluster.ts). The hub closes it with itself.
   * @default none: everything stays in this process
   */
  cluster?: EventCluster;
}

/** Events or results one subscription may have waiting before it ends with SLOW_CONSUMER. */
export const DEFAULT_SLOW_CONSUMER_LIMIT = 1000;

/**
 * An in-process consumer told of every session the hub creates, before its queue registers (so it
 * sees the first registration): how a live directory follows each credential's stream.
 */
export interface SessionTap {
  /** Merged into the registration of every queue created after the tap was added. */
  register?: RegisterExtras;
  opened(key: string, session: EventSession, connection: ZulipConnection): void;
}

/** The hub's key of a credential's session: server and credential hash, never the API key. */
export function sessionKey(connection: ZulipConnection): string {
  return `${connection.baseUrl} ${connection.credentialKey}`;
}

export interface SubscribeOptions {
  filter?: FilterSpec;
  /** Resume after this cursor: replay what was missed, or resync when that is impossible. */
  after?: Cursor;
}

export interface HubStats {
  /** Live sessions, i.e. upstream queues (registered or registering). */
  sessions: number;
  subscribers: number;
  /** Sessions with no subscriber left, kept for the grace period (their queue is deleted when it ends). */
  lingering: number;
  /** Cluster mode only: Redis connection state, leases held, logs followed. */
  cluster?: ClusterState;
}

/**
 * A session and how many hold it (subscribers and in-process listeners). Not a cluster lease
 * (cluster/lease.ts), which picks the one instance polling a credential's upstream queue.
 */
interface HeldSession {
  key: string;
  session: EventSession;
  holders: number;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
}

export class EventHub {
  private readonly sessions = new Map<string, HeldSession>();
  /**
   * The bucket of the credential whose session is made (upstream/bucket.ts), set by the gateway
   * that uses this hub: each registration and poll of the session's queue waits for a token of it.
   */
  gate: ((connection: ZulipConnection) => CallGate) | undefined = undefined;
  private readonly options: EventHubOptions;
  private closed = false;
  private readonly taps = new Set<SessionTap>();
  private readonly refusalListeners = new Set<(connection: ZulipConnection) => void>();
  /**
   * Sessions stopping after their grace period: no longer in `sessions`, but `close()` must still
   * wait for them (their upstream queue deletion, their leaving a cluster's interest set) before
   * the cluster's Redis connection closes and the process may exit.
   */
  private readonly stopping = new Set<Promise<void>>();

  constructor(options: EventHubOptions = {}) {
    this.options = options;
  }

  /** See {@link EventHubOptions.slowConsumerLimit}. */
  get slowConsumerLimit(): number {
    return this.options.slowConsumerLimit ?? DEFAULT_SLOW_CONSUMER_LIMIT;
  }

  /**
   * Subscribes as the connection's credential. Resolves once the credential's queue is registered;
   * rejects with the upstream error if it is refused or cannot be registered in time.
   */
  async subscribe(connection: ZulipConnection, options: SubscribeOptions = {}): Promise<Subscriber> {
    if (this.closed) throw new Error('the event hub is closed');
    const held = this.heldFor(connection);
    const subscriber = new Subscriber(this.slowConsumerLimit, (s) => {
      held.session.detach(s);
      this.release(held);
    });
    this.acquire(held);
    held.session.attach(subscriber, options.filter ?? {}, options.after);
    try {
      await held.session.whenReady(this.options.readyTimeoutMs ?? 15_000);
    } catch (error) {
      await subscriber.return();
      throw error;
    }
    subscriber.typingExpiryMs = this.options.typingExpiryMs ?? held.session.typingExpiryMs;
    return subscriber;
  }

  /**
   * Whether this instance polls (or, in cluster mode, may poll) an upstream queue for the
   * connection's credential now: its polls count against that credential's rate limit too.
   */
  follows(connection: ZulipConnection): boolean {
    const held = this.sessions.get(sessionKey(connection));
    return held !== undefined && !held.session.stopped;
  }

  /**
   * Where the credential's stream is now (the stamp of an answer computed now), when this instance
   * has a registered session for it; undefined otherwise.
   */
  position(connection: ZulipConnection): Cursor | undefined {
    const held = this.sessions.get(sessionKey(connection));
    return held && !held.session.stopped ? held.session.position() : undefined;
  }

  /**
   * Checks a credential by making sure its queue is registered (the call a subscription needs
   * anyway); the queue then stays for the grace period, ready for the subscriptions that follow.
   */
  async validate(connection: ZulipConnection): Promise<void> {
    await this.withSession(connection, async () => undefined);
  }

  /**
   * Runs `use` with the credential's session once its queue is registered, holding it meanwhile:
   * how an in-process consumer (a live directory) listens to the credential's stream.
   */
  async withSession<T>(connection: ZulipConnection, use: (session: EventSession) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the event hub is closed');
    const held = this.heldFor(connection);
    this.acquire(held);
    try {
      await held.session.whenReady(this.options.readyTimeoutMs ?? 15_000);
      return await use(held.session);
    } finally {
      this.release(held);
    }
  }

  /** The cluster mode this hub's sessions share (undefined: in-process). */
  get cluster(): EventCluster | undefined {
    return this.options.cluster;
  }

  /**
   * Told whenever a session's credential is refused by the chat server (its queue's registration
   * or poll answered 401), with the session's connection; returns its removal.
   */
  onRefused(listener: (connection: ZulipConnection) => void): () => void {
    this.refusalListeners.add(listener);
    return () => this.refusalListeners.delete(listener);
  }

  /**
   * Ends the credential's session now, its subscribers with `UNAUTHENTICATED` and whoever waits for
   * its registration with `error` (EventSession.refuse):
   * the credential was refused on another path (revocation.ts). The next subscription of it opens
   * a new session, which the chat server refuses or (a reactivated user) accepts.
   */
  async revoke(connection: ZulipConnection, error: ZulipApiError): Promise<void> {
    const key = sessionKey(connection);
    const held = this.sessions.get(key);
    if (!held) return;
    this.sessions.delete(key);
    if (held.graceTimer) clearTimeout(held.graceTimer);
    held.graceTimer = undefined;
    await held.session.refuse(error).catch(() => undefined);
  }

  /** Adds a tap (see {@link SessionTap}); returns its removal. */
  addTap(tap: SessionTap): () => void {
    this.taps.add(tap);
    return () => this.taps.delete(tap);
  }

  stats(): HubStats {
    let subscribers = 0;
    let lingering = 0;
    for (const held of this.sessions.values()) {
      subscribers += held.session.subscriberCount;
      if (held.graceTimer) lingering++;
    }
    const cluster = this.options.cluster?.state();
    return { sessions: this.sessions.size, subscribers, lingering, ...(cluster && { cluster }) };
  }

  /**
   * Ends every subscription and deletes every queue upstream; resolves once every session has
   * stopped, those whose grace period ended just before included (a process may exit after it).
   */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all([...all.map((held) => this.stop(held, 'The gateway is shutting down.')), ...this.stopping]);
    await this.options.cluster?.close();
  }

  private heldFor(connection: ZulipConnection): HeldSession {
    const key = sessionKey(connection);
    const existing = this.sessions.get(key);
    if (existing && !existing.session.stopped) return existing;
    const refused = () => {
      if (this.sessions.get(key) === held) this.sessions.delete(key);
      for (const listener of this.refusalListeners) listener(connection);
    };
    const session = this.options.createSession?.(connection, refused) ?? this.queueSession(connection, refused);
    const held: HeldSession = { key, session, holders: 0, graceTimer: undefined };
    this.sessions.set(key, held);
    for (const tap of this.taps) tap.opened(key, session, connection);
    return held;
  }

  private queueSession(connection: ZulipConnection, refused: () => void): EventSession {
    const { replay, longpollTimeoutMs, backoff, unexpectedBackoff } = this.options;
    const options: QueueEventSessionOptions = {
      // Without the first caller's per-request counter: the queue's calls are the credential's, not
      // that request's, and its gate spends the credential's bucket for them (queue.ts).
      connection: connection.derive({ onRequest: undefined }),
      eventTypes: this.options.eventTypes ?? SUPPORTED_EVENT_TYPES,
      onRefused: refused,
      ...(replay && { replay }),
      ...(longpollTimeoutMs !== undefined && { longpollTimeoutMs }),
      ...(backoff && { backoff }),
      ...(unexpectedBackoff && { unexpectedBackoff }),
      ...(this.taps.size > 0 && { register: mergeRegisterExtras([...this.taps]) }),
    };
    const gate = this.gate?.(connection);
    if (gate) options.gate = gate;
    return this.options.cluster ? this.options.cluster.createSession(options) : new QueueEventSession(options);
  }

  private acquire(held: HeldSession): void {
    held.holders++;
    if (held.graceTimer) clearTimeout(held.graceTimer);
    held.graceTimer = undefined;
  }

  private release(held: HeldSession): void {
    held.holders--;
    if (held.holders > 0 || this.closed) return;
    held.graceTimer = setTimeout(() => {
      held.graceTimer = undefined;
      if (held.holders > 0) return;
      if (this.sessions.get(held.key) === held) this.sessions.delete(held.key);
      void this.stop(held, 'The subscription was closed.');
    }, this.options.graceMs ?? 30_000);
    // A pending grace period alone must not keep the process alive.
    held.graceTimer.unref?.();
  }

  private async stop(held: HeldSession, message: string): Promise<void> {
    if (held.graceTimer) clearTimeout(held.graceTimer);
    held.graceTimer = undefined;
    const stopped = held.session.stop(message);
    const settled = stopped.then(
      () => undefined,
      () => undefined,
    );
    this.stopping.add(settled);
    void settled.then(() => this.stopping.delete(settled));
    await stopped;
  }
}

function mergeRegisterExtras(taps: SessionTap[]): RegisterExtras {
  const union = (pick: (r: RegisterExtras) => readonly string[] | undefined) => [...new Set(taps.flatMap((t) => (t.register && pick(t.register)) ?? []))];
  return {
    eventTypes: union((r) => r.eventTypes),
    fetchEventTypes: union((r) => r.fetchEventTypes),
    clientCapabilities: Object.assign({}, ...taps.map((t) => t.register?.clientCapabilities)),
  };
}
