/**
 * The live directories of one gateway instance, wired to its event hub: each credential's
 * directory is loaded by the registration of that credential's one hub queue (the queue its
 * subscriptions use) and kept current by the same queue's events.
 *
 * - Every session the hub creates gets a directory (a {@link SessionTap}), so the directory sees the
 *   queue's first registration. The registration fetches the directory's state
 *   (DIRECTORY_REGISTER_OPTIONS, merged into the hub's own).
 * - The first lookup of a credential (`forRequest`) opens a session for it if none exists and does
 *   not wait: until the registration is loaded, reads return undefined and the loaders take the
 *   per-request path, so a first query is never slower than without the directory.
 * - The directory holds a lease on the session while it exists, so the queue lives as long as the
 *   directory is used (idle time), not just the subscriber grace period.
 * - A lost queue (BAD_EVENT_QUEUE_ID) re-registers in the hub, and its registration reloads the
 *   directory. When the directory stops trusting itself (restart event, an event it cannot apply)
 *   or was dropped while subscribers kept the queue alive, the queue is deleted upstream: the hub
 *   then registers a new one exactly as after an expiry (subscribers get the QUEUE_EXPIRED resync
 *   they would need anyway), and that registration reloads the directory.
 * - Writes through the gateway fence the directory (plugins/directory-writes.ts): reads bypass it
 *   until the write's event is applied, so the writer's next query sees the write.
 * - The message cache (messages/cache.ts) follows the same sessions: its windows are fed by the
 *   events the directory applied, and dropped whenever the directory reloads or is released.
 */
import type { ZulipConnection } from '../../zulip/connection.js';
import { deleteQueue } from '../../zulip/routes/events.js';
import { sessionKey, type EventHub } from '../events/hub.js';
import type { RawEvent } from '../events/model.js';
import type { EventSession } from '../events/session.js';
import { systemDirectoryClock, type DirectoryClock } from './counters.js';
import type { DirectoryEvent } from './data.js';
import type { Directory } from './directory.js';
import { DirectoryLoadFailures, type DirectoryLoadFailure } from './load-failures.js';
import { DIRECTORY_CLIENT_CAPABILITIES, DIRECTORY_EVENT_TYPES, DIRECTORY_FETCH_EVENT_TYPES, missingDirectoryKeys } from './register.js';
import { DirectoryRegistry, type DirectoryStats, type DropReason } from './registry.js';
import { MessageCache, type CacheLookup, type CacheQuery, type MessageCacheOptions } from './messages/cache.js';

export interface LiveDirectoryOptions {
  /** Drop a credential's directory (and release its queue) after this long unused. @default 300_000 */
  idleMs?: number;
  /** Estimated memory cap of all directories; least recently used ones go first. @default 512 MiB */
  maxBytes?: number;
  /** Longest a write fences its credential's directory while waiting for its event. @default 3000 */
  writeFenceMs?: number;
  clock?: DirectoryClock;
  /** Told of each failure to load a directory (the gateway logs and counts them). @default none */
  onLoadFailure?: (failure: DirectoryLoadFailure) => void;
  /**
   * Keep the message windows queries fetched, current from the same events (messages/cache.ts);
   * false: every `messages` page goes upstream. @default {} (on, with the cache's defaults)
   */
  messageCache?: MessageCacheOptions | false;
}

/** What a write through the gateway waits for: an event of one of these types, newer than `mark`. */
interface Fence {
  types: ReadonlySet<string>;
  mark: number;
  timer: unknown;
  /** Told the id of the event that lifted the fence (cluster mode tells the other instances). */
  onLifted?: (eventId: number) => void;
}

/** One credential's session as the directories follow it. */
interface Entry {
  session: EventSession;
  /** A connection without the request's counters, to delete the queue when a reload is due. */
  connection: ZulipConnection;
  queueId: string | undefined;
  /** Ends the directory's lease on the session; undefined while no lease is held. */
  release: (() => void) | undefined;
  /** Set when the directory needs a fresh registration that the queue will not send by itself. */
  reloadWanted: boolean;
  fences: Set<Fence>;
  /** Reads waiting for the directory to be loaded and unfenced (`settled`). */
  settledWaiters: Set<() => void>;
  unlisten: () => void;
}

