/**
 * One credential's event stream in cluster mode: the {@link EventSession} of an instance whose
 * source and replay log are the credential's Redis log, shared by every gateway instance.
 *
 * - Every instance with subscribers for the credential follows its log (the instance's one
 *   StreamTailer) from the newest entry, and fans each entry out to its own subscribers by filter.
 * - Each such instance also runs a LeaseKeeper: the one holding the lease polls the upstream queue
 *   and writes the log (holder.ts); the others take over within the failover time if it dies,
 *   continuing the same queue from the position stored in Redis.
 * - A cursor is `{ log generation, entry sequence number }`, the same on every instance: a
 *   resuming subscriber is attached to live delivery first and then replayed from the log through
 *   a ResumeGate, so it gets what it missed exactly once and in order, whichever instance issued
 *   the cursor.
 * - Redis unreachable: every subscriber gets a RESYNC (`REDIS_UNAVAILABLE`) and delivery resumes by
 *   itself when Redis is back; a log Redis lost (restart) is announced the same way.
 * - In-process listeners (the live directory) get the holder's registrations on every instance:
 *   the holder tells its own once the log is delivered up to it, and stores it (snapshot.ts); the
 *   others load it at its mark in the log, or when they start following.
 * - When the session ends (grace period over, shutdown), the instance stops polling first, then
 *   leaves the credential's interest set and checks it in one step: the last one out deletes the
 *   upstream queue, holder or not; otherwise another instance continues it (#leave).
 */
import type { ZulipApiError } from '../../../zulip/errors.js';
import { discardQueue } from '../../events/queue.js';
import type { RegisterQueueResult } from '../../../zulip/model/events.js';
import { RedisUnavailableError } from '../redis.js';
import type { CredentialKeys } from '../keys.js';
import { Lease, LeaseKeeper, type LeaseTimes } from '../lease.js';
import type { ClusterRedis } from '../redis.js';
import { ResumeGate } from '../resume.js';
import { EventStream, type EventStreamOptions, type StreamEntry } from '../stream.js';
import type { StreamTailer, TailListener } from '../tail.js';
import { encodeCursor, type Cursor } from '../../events/buffer.js';
import { FanOut } from '../../events/fanout.js';
import type { EventFilter, FilterSpec } from '../../events/filters.js';
import type { GatewayEvent, RawEvent, ResyncReason } from '../../events/model.js';
import type { EventSession, QueueEventSessionOptions, SessionListener } from '../../events/session.js';
import type { SessionScope, Subscriber } from '../../events/subscriber.js';
import { decodeEntry, registrationMarkOf } from '../codec.js';
import { SnapshotLoader, SnapshotStore } from '../snapshot.js';
import { StreamHolder } from '../holder.js';
import { SessionInterest } from './interest.js';
import { Readiness } from './readiness.js';
import { replayed, type Gated } from './replay.js';

/** What every session of one instance shares (cluster.ts). */
export interface ClusterShared {
  redis: ClusterRedis;
  tailer: StreamTailer;
  lease: LeaseTimes;
  stream: EventStreamOptions;
  /** Wait between Redis attempts of one session (reads at start, writes of the holder). */
  retryMs: number;
  /** The instance's live sessions (for its state); a session removes itself when it stops. */
  sessions: Set<ClusterEventSession>;
  /** This instance's random name, which starts its sessions' names in the credentials' interest sets. */
  instanceId: string;
}

/** A registration of the holder and where in the log it was logged (its state is the log's up to `seq`). */
interface PendingRegistration {
  result: RegisterQueueResult;
  reason: ResyncReason | undefined;
  generation: string;
  seq: number;
}

/** The sequence number given to the fan-out for a RESYNC this instance sends (not in the log). */
const LOCAL = -1;

/** Cursor generation of a log that does not exist (yet): resuming from it is CURSOR_UNKNOWN. */
const NO_LOG = 'none';

