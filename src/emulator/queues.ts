/**
 * Event queues, as Zulip's Tornado server keeps them: registered per user, filtered by `event_types`
 * and (for message events) by narrow, long-polled with heartbeats, pruned by `last_event_id`, and
 * garbage-collected after an idle timeout, after which they answer `BAD_EVENT_QUEUE_ID`.
 * https://zulip.com/api/register-queue, https://zulip.com/api/get-events, https://zulip.com/api/real-time-events.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from './clock.js';
import { ApiError, badRequest } from './errors.js';
import { matchesNarrow, type NarrowTerm } from './narrow/index.js';
import type { Store, User } from './store.js';

export type Event = Record<string, unknown> & { type: string };

export interface QueueOptions {
  eventTypes: Set<string> | null;
  narrow: NarrowTerm[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  capabilities: Record<string, boolean>;
  /** Idle lifetime in ms. */
  lifespanMs: number;
}

export interface Queue {
  readonly id: string;
  readonly userId: number;
  readonly options: QueueOptions;
  events: (Event & { id: number })[];
  nextEventId: number;
  lastConnectionMs: number;
  /** Highest id pruned by an acknowledgement; -1 before any. */
  maxPrunedId: number;
  parked: ParkedPoll | null;
}

interface ParkedPoll {
  finish: () => void;
  heartbeat: TimerHandle;
}

/**
 * What a route hands to {@link QueueManager.notify}: an event, or a builder that shapes it for one
 * queue (per-user flags, apply_markdown...) or returns null to skip that queue.
 */
export type EventSource = Event | ((queue: Queue) => Event | null);

export interface QueueSettings {
  queueIdleTimeoutMs: number;
  heartbeatIntervalMs: number;
}

export class QueueManager {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: QueueSettings,
  ) {}

  register(userId: number, options: QueueOptions): Queue {
    this.sweep();
    const queue: Queue = {
      id: randomUUID(),
      userId,
      options,
      events: [],
      nextEventId: 0,
      lastConnectionMs: this.clock.now(),
      maxPrunedId: -1,
      parked: null,
    };
    this.queues.set(queue.id, queue);
    return queue;
  }

  /** Number of live queues (expired ones are swept first). */
  size(): number {
    this.sweep();
    return this.queues.size;
  }

  /** Live queues of a user, for tests and for `register` state. */
  queuesOf(userId: number): Queue[] {
    this.sweep();
    return [...this.queues.values()].filter((q) => q.userId === userId);
  }

  /**
   * Pushes an event to every live queue of the given users that accepts it. With `publicChannelListeners`,
   * queues of other users registered with all_public_streams or a narrow also get it (Zulip does this for
   * messages in public channels; they arrive with no flags).
   */
  notify(userIds: Iterable<number>, source: EventSource, options: { publicChannelListeners?: boolean } = {}): void {
    this.sweep();
    const targets = new Set(userIds);
    for (const queue of this.queues.values()) {
      const direct = targets.has(queue.userId);
      const listener =
        options.publicChannelListeners === true &&
        (queue.options.allPublicStreams || queue.options.narrow.length > 0) &&
        this.userCanReadPublic(queue.userId);
      if (!direct && !listener) continue;
      const event = typeof source === 'function' ? source(queue) : source;
      if (event && this.accepts(queue, event)) this.push(queue, event);
    }
  }

  private userCanReadPublic(userId: number): boolean {
    const user = this.store.users.get(userId);
    return user !== undefined && user.role !== 600;
  }

  /** Zulip's ClientDescriptor.accepts_event. */
  private accepts(queue: Queue, event: Event): boolean {
    const { eventTypes, narrow, capabilities } = queue.options;
    if (eventTypes && !eventTypes.has(event.type)) return false;
    if (event.type === 'message' && narrow.length > 0) {
      const user = this.store.users.get(queue.userId);
      const message = this.store.messages.get((event.message as { id: number }).id);
      if (!user || !message || !matchesNarrow(this.store, user, message, narrow)) return false;
    }
    if (event.type === 'typing' && event.message_type === 'stream' && !capabilities.stream_typing_notifications) {
      return false;
    }
    const legacySettings = event.type === 'update_display_settings' || event.type === 'update_global_notifications';
    if (legacySettings && capabilities.user_settings_object) return false;
    return true;
  }

  private push(queue: Queue, event: Event): void {
    queue.events.push({ ...event, id: queue.nextEventId++ });
    queue.parked?.finish();
  }

  private access(queueId: string, user: User): Queue {
    this.sweep();
    const queue = this.queues.get(queueId);
    if (!queue || queue.userId !== user.user_id) {
      throw new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });
    }
    return queue;
  }

  /**
   * `GET /events`: prunes acknowledged events, then answers at once (events pending or dont_block) or
   * parks until an event arrives, the heartbeat fires, or the client goes away.
   */
  async get(
    queueId: string,
    user: User,
    lastEventId: number,
    dontBlock: boolean,
    signal?: AbortSignal,
  ): Promise<(Event & { id: number })[]> {
    const queue = this.access(queueId, user);
    this.prune(queue, lastEventId);
    queue.parked?.finish(); // a second poller takes over, as in Zulip
    if (queue.events.length > 0 || dontBlock) return [...queue.events];
    await this.park(queue, signal);
    return [...queue.events];
  }

  /**
   * Zulip's fetch_events checks around EventQueue.prune: both messages name the client's
   * last_event_id, and "not in this queue" is decided after pruning, by comparing it with the id of
   * the newest event actually pruned.
   */
  private prune(queue: Queue, lastEventId: number): void {
    if (lastEventId < queue.maxPrunedId) {
      throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
    }
    while (queue.events.length > 0 && queue.events[0]!.id <= lastEventId) {
      queue.maxPrunedId = queue.events.shift()!.id;
    }
    if (lastEventId !== queue.maxPrunedId) throw badRequest(`Event ${lastEventId} was not in this queue`);
  }

  private park(queue: Queue, signal?: AbortSignal): Promise<void> {
    queue.lastConnectionMs = this.clock.now();
    if (signal?.aborted) return Promise.resolve(); // the client already left: nothing to wait for
    return new Promise<void>((resolve) => {
      const finish = () => {
        if (queue.parked !== parked) return;
        this.clock.clearTimeout(parked.heartbeat);
        signal?.removeEventListener('abort', finish);
        queue.parked = null;
        resolve();
      };
      const heartbeat = this.clock.setTimeout(() => this.push(queue, { type: 'heartbeat' }), this.settings.heartbeatIntervalMs);
      const parked: ParkedPoll = { finish, heartbeat };
      queue.parked = parked;
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  /** `DELETE /events`: answers any parked poll, then forgets the queue. */
  delete(queueId: string, user: User): void {
    const queue = this.access(queueId, user);
    queue.parked?.finish();
    this.queues.delete(queue.id);
  }

  /** Ends every parked poll (used when the emulator stops). */
  closeAll(): void {
    for (const queue of this.queues.values()) queue.parked?.finish();
  }

  /** Forgets queues idle past their lifespan (Zulip's GC: no poll parked and idle too long). */
  sweep(): void {
    const now = this.clock.now();
    for (const [id, queue] of this.queues) {
      if (!queue.parked && now - queue.lastConnectionMs >= queue.options.lifespanMs) this.queues.delete(id);
    }
  }

  /** Test control: expire a queue immediately, as if the idle timeout had passed. */
  expire(queueId: string): void {
    const queue = this.queues.get(queueId);
    if (!queue) return;
    queue.parked?.finish();
    this.queues.delete(queueId);
  }
}