export class LiveDirectories {
  readonly registry: DirectoryRegistry;
  /** Directories that could not load, and why (logged, counted, and in /readiness's detail). */
  readonly loadFailures: DirectoryLoadFailures;
  /** The message cache of every credential followed; undefined when off. */
  readonly messages: MessageCache | undefined;
  private readonly entries = new Map<string, Entry>();
  private readonly removeTap: () => void;
  /** How long a write fences reads when its event does not come (`done` to lifted). */
  readonly writeFenceMs: number;
  private readonly clock: DirectoryClock | undefined;
  private closed = false;

  constructor(
    private readonly hub: EventHub,
    /** The gateway's upstream connection (no credentials, no per-request counters). */
    private readonly base: ZulipConnection,
    options: LiveDirectoryOptions = {},
  ) {
    this.writeFenceMs = options.writeFenceMs ?? 3000;
    this.clock = options.clock;
    this.loadFailures = new DirectoryLoadFailures(options.onLoadFailure);
    this.messages =
      options.messageCache === false
        ? undefined
        : new MessageCache({ ...(options.clock && { clock: options.clock }), writeFenceMs: this.writeFenceMs, ...options.messageCache });
    this.registry = new DirectoryRegistry({
      ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
      ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
      ...(options.clock && { clock: options.clock }),
      onDrop: (key, reason) => this.dropped(key, reason),
      onInvalidate: (key) => this.requestReload(key),
    });
    this.removeTap = hub.addTap({
      register: {
        eventTypes: DIRECTORY_EVENT_TYPES,
        fetchEventTypes: DIRECTORY_FETCH_EVENT_TYPES,
        clientCapabilities: DIRECTORY_CLIENT_CAPABILITIES,
      },
      opened: (key, session, connection) => this.attach(key, session, connection),
    });
    this.registry.startSweeping();
  }

  /** Sees every registration response (the gateway learns the server's length limits from them). */
  onRegistered: ((response: Readonly<Record<string, unknown>>) => void) | undefined;

  /**
   * Whether a credential (by session key) may be served from what the gateway holds: false while
   * it is refused or its last check upstream is too old (revocation.ts). Such a credential's lookups
   * take the per-request path, and no session is opened for it. @default every credential
   */
  trusted: ((key: string) => boolean) | undefined;

  /**
   * The credential was refused (revocation.ts): its directory and message windows are dropped at
   * once, and its session is no longer followed.
   */
  purge(connection: ZulipConnection): void {
    const key = sessionKey(connection);
    this.forget(key);
    this.registry.drop(key, 'closed');
    this.messages?.forget(key);
  }

  /**
   * The directory to read for this request's credential, or undefined (anonymous, still loading,
   * fenced by a write, stale): the caller then takes the per-request path. Starts the credential's
   * session on first use without waiting for it.
   */
  forRequest(connection: ZulipConnection): Directory | undefined {
    if (this.closed || !connection.credentials) return undefined;
    const key = sessionKey(connection);
    if (this.trusted && !this.trusted(key)) return undefined;
    let entry = this.entries.get(key);
    if (entry?.session.stopped) {
      // Its queue is gone for good (refused, or stopped without a lease): never serve what it fed.
      this.forget(key);
      this.registry.drop(key, 'closed');
      entry = undefined;
    }
    if (!entry?.release) entry = this.lease(connection, key);
    if (!entry) return undefined;
    if (entry.reloadWanted) this.reload(key, entry);
    const directory = this.registry.open(key); // marks it used
    if (entry.fences.size > 0) {
      this.registry.counters.misses++;
      return undefined;
    }
    return directory;
  }

  /**
   * The credential's directory when a request would read it now (loaded, not fenced by a write),
   * without starting a session, marking it used or counting a miss: what the upstream-call
   * estimate (upstream/estimate.ts) looks at before an operation runs.
   */
  peek(connection: ZulipConnection): Directory | undefined {
    if (this.closed || !connection.credentials) return undefined;
    const key = sessionKey(connection);
    if (this.trusted && !this.trusted(key)) return undefined;
    const entry = this.entries.get(key);
    if (!entry?.release || entry.session.stopped || entry.reloadWanted || entry.fences.size > 0) return undefined;
    const directory = this.registry.peek(key);
    return directory?.ready ? directory : undefined;
  }

