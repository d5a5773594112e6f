/**
 * The event hub: one upstream queue per credential, shared by every subscription of that
 * credential, whatever transport it came through. It knows queues, fan-out and replay, and
 * nothing of the GraphQL schema.
 *
 * - A session (queue + replay buffer + message index) is created by the first subscriber of a
 *   credential and registered once with every event type the gateway supports (events-protocol.md
 *   §6.1); subscriptions filter in the gateway, so a new subscription never needs a new queue.
 * - Fan-out is synchronous: each upstream batch is parsed, appended to the replay buffer and pushed
 *   to every matching subscriber before the queue acknowledges it (queue.ts). Subscribers with the
 *   same filter form a group: the filter runs once per event for the group.
 * - Each subscriber has a bounded backlog; one that falls behind is ended (SLOW_CONSUMER) without
 *   holding back the queue or the others (subscriber.ts).
 * - Sessions are refcounted by their subscribers. When the last one leaves, the session lives on
 *   for a grace period (polling and buffering), so a client that reconnects and resumes with its
 *   last cursor loses nothing; after it, the poll is aborted and the queue deleted upstream.
 * - A replaced queue (expired, or lost to an unexpected error) is announced to every subscriber as
 *   a RESYNC entry, which is also in the buffer so that a resuming client sees it in order.
 * - A refused credential (401) ends every subscription of it with `UNAUTHENTICATED`.
 */
import { randomBytes } from 'node:crypto';
import type { BackoffOptions } from '../../zulip/backoff.js';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { ZulipApiError } from '../../zulip/errors.js';
import { ReplayBuffer, encodeCursor, type Cursor, type ReplayBufferOptions } from './buffer.js';
import { MessageIndex, compileFilter, type EventFilter, type FilterSpec } from './filters.js';
import { SUPPORTED_EVENT_TYPES, parseEvent, type GatewayEvent, type RawEvent, type ResyncReason } from './model.js';
import { QueueSession } from './queue.js';
import { Subscriber, type Delivery } from './subscriber.js';

export interface EventHubOptions {
  /** How long a session outlives its last subscriber. @default 30_000 */
  graceMs?: number;
  /** Bounds of each credential's replay buffer. @default { maxEntries: 1000, maxAgeMs: 300_000 } */
  replay?: ReplayBufferOptions;
  /** Deliveries a subscriber may have waiting before it is closed as too slow. @default 1000 */
  subscriberBufferSize?: number;
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
}

interface Logged {
  event: GatewayEvent;
  batch: object;
}

/**
 * Subscribers with the same filter (many tabs or devices of one user run the same subscription):
 * the filter runs once per event for all of them, and they share one delivery object.
 */
interface FilterGroup {
  key: string;
  filter: EventFilter;
  subscribers: Set<Subscriber>;
}

/** Everything the hub keeps for one credential. */
class Session {
  readonly generation = randomBytes(12).toString('base64url');
  readonly index = new MessageIndex();
  readonly subscribers = new Map<Subscriber, FilterGroup>();
  readonly groups = new Map<string, FilterGroup>();
  /** Identity shared by all deliveries of this session (scopes per-credential caches upstream of us). */
  readonly scope = {};
  leases = 0;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  readonly queue: QueueSession;

  constructor(
    readonly key: string,
    readonly buffer: ReplayBuffer<Logged>,
    makeQueue: (session: Session) => QueueSession,
  ) {
    this.queue = makeQueue(this);
  }

  cursorAt(seq: number): string {
    return encodeCursor({ generation: this.generation, seq });
  }
}

export class EventHub {
  private readonly sessions = new Map<string, Session>();
  private readonly options: EventHubOptions;
  private closed = false;

  constructor(options: EventHubOptions = {}) {
    this.options = options;
  }

  /**
   * Subscribes as the connection's credential. Resolves once the credential's queue is registered;
   * rejects with the upstream error if it is refused or cannot be registered in time.
   */
  async subscribe(connection: ZulipConnection, options: SubscribeOptions = {}): Promise<Subscriber> {
    if (this.closed) throw new Error('the event hub is closed');
    const spec = options.filter ?? {};
    const session = this.sessionFor(connection);
    const subscriber = new Subscriber(this.options.subscriberBufferSize ?? 1000, (s) => this.detach(session, s));
    this.acquire(session);
    const group = this.join(session, subscriber, spec);
    // Replay in the same tick as attaching: nothing can fall between the replay and live events.
    if (options.after) this.replay(session, subscriber, group.filter, options.after);
    try {
      await session.queue.whenReady(this.options.readyTimeoutMs ?? 15_000);
    } catch (error) {
      await subscriber.return();
      throw error;
    }
    subscriber.typingExpiryMs = this.options.typingExpiryMs ?? session.queue.typingExpiryMs;
    return subscriber;
  }

  /**
   * Checks a credential by making sure its queue is registered (the call a subscription needs
   * anyway); the queue then stays for the grace period, ready for the subscriptions that follow.
   */
  async validate(connection: ZulipConnection): Promise<void> {
    if (this.closed) throw new Error('the event hub is closed');
    const session = this.sessionFor(connection);
    this.acquire(session);
    try {
      await session.queue.whenReady(this.options.readyTimeoutMs ?? 15_000);
    } finally {
      this.release(session);
    }
  }

  stats(): HubStats {
    let subscribers = 0;
    for (const session of this.sessions.values()) subscribers += session.subscribers.size;
    return { sessions: this.sessions.size, subscribers };
  }