export class ClusterEventSession implements EventSession {
  readonly #groups: FanOut;
  readonly #stream: EventStream;
  readonly #snapshots: SnapshotStore;
  /** Loads the registrations of other instances into this one's listeners. */
  readonly #loader: SnapshotLoader;
  readonly #keeper: LeaseKeeper;
  readonly #listeners = new Set<SessionListener>();
  readonly #gates = new Map<Subscriber, ResumeGate<Gated>>();
  readonly #following: Promise<void>;
  readonly #ready = new Readiness();
  #holder: StreamHolder | undefined;
  #unfollow: (() => void) | undefined;
  #stopped = false;
  /** The credential was refused elsewhere (refuse()). */
  #revoked = false;
  /** The last entry delivered (or the follow's starting point). */
  #position: { generation: string | undefined; seq: number } = { generation: undefined, seq: 0 };
  /** True from a RESYNC sent by this session until the next entry: one RESYNC covers an outage. */
  #resynced = false;
  /** The queue position this instance last logged, to continue the queue if Redis lost the log. */
  #ownPosition: { queueId: string; lastEventId: number } | undefined;
  #sawLog = false;
  /** A registration of this instance's holder, told to the listeners once the log is delivered up to it. */
  #pendingRegistration: PendingRegistration | undefined;
  #batch: { n: number; object: object } = { n: -1, object: {} };
  #featureLevel: number | null = null;
  #typingExpiryMs = 15_000;
  #lastError: unknown;
  /** The one shutdown of this session, once started (stop and a refused credential share it). */
  #leaving: Promise<void> | undefined;
  /** This session's place in the credential's interest set (interest.ts). */
  readonly #interest: SessionInterest;

