/**
 * One upstream event queue and its poll loop, for one credential (docs/events.md, "The poll loop";
 * https://zulip.com/api/get-events).
 *
 * The loop is explicit and classifies every failure:
 *
 * - register once, with the union of event types the gateway supports and a fixed payload shape;
 * - long-poll `GET /events` with `last_event_id`, one request in flight; the request timeout is
 *   `event_queue_longpoll_timeout_seconds`, which makes it the heartbeat watchdog (a healthy parked
 *   poll always ends with events or a heartbeat well before it);
 * - hand each batch to the handler first and only then advance `last_event_id` (the next poll is
 *   the acknowledgement), skipping ids at or below it, so no event is delivered twice or skipped
 *   while the queue lives;
 * - network errors, timeouts, 5xx and 429 keep the queue: back off (jittered, capped; at least
 *   `Retry-After` for a 429) and retry with `dont_block`;
 * - `BAD_EVENT_QUEUE_ID` registers a new queue at once and reports a resync;
 * - any other unexpected failure waits on a slower backoff, deletes the queue it gives up (it may
 *   well live on upstream: a pruning `BAD_REQUEST`, for one, comes from a live queue; see
 *   `QueueHandler.abandoned`) and registers again, reporting a resync;
 * - 401 is fatal: the loop stops and the handler is told, with no retry.
 *
 * `stop()` aborts the poll in flight and deletes the queue upstream.
 */
import { Backoff, defaultSleep, type BackoffOptions } from '../../zulip/backoff.js';
import type { ZulipConnection } from '../../zulip/connection.js';
import { ZulipErrorCode } from '../../zulip/error-codes.js';
import { MalformedResponseError, NetworkError, ServerError, ZulipApiError, isAuthError } from '../../zulip/errors.js';
import type { ClientCapabilities, RegisterQueueResult } from '../../zulip/model/events.js';
import { deleteQueue, getEvents, registerQueue } from '../../zulip/routes/events.js';
import type { RawEvent, ResyncReason } from './model.js';

/** What the poller reports to its owner (session.ts). */
export interface QueueHandler {
  /**
   * New events in id order, heartbeats included; must not throw (a throw is treated as a lost
   * queue). A returned promise is awaited before the batch is acknowledged (cluster mode logs it
   * to Redis first).
   */
  events(events: RawEvent[]): void | Promise<void>;
  /** A queue was registered; `reason` is set when it replaced one (subscribers must resync). Awaited before the first poll. */
  registered(result: RegisterQueueResult, reason: ResyncReason | undefined): void | Promise<void>;
  /** The credential was refused (401); the poller has stopped for good. */
  failed(error: ZulipApiError): void;
  /**
   * A queue given up after an unexpected failure, which may live on upstream; a new one is
   * registered next. Without this hook the poller deletes it at once. Cluster mode deletes it only
   * once the replacement is logged under the lease (cluster/holder.ts): an ex-holder that was
   * paused must not delete the queue the new holder polls.
   */
  abandoned?(queueId: string): void;
}

export interface QueuePollerOptions {
  connection: ZulipConnection;
  /** The `event_types` to register for. */
  eventTypes: readonly string[];
  handler: QueueHandler;
  /**
   * Timeout of each long-poll, i.e. the heartbeat watchdog.
   * @default the server's `event_queue_longpoll_timeout_seconds` (90 s when absent)
   */
  longpollTimeoutMs?: number;
  /** Backoff for transient failures. @default 100 ms doubling to 10 s, full jitter */
  backoff?: BackoffOptions;
  /** Backoff before re-registering after an unexpected failure; never reset. @default 100 ms doubling to 60 s */
  unexpectedBackoff?: BackoffOptions;
  /**
   * Continue this queue instead of registering one (cluster mode: the queue another instance
   * polled). If it is gone, a new one is registered with a `QUEUE_EXPIRED` resync.
   */
  resume?: { queueId: string; lastEventId: number };
  /** Merged into the registration: what in-process consumers (a live directory) need fetched and shaped. */
  register?: RegisterExtras;
  /**
   * The credential's bucket of upstream calls (upstream/bucket.ts): each registration and poll
   * waits for a token of it, so they never take the user past the gateway's share. @default none
   */
  gate?: CallGate;
}

