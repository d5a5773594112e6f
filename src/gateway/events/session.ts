/**
 * One credential's event stream: the upstream queue poller (queue.ts) as the source, the replay
 * buffer (buffer.ts) and the fan-out to subscribers by filter (filters.ts). See docs/events.md.
 *
 * {@link EventSession} is the seam: the hub (hub.ts) only creates, holds and stops sessions, so a
 * session whose source and log live elsewhere (a Redis stream shared by several gateway
 * instances) can replace {@link QueueEventSession}, and in-process consumers of the whole stream
 * (a live directory of users and channels) {@link EventSession.listen} to it instead of
 * registering a queue of their own.
 *
 * - Fan-out is synchronous: each upstream batch is parsed, appended to the replay buffer and pushed
 *   to every matching subscriber before the queue acknowledges it. Subscribers with the same
 *   filter form a group: the filter runs once per event for the group.
 * - A replaced queue (expired, or lost to an unexpected error) is announced to every subscriber as
 *   a RESYNC entry, which is also in the buffer so that a resuming client sees it in order.
 * - A refused credential (401) ends every subscription of it with `UNAUTHENTICATED`.
 */
import { randomBytes } from 'node:crypto';
import type { BackoffOptions } from '../../zulip/backoff.js';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { ZulipApiError } from '../../zulip/errors.js';
import type { RegisterQueueResult } from '../../zulip/model/events.js';
import { ReplayBuffer, encodeCursor, type Cursor, type ReplayBufferOptions } from './buffer.js';
import { FanOut } from './fanout.js';
import type { EventFilter, FilterSpec } from './filters.js';
import { parseEvent, type GatewayEvent, type RawEvent, type ResyncReason } from './model.js';
import { QueuePoller, type CallGate, type RegisterExtras } from './queue.js';
import type { SessionScope, Subscriber } from './subscriber.js';

/** An in-process consumer of a credential's whole stream, before any subscriber's filter. */
export interface SessionListener {
  /** A queue was registered: the first, or a replacement (`reason` set; state must be reloaded). */
  registered?(result: RegisterQueueResult, reason: ResyncReason | undefined): void;
  /** Each upstream batch, raw and in order, heartbeats included, before it is acknowledged. */
  events?(events: RawEvent[]): void;
  /**
   * Cluster mode only: the stream broke without a registration seen here (another instance
   * registered a new queue, or Redis lost or interrupted the log): state loaded from an earlier
   * registration no longer follows the events and must not be trusted until the next `registered`.
   */
  lost?(): void;
  /**
   * The stream reached `position`: every event told to `events` so far is at or before it, and a
   * stamp taken now (see {@link EventSession.position}) names it. Called after each batch's fan-out.
   */
  position?(position: Cursor): void;
}

/** What the hub needs from one credential's stream. */
export interface EventSession {
  /** Shared by every delivery of the session: the consumers' per-credential caches. */
  readonly scope: SessionScope;
  /** True once the session ended for good (stopped, or the credential was refused). */
  readonly stopped: boolean;
  /** How long a typing start lasts without renewal, as the server says. */
  readonly typingExpiryMs: number;
  /** Subscribers attached now. */
  readonly subscriberCount: number;
  /** Cluster mode: whether this instance polls the credential's queue now (the one that writes what is shared). */
  readonly holding?: boolean;
  /**
   * The position of the newest entry of the stream, as a cursor (a stamp): what a query answered
   * now reflects. Undefined until the first registration (before it, the stream follows nothing).
   */
  position(): Cursor | undefined;
  /** Resolves once the source is ready (queue registered); rejects with the upstream error or on timeout. */
  whenReady(withinMs: number): Promise<void>;
  /**
   * Adds a subscriber. With `after`, what it missed since that cursor is queued for it first (or a
   * RESYNC when that is impossible), in the same tick, so nothing falls between replay and live events.
   */
  attach(subscriber: Subscriber, filter: FilterSpec, after?: Cursor): void;
  detach(subscriber: Subscriber): void;
  /** Adds an in-process listener of the whole stream; returns its removal. */
  listen(listener: SessionListener): () => void;
  /** Ends every subscriber (`SHUTDOWN`) and stops the source. Idempotent. */
  stop(message: string): Promise<void>;
  /**
   * The credential was refused elsewhere (a 401 on another path, its key regenerated, its user
   * deactivated: see revocation.ts): ends every subscriber with `UNAUTHENTICATED` and stops the
   * source, without deleting the queue upstream (the credential can no longer).
   */
  refuse(error: ZulipApiError): Promise<void>;
}

export interface QueueEventSessionOptions {
  connection: ZulipConnection;
  /** The queue's `event_types`. */
  eventTypes: readonly string[];
  replay?: ReplayBufferOptions;
  longpollTimeoutMs?: number;
  backoff?: BackoffOptions;
  unexpectedBackoff?: BackoffOptions;
  /** Merged into the queue's registration (a live directory's state, see hub.ts `addTap`). */
  register?: RegisterExtras;
  /** Called once when the credential is refused, before its subscribers are ended. */
  onRefused?: () => void;
  /** The credential's bucket, which each registration and poll waits for (queue.ts). */
  gate?: CallGate;
}