  constructor(
    readonly keys: CredentialKeys,
    private readonly shared: ClusterShared,
    private readonly options: QueueEventSessionOptions,
  ) {
    this.#groups = new FanOut((subscriber, delivery, seq) => {
      const gate = this.#gates.get(subscriber);
      if (!gate) subscriber.push(delivery);
      else if (seq !== LOCAL) gate.live({ seq, delivery });
      // A RESYNC of this instance is no log entry: sent past an open gate; one still replaying sends its own.
      else if (gate.opened) subscriber.push(delivery);
    });
    this.#stream = new EventStream(shared.redis, keys, shared.stream);
    this.#snapshots = new SnapshotStore(shared.redis, keys.snapshot, Math.max(shared.stream.stateTtlMs ?? 900_000, shared.stream.maxAgeMs ?? 300_000));
    this.#loader = new SnapshotLoader({ store: this.#snapshots, stream: this.#stream, listeners: () => this.#listeners, retryMs: shared.retryMs, withinMs: 2_000 });
    this.#interest = new SessionInterest(shared.redis, keys.lease, shared.instanceId, shared.lease);
    this.#keeper = new LeaseKeeper(
      new Lease(shared.redis, keys.lease, shared.lease.ttlMs),
      {
        acquired: (token) => void this.#hold(token),
        lost: () => this.#dropHolder(),
        held: () => void this.#readyIfQueued(),
      },
      shared.lease,
    );
    // Interest at once: a session of another instance (or an earlier one of this instance) leaving
    // now must not take itself for the last one. The keeper starts once the log is followed, so
    // nothing this instance logs is missed.
    this.#interest.show();
    this.#following = this.#follow().then(() => {
      if (!this.#stopped) this.#keeper.start();
    });
  }

  get scope(): SessionScope {
    return this.#groups.scope;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get typingExpiryMs(): number {
    return this.#typingExpiryMs;
  }

  get subscriberCount(): number {
    return this.#groups.size;
  }

  /** Whether this instance polls the credential's upstream queue now. */
  get holding(): boolean {
    return this.#holder !== undefined;
  }

  whenReady(withinMs: number): Promise<void> {
    return this.#ready.within(withinMs, () => this.#lastError ?? new RedisUnavailableError('The event log in Redis was not ready in time.'));
  }

  position(): Cursor | undefined {
    if (!this.#ready.done || this.#position.generation === undefined) return undefined;
    return { generation: this.#position.generation, seq: this.#position.seq };
  }

  attach(subscriber: Subscriber, spec: FilterSpec, after?: Cursor): void {
    const filter = this.#groups.add(subscriber, spec);
    if (!after) return;
    const gate = new ResumeGate<Gated>((item) => subscriber.push(item.delivery));
    this.#gates.set(subscriber, gate);
    void this.#resume(subscriber, filter, after, gate);
  }

  detach(subscriber: Subscriber): void {
    this.#groups.remove(subscriber);
    this.#gates.delete(subscriber);
  }

  listen(listener: SessionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends the subscriptions and leaves; a second call (or one during a refusal's shutdown) waits for the same end. */
  stop(message: string): Promise<void> {
    if (!this.#stopped) this.#groups.endAll('SHUTDOWN', message);
    return this.#shutdown();
  }

  #shutdown(): Promise<void> {
    this.#leaving ??= this.#leave();
    return this.#leaving;
  }

  /**
   * Stops following and polling, then leaves the interest set; the last instance out deletes the
   * upstream queue. The order is what makes two instances stopping together safe, whatever the
   * interleaving of their Redis commands:
   * - polling stops before leaving: once this instance is out of the set, the last one out may
   *   delete the queue, and a poller still running here would then register a new queue nobody
   *   deletes (it finds the old one gone);
   * - no interest refresh lands after leaving: none is sent once stopped, and the one in flight
   *   is awaited before the leave (so the others never count an instance that has left);
   * - leaving and counting the others are one MULTI: of two instances leaving together, the
   *   second one out sees nobody and deletes the queue, even if the first held the lease.
   * The lease is released last, so that no instance of this credential polls between our holder
   * stopping and the deletion; an instance still interested takes over at once after it.
   */
  async #leave(): Promise<void> {
    this.#stopped = true;
    this.shared.sessions.delete(this);
    this.#ready.reject(new Error('the event session stopped'));
    this.#unfollow?.();
    this.#unfollow = undefined;
    this.#interest.stopShowing();
    const holder = this.#holder;
    this.#holder = undefined;
    // Keeps a logged queue (for the others, or for the deletion below); deletes one never logged.
    await holder?.stop();
    // A refused credential cannot delete its queue: the server drops it once idle.
    if (!(await this.#interest.leave()) && !this.#revoked) await this.#deleteLoggedQueue(this.#keeper.token);
    await this.#keeper.stop();
  }

  /**
   * The last instance out deletes the queue the log names (with our holder stopped, the only one
   * that can exist: nobody else polls the credential). While this instance holds the lease, which
   * fences writes, it also forgets the queue in Redis, so that a later holder registers a new one
   * at once, with a RESYNC for resuming clients; otherwise the log keeps naming it, and a later
   * holder finds it gone upstream and does the same, as after any expiry.
   */
  async #deleteLoggedQueue(token: string | undefined): Promise<void> {
    let queueId: string | undefined;
    try {
      queueId = (await this.#stream.state())?.queueId;
    } catch {
      return; // Redis unreachable: the server drops idle queues by itself
    }
    if (queueId === undefined) return;
    await discardQueue(this.options.connection, queueId);
    if (token !== undefined) await this.#stream.saveQueue(token, null).catch(() => undefined);
  }

  /** Reads where the log is now (retrying while Redis is unreachable), then follows it from there. */
  async #follow(): Promise<void> {
    while (!this.#stopped) {
      try {
        const state = await this.#stream.state();
        if (this.#stopped) return;
        this.#position = { generation: state?.generation, seq: state?.lastSeq ?? 0 };
        if (state) this.#sawLog = true;
        this.#unfollow = this.shared.tailer.follow(this.keys, this.#position, this.#tailListener());
        // The registration another instance made, if the log still holds what followed it.
        if (state?.queueId !== undefined && this.#listeners.size > 0) void this.#loader.load(undefined, () => this.#position);
        return;
      } catch (error) {
        this.#lastError = error;
        await new Promise((resolve) => setTimeout(resolve, this.shared.retryMs).unref?.());
      }
    }
  }

  #tailListener(): TailListener {
    return {
      entries: (entries) => this.#deliver(entries),
      interrupted: (error) => {
        this.#lastError = error;
        this.#resync('REDIS_UNAVAILABLE');
        this.#streamBroken();
      },
      resumed: () => undefined,
      restarted: (generation) => {
        this.#position = { generation, seq: 0 };
        this.#resync('REDIS_UNAVAILABLE');
        this.#streamBroken();
        this.#registrationReached();
        const pending = this.#pendingRegistration;
        if (pending) void this.#reachedIfNothingBefore(pending);
      },
    };
  }

  /** Live entries from the log, in order. */
  #deliver(entries: StreamEntry[]): void {
    let raws: RawEvent[] = [];
    const flush = () => {
      if (raws.length > 0) for (const listener of this.#listeners) listener.events?.(raws);
      raws = [];
    };
    for (const entry of entries) {
      const pending = this.#pendingRegistration;
      if (pending && entry.generation === pending.generation && entry.seq > pending.seq) {
        flush();
        this.#registrationReached();
      }
      this.#sawLog = true;
      this.#position = { generation: entry.generation, seq: entry.seq };
      this.#resynced = false;
      const decoded = decodeEntry(entry.data);
      if (!decoded) {
        const registered = registrationMarkOf(entry.data);
        // Another instance registered: load its snapshot (this instance's own registration is told by #registrationReached).
        if (registered !== undefined && registered !== this.#holder?.poller.queueId && this.#listeners.size > 0) {
          flush();
          void this.#loader.load(registered, () => this.#position);
        }
        continue;
      }
      if (decoded.raw && this.#loader.loading) this.#loader.hold(entry.seq, decoded.raw);
      else if (decoded.raw) raws.push(decoded.raw);
      // A queue registered elsewhere, or events lost: the listeners' state no longer follows the log.
      else if (decoded.event.kind === 'RESYNC') {
        flush();
        this.#streamBroken();
      }
      const cursor = encodeCursor({ generation: entry.generation, seq: entry.seq });
      this.#groups.publish(decoded.event, cursor, entry.seq, this.#batchObject(entry.batch));
    }
    flush();
    this.#registrationReached();
    this.#reached();
  }

  /** Tells the listeners where the stream now is (see SessionListener.position). */
  #reached(): void {
    const position = this.position();
    if (position) for (const listener of this.#listeners) listener.position?.(position);
  }

  /**
   * Tells the listeners of the pending registration once the log has been delivered up to where it
   * was logged: its state then matches exactly the entries before it, and the entries after it are
   * the new queue's events (never an earlier queue's, whose event ids mean nothing to it).
   */
  #registrationReached(): void {
    const pending = this.#pendingRegistration;
    if (!pending || this.#position.generation !== pending.generation || this.#position.seq < pending.seq) return;
    this.#tellRegistered(pending);
  }

  #tellRegistered(pending: PendingRegistration): void {
    this.#pendingRegistration = undefined;
    for (const listener of this.#listeners) listener.registered?.(pending.result, pending.reason);
  }

  /**
   * A registration the tail has not reached: reached at once if the log holds no entry between the
   * tail's position and it (a registration that created the log, or one logged right after a
   * restart: sequence numbers only grow, so none can come), else once the tail delivers those
   * entries (#deliver).
   */
  async #reachedIfNothingBefore(pending: PendingRegistration): Promise<void> {
    const samePosition = (from: { generation: string | undefined; seq: number }) =>
      this.#pendingRegistration === pending && this.#position.generation === from.generation && this.#position.seq === from.seq;
    const from = this.#position;
    if (from.generation !== undefined && from.generation !== pending.generation) return;
    try {
      const start = from.generation === undefined ? '-' : String(from.seq + 1);
      const between = await this.shared.redis.run((c) => c.xrange(this.keys.stream, start, String(pending.seq), 'COUNT', 1));
      if (between.length === 0 && samePosition(from)) this.#tellRegistered(pending);
    } catch {
      // Redis unreachable: the registration is told when the tail gets past it, or not at all (per-request reads).
    }
  }

  /** The log broke (a queue this instance did not register, an outage, a lost log): listeners' state is stale. */
  #streamBroken(): void {
    this.#loader.cancel();
    for (const listener of this.#listeners) listener.lost?.();
  }

  /** One object per logged batch (the scope keeps the loaders of the latest batch). */
  #batchObject(n: number): object {
    if (this.#batch.n !== n) this.#batch = { n, object: {} };
    return this.#batch.object;
  }

  /** A RESYNC to every subscriber, at the current position, unless one was sent since the last entry. */
  #resync(reason: ResyncReason): void {
    if (this.#resynced) return;
    this.#resynced = true;
    const event: GatewayEvent = { kind: 'RESYNC', reason, featureLevel: this.#featureLevel };
    this.#groups.publish(event, this.#cursorNow(), LOCAL, {});
  }

  #cursorNow(): string {
    return encodeCursor({ generation: this.#position.generation ?? NO_LOG, seq: this.#position.seq });
  }

  /** Replays the log after `after` to a resuming subscriber, joined to its live entries by the gate. */
  async #resume(subscriber: Subscriber, filter: EventFilter, after: Cursor, gate: ResumeGate<Gated>): Promise<void> {
    await this.#following;
    if (this.#stopped || subscriber.closed) return;
    let replay: Awaited<ReturnType<EventStream['since']>>;
    try {
      replay = await this.#stream.since(after);
    } catch {
      replay = { resync: 'CURSOR_UNKNOWN' };
    }
    if (subscriber.closed) return;
    if ('resync' in replay) {
      // Its cursor is "now": the live entries held so far are at or before it.
      const event: GatewayEvent = { kind: 'RESYNC', reason: replay.resync, featureLevel: this.#featureLevel };
      subscriber.push({ cursor: this.#cursorNow(), event, batch: {}, scope: this.scope, verdict: true });
      return gate.skip(this.#position.seq);
    }
    gate.open(replayed(replay.entries, filter, this.#groups.index, this.scope), replay.lastSeq);
  }

  /** This instance took the lease: continue the queue the log names (or start one) and log it. */
  async #hold(token: string): Promise<void> {
    let state: Awaited<ReturnType<EventStream['state']>>;
    for (;;) {
      if (this.#stopped || this.#keeper.token !== token) return;
      try {
        state = await this.#stream.state();
        break;
      } catch (error) {
        this.#lastError = error;
        await new Promise((resolve) => setTimeout(resolve, this.shared.retryMs).unref?.());
      }
    }
    if (this.#stopped || this.#keeper.token !== token) return;
    const logged = state?.queueId !== undefined && state.lastEventId !== undefined ? { queueId: state.queueId, lastEventId: state.lastEventId } : undefined;
    // Redis lost the log (restart): this instance's own last position still names a live queue.
    const resume = logged ?? (state === undefined ? this.#ownPosition : undefined);
    const { connection, eventTypes, register, longpollTimeoutMs, backoff, unexpectedBackoff, gate } = this.options;
    const holder = new StreamHolder({
      connection,
      eventTypes,
      stream: this.#stream,
      token,
      resyncFirst: !resume && ((state?.lastSeq ?? 0) > 0 || this.#sawLog),
      retryMs: this.shared.retryMs,
      ...(register && { register }),
      ...(resume && { resume }),
      ...(longpollTimeoutMs !== undefined && { longpollTimeoutMs }),
      ...(backoff && { backoff }),
      ...(unexpectedBackoff && { unexpectedBackoff }),
      ...(gate && { gate }),
      onRegistered: (result) => this.#registered(result),
      onRegistrationLogged: (result, reason, at) => {
        if (this.#listeners.size > 0 && result.queue_id) {
          void this.#snapshots.save({ ...at, queueId: result.queue_id, reason, result }).catch(() => undefined);
        }
        const pending = { result, reason, ...at };
        this.#pendingRegistration = pending;
        this.#registrationReached();
        if (this.#pendingRegistration === pending) void this.#reachedIfNothingBefore(pending);
      },
      onLogged: (position) => (this.#ownPosition = position),
      onLost: () => void this.#keeper.tick(),
      onRefused: (error) => void this.#refused(error),
    });
    this.#holder = holder;
    holder.start();
    // A queue continued was registered (so its credential accepted) by whoever logged it.
    if (resume) this.#markReady();
  }

  async #dropHolder(): Promise<void> {
    const holder = this.#holder;
    this.#holder = undefined;
    await holder?.stop();
  }

  #registered(result: RegisterQueueResult): void {
    if (typeof result.zulip_feature_level === 'number') this.#featureLevel = result.zulip_feature_level;
    const typingExpiry = result.server_typing_started_expiry_period_milliseconds;
    if (typeof typingExpiry === 'number' && typingExpiry > 0) this.#typingExpiryMs = typingExpiry;
    // The listeners hear of it once it is logged and the log is delivered up to it (#registrationReached).
    this.#markReady();
  }

  /** Another instance holds the lease: ready once it has logged a registered queue. */
  async #readyIfQueued(): Promise<void> {
    if (this.#ready.done) return;
    try {
      if ((await this.#stream.state())?.queueId !== undefined) this.#markReady();
    } catch (error) {
      this.#lastError = error;
    }
  }

  #markReady(): void {
    if (this.#stopped || this.#ready.done) return;
    this.#ready.resolve();
    // Where the stream stands as it becomes ready: the change logs (sync/logs.ts) start there.
    this.#reached();
  }

  /** See EventSession.refuse: this instance leaves without deleting the queue (revocation.ts purges the credential's keys). */
  async refuse(error: ZulipApiError): Promise<void> {
    this.#revoked = true;
    this.#lastError = error;
    this.#ready.reject(error);
    if (!this.#stopped) this.#groups.endAll('UNAUTHENTICATED', error.message);
    await this.#shutdown();
  }

  async #refused(error: ZulipApiError): Promise<void> {
    this.options.onRefused?.();
    this.#ready.reject(error);
    const message = `The chat server refused the credentials (${error.code}); the subscription has ended.`;
    this.#groups.endAll('UNAUTHENTICATED', message);
    await this.#shutdown();
  }
}