/** Grants tokens of a credential's bucket as they come back (upstream/bucket.ts `CredentialBucket`). */
export interface CallGate {
  acquire(calls: number): Promise<{ spend(): void; release(): void }>;
}

/** Extra state and payload options a queue's registration must include (unions with the defaults). */
export interface RegisterExtras {
  eventTypes?: readonly string[];
  fetchEventTypes?: readonly string[];
  clientCapabilities?: ClientCapabilities;
}

/** The payload shape every queue of the gateway shares (https://zulip.com/api/register-queue#parameter-client_capabilities). */
const CLIENT_CAPABILITIES: ClientCapabilities = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  linkifier_url_template: true,
  user_list_incomplete: true,
};

/**
 * Only `realm` (limits, the long-poll timeout) and `message` (`max_message_id`) are fetched: the
 * gateway serves streams, not state. Events of other types that land during the register call are
 * folded into state nobody reads (docs/events.md, "Register"); that window is before the first
 * subscriber could have seen anything, or is covered by the resync a re-register sends.
 */
const FETCH_EVENT_TYPES = ['realm', 'message'];

const DEFAULT_LONGPOLL_SECONDS = 90;

/**
 * How long `stop()` lets a registration in flight finish before aborting it: one that completes is
 * deleted, while an aborted one the server has already carried out leaves a queue nobody knows.
 */
const REGISTER_STOP_GRACE_MS = 2_000;

type Deferred = { promise: Promise<void>; resolve(): void; reject(e: unknown): void };

/**
 * Deletes a queue nobody will poll again, at most once: if it is gone already (BAD_EVENT_QUEUE_ID)
 * or the server cannot be reached, the server drops idle queues by itself.
 */
export async function discardQueue(connection: ZulipConnection, queueId: string): Promise<void> {
  try {
    await deleteQueue(connection, { queueId }, { retry: false });
  } catch {
    // See above: nothing is left to do.
  }
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // observed through whenReady; never an unhandled rejection
  return { promise, resolve, reject };
}

export class QueuePoller {
  private readonly connection: ZulipConnection;
  private readonly options: QueuePollerOptions;
  private readonly backoff: Backoff;
  private readonly unexpectedBackoff: Backoff;
  private readonly abort = new AbortController();
  /** Aborts a registration in flight: only after a grace period once stopped (REGISTER_STOP_GRACE_MS). */
  private readonly registerAbort = new AbortController();
  private readonly ready = deferred();
  private loop: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private dontBlock = false;
  private pendingReason: ResyncReason | undefined;
  private registeredOnce = false;
  private longpollMs: number;

  /** The current upstream queue; undefined while (re-)registering. */
  queueId: string | undefined;
  /** Highest event id handed to the handler (the acknowledgement sent with the next poll). */
  lastEventId = -1;
  /** The server's feature level, from the latest registration or `restart` event. */
  featureLevel: number | null = null;
  /** Failures since the last successful request. */
  consecutiveFailures = 0;
  /** The latest failure, for callers waiting on the first registration. */
  lastError: unknown;
  /** How many queues were registered over the poller's life. */
  registrations = 0;
  /** From the registration; the yaml's fallback for older servers is 15 s. */
  typingExpiryMs = 15_000;