  /** Ends every subscription and deletes every queue upstream. */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => this.stopSession(session, 'The gateway is shutting down.')));
  }

  private sessionFor(connection: ZulipConnection): Session {
    const key = `${connection.baseUrl} ${connection.credentialKey}`;
    const existing = this.sessions.get(key);
    if (existing && !existing.queue.stopped) return existing;
    const session = new Session(key, new ReplayBuffer<Logged>(this.options.replay), (s) =>
      new QueueSession({
        connection,
        eventTypes: this.options.eventTypes ?? SUPPORTED_EVENT_TYPES,
        ...(this.options.longpollTimeoutMs !== undefined && { longpollTimeoutMs: this.options.longpollTimeoutMs }),
        ...(this.options.backoff && { backoff: this.options.backoff }),
        ...(this.options.unexpectedBackoff && { unexpectedBackoff: this.options.unexpectedBackoff }),
        handler: {
          events: (events) => this.fanOut(s, events),
          registered: ({ reason, featureLevel }) => reason && this.resyncAll(s, reason, featureLevel),
          failed: (error) => this.refused(s, error),
        },
      }),
    );
    this.sessions.set(key, session);
    session.queue.start();
    return session;
  }

  private join(session: Session, subscriber: Subscriber, spec: FilterSpec): FilterGroup {
    const key = JSON.stringify(spec);
    let group = session.groups.get(key);
    if (!group) {
      group = { key, filter: compileFilter(spec), subscribers: new Set() };
      session.groups.set(key, group);
    }
    group.subscribers.add(subscriber);
    session.subscribers.set(subscriber, group);
    return group;
  }

  private fanOut(session: Session, events: RawEvent[]): void {
    const batch = {};
    for (const raw of events) for (const event of parseEvent(raw)) this.publish(session, event, batch);
  }

  /** Logs one event and offers it to every filter group. */
  private publish(session: Session, event: GatewayEvent, batch: object): void {
    session.index.learn(event);
    const entry = session.buffer.append({ event, batch });
    const cursor = session.cursorAt(entry.seq);
    for (const group of [...session.groups.values()]) {
      const verdict = group.filter.test(event, session.index);
      if (verdict === false) continue;
      const delivery: Delivery = { cursor, event, batch, scope: session.scope, verdict };
      for (const subscriber of [...group.subscribers]) subscriber.push(delivery);
    }
  }

  /** Offers one logged event to one subscriber (replay). */
  private offer(session: Session, subscriber: Subscriber, filter: EventFilter, event: GatewayEvent, batch: object, cursor: string): void {
    const verdict = filter.test(event, session.index);
    if (verdict !== false) subscriber.push({ cursor, event, batch, scope: session.scope, verdict });
  }

  private resyncAll(session: Session, reason: ResyncReason, featureLevel: number | null): void {
    this.publish(session, { kind: 'RESYNC', reason, featureLevel }, {});
  }

  /** Queues what a resuming subscriber missed, or a resync when the gap cannot be filled. */
  private replay(session: Session, subscriber: Subscriber, filter: EventFilter, after: Cursor): void {
    const resyncNow = (reason: ResyncReason) => {
      const event: GatewayEvent = { kind: 'RESYNC', reason, featureLevel: session.queue.featureLevel };
      // Its cursor is "now": resuming from it later replays what comes after this point.
      const cursor = session.cursorAt(session.buffer.lastSeq);
      subscriber.push({ cursor, event, batch: {}, scope: session.scope, verdict: true });
    };
    if (after.generation !== session.generation) return resyncNow('CURSOR_UNKNOWN');
    const missed = session.buffer.since(after.seq);
    if ('expired' in missed) return resyncNow('CURSOR_EXPIRED');
    for (const entry of missed.entries) {
      const { event, batch } = entry.value;
      this.offer(session, subscriber, filter, event, batch, session.cursorAt(entry.seq));
    }
  }

  private refused(session: Session, error: ZulipApiError): void {
    if (this.sessions.get(session.key) === session) this.sessions.delete(session.key);
    const message = `The chat server refused the credentials (${error.code}); the subscription has ended.`;
    for (const subscriber of [...session.subscribers.keys()]) subscriber.end('UNAUTHENTICATED', message);
    void session.queue.stop();
  }

  private detach(session: Session, subscriber: Subscriber): void {
    const group = session.subscribers.get(subscriber);
    if (!group) return;
    session.subscribers.delete(subscriber);
    group.subscribers.delete(subscriber);
    if (group.subscribers.size === 0) session.groups.delete(group.key);
    this.release(session);
  }

  private acquire(session: Session): void {
    session.leases++;
    if (session.graceTimer) clearTimeout(session.graceTimer);
    session.graceTimer = undefined;
  }

  private release(session: Session): void {
    session.leases--;
    if (session.leases > 0 || this.closed) return;
    session.graceTimer = setTimeout(() => {
      session.graceTimer = undefined;
      if (session.leases > 0) return;
      if (this.sessions.get(session.key) === session) this.sessions.delete(session.key);
      void this.stopSession(session, 'The subscription was closed.');
    }, this.options.graceMs ?? 30_000);
    // A pending grace period alone must not keep the process alive.
    session.graceTimer.unref?.();
  }

  private async stopSession(session: Session, message: string): Promise<void> {
    if (session.graceTimer) clearTimeout(session.graceTimer);
    for (const subscriber of [...session.subscribers.keys()]) subscriber.end('SHUTDOWN', message);
    await session.queue.stop();
  }
}