interface Logged {
  event: GatewayEvent;
  batch: object;
}

/** The in-process session: one upstream queue polled by this gateway instance. */
export class QueueEventSession implements EventSession {
  private readonly generation = randomBytes(12).toString('base64url');
  private readonly groups = new FanOut();
  private readonly buffer: ReplayBuffer<Logged>;
  private readonly listeners = new Set<SessionListener>();
  private readonly queue: QueuePoller;

  constructor(private readonly options: QueueEventSessionOptions) {
    this.buffer = new ReplayBuffer<Logged>(options.replay);
    this.queue = new QueuePoller({
      connection: options.connection,
      eventTypes: options.eventTypes,
      ...(options.longpollTimeoutMs !== undefined && { longpollTimeoutMs: options.longpollTimeoutMs }),
      ...(options.backoff && { backoff: options.backoff }),
      ...(options.unexpectedBackoff && { unexpectedBackoff: options.unexpectedBackoff }),
      ...(options.register && { register: options.register }),
      ...(options.gate && { gate: options.gate }),
      handler: {
        events: (events) => this.fanOut(events),
        registered: (result, reason) => this.registered(result, reason),
        failed: (error) => this.refused(error),
      },
    });
    this.queue.start();
  }

  get scope(): SessionScope {
    return this.groups.scope;
  }

  get stopped(): boolean {
    return this.queue.stopped;
  }

  get typingExpiryMs(): number {
    return this.queue.typingExpiryMs;
  }

  get subscriberCount(): number {
    return this.groups.size;
  }

  whenReady(withinMs: number): Promise<void> {
    return this.queue.whenReady(withinMs);
  }

  position(): Cursor | undefined {
    return this.queue.registered ? { generation: this.generation, seq: this.buffer.lastSeq } : undefined;
  }

  attach(subscriber: Subscriber, spec: FilterSpec, after?: Cursor): void {
    const filter = this.groups.add(subscriber, spec);
    if (after) this.replay(subscriber, filter, after);
  }

  detach(subscriber: Subscriber): void {
    this.groups.remove(subscriber);
  }

  listen(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(message: string): Promise<void> {
    this.groups.endAll('SHUTDOWN', message);
    await this.queue.stop();
  }

  async refuse(error: ZulipApiError): Promise<void> {
    this.groups.endAll('UNAUTHENTICATED', error.message);
    await this.queue.refuse(error);
  }

  private cursorAt(seq: number): string {
    return encodeCursor({ generation: this.generation, seq });
  }

  private registered(result: RegisterQueueResult, reason: ResyncReason | undefined): void {
    for (const listener of this.listeners) listener.registered?.(result, reason);
    if (reason) this.publish({ kind: 'RESYNC', reason, featureLevel: this.queue.featureLevel }, {});
    this.reached();
  }

  private fanOut(events: RawEvent[]): void {
    for (const listener of this.listeners) listener.events?.(events);
    const batch = {};
    for (const raw of events) for (const event of parseEvent(raw)) this.publish(event, batch);
    this.reached();
  }

  /** Tells the listeners where the stream now is (see {@link SessionListener.position}). */
  private reached(): void {
    const position = this.position();
    if (position) for (const listener of this.listeners) listener.position?.(position);
  }

  /** Logs one event and offers it to every filter group. */
  private publish(event: GatewayEvent, batch: object): void {
    const entry = this.buffer.append({ event, batch });
    this.groups.publish(event, this.cursorAt(entry.seq), entry.seq, batch);
  }

  /** Queues what a resuming subscriber missed, or a resync when the gap cannot be filled. */
  private replay(subscriber: Subscriber, filter: EventFilter, after: Cursor): void {
    const resyncNow = (reason: ResyncReason) => {
      const event: GatewayEvent = { kind: 'RESYNC', reason, featureLevel: this.queue.featureLevel };
      // Its cursor is "now": resuming from it later replays what comes after this point.
      const cursor = this.cursorAt(this.buffer.lastSeq);
      subscriber.push({ cursor, event, batch: {}, scope: this.scope, verdict: true });
    };
    if (after.generation !== this.generation) return resyncNow('CURSOR_UNKNOWN');
    const missed = this.buffer.since(after.seq);
    if ('expired' in missed) return resyncNow('CURSOR_EXPIRED');
    for (const entry of missed.entries) {
      const { event, batch } = entry.value;
      const verdict = filter.test(event, this.groups.index);
      if (verdict !== false) subscriber.push({ cursor: this.cursorAt(entry.seq), event, batch, scope: this.scope, verdict });
    }
  }

  private refused(error: ZulipApiError): void {
    this.options.onRefused?.();
    const message = `The chat server refused the credentials (${error.code}); the subscription has ended.`;
    this.groups.endAll('UNAUTHENTICATED', message);
    void this.queue.stop();
  }
}