  constructor(options: QueuePollerOptions) {
    this.options = options;
    this.connection = options.connection;
    this.backoff = new Backoff(options.backoff);
    this.unexpectedBackoff = new Backoff({ maxBoundMs: 60_000, ...options.unexpectedBackoff });
    this.longpollMs = options.longpollTimeoutMs ?? DEFAULT_LONGPOLL_SECONDS * 1000;
    if (options.resume) ({ queueId: this.queueId, lastEventId: this.lastEventId } = options.resume);
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Whether a first queue was registered (the stream follows the server from then on). */
  get registered(): boolean {
    return this.registeredOnce;
  }

  /** Starts the loop (once). */
  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /**
   * Resolves once the first queue is registered; rejects at once if the credential is refused,
   * or with the latest failure if none succeeded within `withinMs`.
   */
  whenReady(withinMs: number): Promise<void> {
    if (this.registeredOnce) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.lastError ?? new Error('queue registration timed out')), withinMs);
      this.ready.promise.then(
        () => (clearTimeout(timer), resolve()),
        (e) => (clearTimeout(timer), reject(e)),
      );
    });
  }

  /**
   * Stops polling (aborting the request in flight) and deletes the queue upstream, unless
   * `deleteUpstream` is false (cluster mode: another instance continues it), or a function of the
   * queue that says false once the loop has ended. Idempotent.
   */
  stop(deleteUpstream: boolean | ((queueId: string) => boolean) = true): Promise<void> {
    this.stopping ??= this.shutdown(deleteUpstream);
    return this.stopping;
  }

  /**
   * Stops for good because the credential was refused elsewhere: whoever waits for the first
   * registration gets `error` (an auth error, as if this queue's own call had been refused), and
   * the queue is not deleted upstream (the credential cannot).
   */
  refuse(error: ZulipApiError): Promise<void> {
    this.ready.reject(error);
    this.lastError = error;
    return this.stop(false);
  }

  private async shutdown(deleteUpstream: boolean | ((queueId: string) => boolean)): Promise<void> {
    this.abort.abort();
    this.ready.reject(new Error('event queue poller stopped'));
    const cut = setTimeout(() => this.registerAbort.abort(), REGISTER_STOP_GRACE_MS);
    try {
      await this.loop;
    } finally {
      clearTimeout(cut);
      this.registerAbort.abort();
    }
    const queueId = this.queueId;
    this.queueId = undefined;
    // A function decides once the loop has ended (a handler call in flight has settled).
    if (queueId === undefined || !(typeof deleteUpstream === 'function' ? deleteUpstream(queueId) : deleteUpstream)) return;
    await discardQueue(this.connection, queueId);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.queueId === undefined) await this.register();
        else await this.poll();
        this.consecutiveFailures = 0;
      } catch (error) {
        if (this.stopped) return;
        this.lastError = error;
        this.consecutiveFailures++;
        await this.recover(error);
      }
    }
  }

  /** Waits for a token of the credential's bucket and spends it: the call follows at once. */
  private async spend(): Promise<void> {
    const gate = this.options.gate;
    if (!gate) return;
    const token = await gate.acquire(1);
    token.spend();
    token.release();
  }

  private async register(): Promise<void> {
    await this.spend();
    if (this.stopped) return;
    const extras = this.options.register;
    const result = await registerQueue(
      this.connection,
      {
        eventTypes: [...new Set([...this.options.eventTypes, ...(extras?.eventTypes ?? [])])],
        fetchEventTypes: [...new Set([...FETCH_EVENT_TYPES, ...(extras?.fetchEventTypes ?? [])])],
        applyMarkdown: true,
        clientGravatar: false,
        slimPresence: true,
        includeSubscribers: false,
        allPublicStreams: false,
        clientCapabilities: { ...CLIENT_CAPABILITIES, ...extras?.clientCapabilities },
      },
      { retry: false, signal: this.registerAbort.signal },
    );
    // Null only for unauthenticated spectators, which the hub never is; treat it as a bad answer.
    if (result.queue_id === null) throw new MalformedResponseError('register-queue', 200);
    this.queueId = result.queue_id;
    this.lastEventId = result.last_event_id;
    this.registrations++;
    if (typeof result.zulip_feature_level === 'number') this.featureLevel = result.zulip_feature_level;
    const typingExpiry = result.server_typing_started_expiry_period_milliseconds;
    if (typeof typingExpiry === 'number' && typingExpiry > 0) this.typingExpiryMs = typingExpiry;
    const seconds = result.event_queue_longpoll_timeout_seconds;
    if (this.options.longpollTimeoutMs === undefined && typeof seconds === 'number' && seconds > 0) {
      this.longpollMs = seconds * 1000;
    }
    if (this.stopped) return; // shutdown() deletes the queue just registered
    this.backoff.reset();
    this.dontBlock = false;
    const reason = this.pendingReason;
    this.pendingReason = undefined;
    this.registeredOnce = true;
    this.ready.resolve();
    await this.options.handler.registered(result, reason);
  }

  /** One long-poll. */
  private async poll(): Promise<void> {
    await this.spend();
    if (this.stopped) return;
    const { events } = await getEvents(
      this.connection,
      { queueId: this.queueId!, lastEventId: this.lastEventId, ...(this.dontBlock && { dontBlock: true }) },
      { retry: false, signal: this.abort.signal, deadlineMs: this.longpollMs },
    );
    if (this.stopped) return; // an answer to an aborted poll is ignored (docs/events.md, "Deletion")
    this.backoff.reset();
    this.dontBlock = false;
    // The server may resend what it sent before a lost response: keep only what is newer.
    const fresh = (Array.isArray(events) ? (events as RawEvent[]) : []).filter((e) => e.id > this.lastEventId);
    if (fresh.length === 0) return;
    this.noteRestarts(fresh);
    await this.options.handler.events(fresh);
    // Only now is the batch acknowledged (by the next poll's last_event_id).
    this.lastEventId = fresh[fresh.length - 1]!.id;
  }

  private noteRestarts(events: RawEvent[]): void {
    for (const event of events) {
      if (event.type === 'restart' && typeof event.zulip_feature_level === 'number') {
        this.featureLevel = event.zulip_feature_level;
      }
    }
  }

  /** Decides what a failure means (docs/events.md, "Other failures") and waits as needed. */
  private async recover(error: unknown): Promise<void> {
    if (isAuthError(error)) {
      this.queueId = undefined; // nothing can be deleted with a refused credential
      this.abort.abort();
      this.ready.reject(error);
      this.options.handler.failed(error);
      return;
    }
    if (error instanceof ZulipApiError && error.code === ZulipErrorCode.badEventQueueId) {
      this.queueId = undefined;
      this.pendingReason ??= 'QUEUE_EXPIRED';
      return;
    }
    if (isTransient(error)) {
      const retryAfterMs = error instanceof ZulipApiError ? (error.retryAfter ?? 0) * 1000 : 0;
      await this.wait(this.backoff, retryAfterMs);
      this.dontBlock = true;
      return;
    }
    // Pruning BAD_REQUESTs, other 4xx, malformed bodies, a throwing handler: the queue cannot be trusted.
    await this.wait(this.unexpectedBackoff, 0);
    // Stopped meanwhile: the queue is shutdown()'s to delete or to leave to the next holder.
    if (this.stopped || this.queueId === undefined) return;
    const abandoned = this.queueId;
    this.queueId = undefined;
    this.pendingReason ??= 'UPSTREAM_ERROR';
    // Nobody will poll it again: delete it rather than leave it registered upstream until the
    // server drops it as idle.
    if (this.options.handler.abandoned) return this.options.handler.abandoned(abandoned);
    await discardQueue(this.connection, abandoned);
  }

  private async wait(backoff: Backoff, atLeastMs: number): Promise<void> {
    const delay = Math.max(backoff.nextDelayMs(), atLeastMs);
    try {
      await (this.options.backoff?.sleep ?? defaultSleep)(delay, this.abort.signal);
    } catch {
      // aborted by stop()
    }
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError) return error.reason !== 'aborted';
  if (error instanceof ServerError) return true;
  return error instanceof ZulipApiError && (error.httpStatus === 429 || error.code === ZulipErrorCode.rateLimitHit);
}