  /**
   * A write as `connection` that may change the directory begins: until an event of one of
   * `types` newer than what the directory holds now is applied (or `writeFenceMs` after `done`),
   * reads bypass the directory. `done(false)` (the write failed) lifts the fence at once.
   */
  fence(connection: ZulipConnection, types: readonly string[], onLifted?: (eventId: number) => void): { done(ok: boolean): void } {
    const entry = connection.credentials && !this.closed ? this.entries.get(sessionKey(connection)) : undefined;
    if (!entry) return { done: () => undefined };
    const directory = this.registry.get(sessionKey(connection));
    const fence: Fence = { types: new Set(types), mark: directory?.lastEventId ?? -1, timer: undefined, ...(onLifted && { onLifted }) };
    entry.fences.add(fence);
    const clock = this.clock ?? systemDirectoryClock;
    const lift = () => {
      entry.fences.delete(fence);
      wakeSettled(entry);
    };
    return {
      done: (ok) => {
        if (!entry.fences.has(fence)) return;
        if (!ok) return lift();
        fence.timer = clock.setTimeout(lift, this.writeFenceMs);
      },
    };
  }

  /**
   * The credential's directory once it is loaded and no write of the caller fences it, for reads
   * that have no cheap per-request path (the unread counts need a registration of their own):
   * waiting for the credential's queue costs less. Undefined when off, anonymous, or not settled
   * within `withinMs`.
   */
  settled(connection: ZulipConnection, withinMs: number): Promise<Directory | undefined> {
    const now = this.forRequest(connection);
    if (now?.ready) return Promise.resolve(now);
    const entry = connection.credentials && !this.closed ? this.entries.get(sessionKey(connection)) : undefined;
    if (!entry) return Promise.resolve(undefined);
    const clock = this.clock ?? systemDirectoryClock;
    return new Promise((resolve) => {
      const finish = (directory: Directory | undefined) => {
        clock.clearTimeout(timer);
        entry.settledWaiters.delete(check);
        resolve(directory);
      };
      const check = () => {
        // The session is gone (refused credentials, closed): the caller takes its own path.
        if (this.closed || this.entries.get(sessionKey(connection)) !== entry) return finish(undefined);
        const directory = this.forRequest(connection);
        if (directory?.ready) finish(directory);
      };
      const timer = clock.setTimeout(() => finish(undefined), withinMs);
      entry.settledWaiters.add(check);
    });
  }

  /**
   * The message cache's answer to a `messages` page of this request's credential, or a miss to
   * store the fetched page into; undefined when the cache is off or cannot serve the request (its
   * credential's directory not followed yet, or not ready).
   */
  cachedMessages(connection: ZulipConnection, query: CacheQuery): CacheLookup | undefined {
    if (!this.messages || this.closed || !connection.credentials) return undefined;
    const key = sessionKey(connection);
    if (this.trusted && !this.trusted(key)) return undefined;
    // Only a session a directory lookup started: a page alone never registers a queue (the first
    // lookup of a sender or channel does, and the next page is then cached).
    const directory = this.entries.get(key)?.release ? this.forRequest(connection) : undefined;
    return this.messages.lookup(key, directory, query);
  }

  /** A message write as `connection` begins: its cached windows are not read until its event came (see MessageCache.fence). */
  fenceMessages(connection: ZulipConnection, types: readonly string[]): { done(ok: boolean): void } {
    if (!this.messages || this.closed || !connection.credentials) return { done: () => undefined };
    return this.messages.fence(sessionKey(connection), types);
  }

  /** What works but degraded, one line each for /readiness: directories that cannot load, and the message cache's failures. */
  degradations(): string[] {
    return [...this.loadFailures.detail(), ...(this.messages?.detail() ?? [])];
  }

  /** Counters and sizes for metrics (see DirectoryStats), plus sessions followed. */
  stats(): DirectoryStats & { sessions: number; fences: number; waitingReads: number } {
    let fences = 0;
    let waitingReads = 0;
    for (const entry of this.entries.values()) {
      fences += entry.fences.size;
      waitingReads += entry.settledWaiters.size;
    }
    // waitingReads: reads (`settled`) waiting for a directory to load or for a write's fence to lift.
    return { ...this.registry.stats(), sessions: this.entries.size, fences, waitingReads };
  }

  close(): void {
    this.closed = true;
    this.removeTap();
    this.registry.close();
    this.messages?.close();
    for (const key of [...this.entries.keys()]) this.forget(key);
  }

  // ---- following sessions --------------------------------------------------------------------------

  /** A new hub session: follow it from its first registration. */
  private attach(key: string, session: EventSession, connection: ZulipConnection): void {
    if (this.closed) return;
    this.forget(key); // a stopped session of the same credential, replaced by this one
    this.registry.drop(key, 'closed');
    this.registry.open(key);
    const entry: Entry = {
      session,
      connection: this.base.withCredentials(connection.credentials),
      queueId: undefined,
      release: undefined,
      reloadWanted: false,
      fences: new Set(),
      settledWaiters: new Set(),
      unlisten: () => undefined,
    };
    entry.unlisten = session.listen({
      registered: (result, reason) => {
        this.onRegistered?.(result as unknown as Record<string, unknown>);
        entry.queueId = result.queue_id ?? undefined;
        entry.reloadWanted = false;
        // A new queue: what the old one fed the message windows is not continued by it.
        this.messages?.reset(key);
        const current = this.registry.get(key);
        if (!current) return; // dropped while the session lives on: reloaded on the next lookup
        if (reason) current.reset();
        const missing = missingDirectoryKeys(result);
        try {
          if (missing.length > 0) throw new Error('missing keys');
          current.loadRegisterResponse(result);
        } catch {
          // A registration without the directory's keys: serve per request until the next one, visibly.
          this.loadFailures.failed(key, missing.length > 0 ? 'missing_keys' : 'invalid', missing);
          return;
        }
        this.loadFailures.cleared(key);
        for (const fence of entry.fences) fence.mark = current.lastEventId;
        wakeSettled(entry);
      },
      // Cluster mode: the log no longer continues what the directory loaded (see cluster/session/).
      lost: () => {
        this.messages?.reset(key);
        const directory = this.registry.get(key);
        if (!directory) return;
        const wasServing = directory.status === 'ready';
        directory.reset();
        if (wasServing) this.loadFailures.failed(key, 'log_lost');
      },
      events: (events) => {
        this.registry.get(key)?.applyAll(events as unknown as DirectoryEvent[]);
        this.messages?.applyEvents(key, events as unknown as DirectoryEvent[]);
        if (entry.fences.size > 0) liftFences(entry, events);
        if (entry.fences.size === 0) wakeSettled(entry);
      },
    });
    this.entries.set(key, entry);
  }

  /** Holds a lease on the credential's session for as long as its directory exists. */
  private lease(connection: ZulipConnection, key: string): Entry | undefined {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const queueConnection = this.base.withCredentials(connection.credentials);
    // Runs synchronously up to its first await: the session (and, through the tap, the entry) exists on return.
    this.hub
      .withSession(queueConnection, () => held)
      .catch(() => {
        // Refused, or no registration in time: forget it; the next lookup tries again.
        if (this.entries.get(key)?.release === release) {
          this.forget(key);
          this.registry.drop(key, 'closed');
        }
      });
    const entry = this.entries.get(key);
    if (!entry) {
      release();
      return undefined;
    }
    entry.release = release;
    // The session existed before (a subscription's) but its directory was dropped: it needs a registration.
    if (!this.registry.get(key)) entry.reloadWanted = true;
    return entry;
  }

  /** The registry dropped the directory (idle, memory, closed): release the queue, keep following the session. */
  private dropped(key: string, reason: DropReason): void {
    this.messages?.reset(key, reason === 'closed' ? 'queue' : reason);
    const entry = this.entries.get(key);
    if (!entry) return;
    const release = entry.release;
    entry.release = undefined;
    release?.();
    // Without a lease the hub may stop the session; the next lookup leases it again (or a new one).
  }

  /** The directory asked to be loaded again (restart, an event it could not apply, a write timeout). */
  private requestReload(key: string): void {
    const entry = this.entries.get(key);
    if (entry) this.reload(key, entry);
  }

  /** Deletes the queue upstream; the hub re-registers as after an expiry and that registration loads the directory. */
  private reload(key: string, entry: Entry): void {
    entry.reloadWanted = false;
    const queueId = entry.queueId;
    if (queueId === undefined || entry.session.stopped) return;
    entry.queueId = undefined;
    deleteQueue(entry.connection, { queueId }, { retry: false }).catch(() => {
      // Gone already (it expired): the hub registers a new one anyway.
      if (this.entries.get(key) === entry) entry.reloadWanted = true;
    });
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.messages?.forget(key);
    wakeSettled(entry);
    this.loadFailures.cleared(key);
    entry.unlisten();
    entry.release?.();
    entry.release = undefined;
    entry.fences.clear();
  }
}

function wakeSettled(entry: Entry): void {
  for (const check of [...entry.settledWaiters]) check();
}

function liftFences(entry: Entry, events: readonly RawEvent[]): void {
  for (const fence of [...entry.fences]) {
    const lifting = events.find((e) => e.id > fence.mark && fence.types.has(e.type));
    if (!lifting) continue;
    entry.fences.delete(fence);
    fence.onLifted?.(lifting.id);
  }
}
