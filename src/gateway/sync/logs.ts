/**
 * The change logs of one gateway instance, one per credential session, and their retention: what
 * lets a phone that slept for hours ask `changes(since:)` and get only what changed, with no
 * registration upstream (docs/mobile-sync.md).
 *
 * - Every session the hub creates gets a change log (a hub tap, like the live directory's), fed by
 *   the same batches, committed at the positions subscription cursors carry: a stamp is a cursor.
 * - Retention: a credential that passed a stamp back (`changes(since:)`, or a subscription resuming
 *   from it) keeps its session (and so its upstream queue, whose only upkeep is the long-poll) and
 *   its live directory for `retentionMs` after that use, so its log keeps growing while the phone
 *   sleeps. Past it the lease is released and the session ends after the hub's grace period: its
 *   stamps become unknown, and `changes` says `resyncRequired`.
 * - Memory: all logs together stay under `maxBytes` (estimated); above it the least recently used
 *   are dropped (their stamps then need a resync). Records older than the retention are pruned.
 * - A refused credential's session ends, and its log with it; `purge` does the same on demand.
 *
 * Stamps are the hub's cursors, so in cluster mode (one Redis log per credential, the same
 * sequence numbers on every instance) a stamp names the same position on every instance, and the
 * compacted log is in Redis too (redis.ts): an instance that did not follow the credential when the
 * stamp was given answers from there.
 */
import type { ZulipConnection } from '../../zulip/connection.js';
import { decodeCursor, encodeCursor, type Cursor } from '../events/buffer.js';
import { sessionKey, type EventHub } from '../events/hub.js';
import type { EventSession } from '../events/session.js';
import { systemDirectoryClock, type DirectoryClock } from '../directory/counters.js';
import type { Directory } from '../directory/directory.js';
import type { LiveDirectories } from '../directory/live.js';
import type { ClusterRedis } from '../cluster/redis.js';
import { ChangeLog, type ChangeSet } from './log.js';
import { RedisChangeLog } from './redis.js';

export interface SyncOptions {
  /** How long a credential keeps its queue and change log after it last used a stamp. @default 86_400_000 (24 h) */
  retentionMs?: number;
  /** Estimated memory cap of all change logs together; least recently used dropped first. @default 64 MiB */
  maxBytes?: number;
  /** How long a query waits for its credential's first queue registration to stamp its answer. @default 5000 */
  stampWaitMs?: number;
  clock?: DirectoryClock;
}

export const DEFAULT_SYNC_RETENTION_MS = 24 * 3_600_000;
export const DEFAULT_SYNC_MAX_BYTES = 64 * 1_048_576;

/** The answer to `changes(since:)`. */
export type SyncAnswer =
  | { stamp: string; resyncRequired: false; changes: ChangeSet; directory: Directory | undefined }
  | { stamp: string | undefined; resyncRequired: true; reason: 'unknown' | 'expired' | 'malformed' };

interface LogEntry {
  key: string;
  session: EventSession;
  log: ChangeLog;
  lastUsed: number;
  /** Until when the session is held for this credential; 0 when not retained. */
  retainedUntil: number;
  /** Ends the retention lease; undefined while none is held. */
  release: (() => void) | undefined;
  /** (time, position) about once a minute: what the retention prunes by. */
  checkpoints: { at: number; seq: number }[];
  unlisten: () => void;
  /** Cluster mode: the log's copy in Redis. */
  copy: RedisChangeLog | undefined;
}

const CHECKPOINT_MS = 60_000;

export class SyncLogs {
  private readonly entries = new Map<string, LogEntry>(); // least recently used first
  private readonly retentionMs: number;
  private readonly maxBytes: number;
  private readonly stampWaitMs: number;
  private readonly clock: DirectoryClock;
  private readonly removeTap: () => void;
  private sweeper: unknown;
  private closed = false;
  /** Logs dropped to stay under the memory cap, and retentions that ended. */
  readonly counters = { evictedMemory: 0, expired: 0, purged: 0 };

  constructor(
    private readonly hub: EventHub,
    /** The gateway's upstream connection: the retained sessions' queues are not a request's calls. */
    private readonly base: ZulipConnection,
    private readonly directories: LiveDirectories | undefined,
    options: SyncOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? DEFAULT_SYNC_RETENTION_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_SYNC_MAX_BYTES;
    this.stampWaitMs = options.stampWaitMs ?? 5000;
    this.clock = options.clock ?? systemDirectoryClock;
    this.removeTap = hub.addTap({ opened: (key, session, connection) => this.follow(key, session, connection) });
    const tick = () => {
      this.sweep();
      this.sweeper = this.clock.setTimeout(tick, CHECKPOINT_MS);
      (this.sweeper as { unref?: () => void }).unref?.();
    };
    this.sweeper = this.clock.setTimeout(tick, CHECKPOINT_MS);
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  /**
   * The stamp of an answer computed now for this credential: the position of its event stream,
   * when its queue is registered. With `wait`, a credential without one gets it first (the
   * registration its live directory makes anyway, which then serves the query), so that nothing
   * the answer reads can fall before the stream begins; undefined when it cannot be registered
   * within `stampWaitMs`, and, with the live directory off, when no subscription holds a session.
   */
  async stamp(connection: ZulipConnection, wait: boolean): Promise<string | undefined> {
    const now = this.positionNow(connection);
    // Without live directories a query never starts a queue: only a subscription's session stamps its answers.
    if (!wait || this.closed || !connection.credentials || !this.directories) return now;
    // The directory loaded (again, after it was dropped for idleness) serves the query that waits for its stamp.
    if (now !== undefined && this.directories.peek(connection)) return now;
    if ((await this.directories.settled(connection, this.stampWaitMs)) !== undefined) {
      const settled = this.positionNow(connection);
      if (settled !== undefined) return settled;
    }
    let timer: unknown;
    const timeout = new Promise<undefined>((resolve) => (timer = this.clock.setTimeout(() => resolve(undefined), this.stampWaitMs)));
    const registered = this.hub
      .withSession(this.base.withCredentials(connection.credentials), async (session) => {
        const position = session.position();
        return position && encodeCursor(position);
      })
      .catch(() => undefined);
    try {
      return await Promise.race([registered, timeout]);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** The stamp of now when the credential's stream is registered here, else undefined (never waits). */
  positionNow(connection: ZulipConnection): string | undefined {
    if (!connection.credentials) return undefined;
    const position = this.hub.position(connection);
    return position && encodeCursor(position);
  }

  /**
   * The credential passed a stamp back (a subscription resuming from it): keep its session, log
   * and directory for the retention period from now.
   */
  retain(connection: ZulipConnection): void {
    if (this.closed || !connection.credentials) return;
    const key = sessionKey(connection);
    const entry = this.entries.get(key);
    if (!entry || entry.session.stopped) return;
    this.touch(entry);
    entry.retainedUntil = this.clock.now() + this.retentionMs;
    if (entry.release) return;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    entry.release = release;
    this.hub.withSession(this.base.withCredentials(connection.credentials), () => held).catch(() => {
      if (entry.release === release) entry.release = undefined;
    });
  }

  /**
   * What changed for this credential after `since`, from its log (no upstream call); starts or
   * extends its retention. In cluster mode, a stamp this instance's log cannot answer is answered
   * from the log's copy in Redis.
   */
  async changes(connection: ZulipConnection, since: string): Promise<SyncAnswer> {
    const stamp = this.positionNow(connection);
    const cursor = decodeCursor(since);
    if (!cursor) return { stamp, resyncRequired: true, reason: 'malformed' };
    const key = sessionKey(connection);
    const entry = this.entries.get(key);
    const live = entry && !entry.session.stopped ? entry : undefined;
    if (live) this.retain(connection);
    const directory = this.directories?.registry.get(key)?.ifReady();
    if (live && stamp !== undefined && live.log.answers(cursor)) {
      const answer = live.log.since(cursor);
      if ('changes' in answer) return { stamp, resyncRequired: false, changes: answer.changes, directory };
    }
    const redis = this.hub.cluster?.redis;
    if (redis && connection.credentials) {
      const copy = await RedisChangeLog.read(redis, this.hub.cluster!.keysOf(connection.baseUrl, connection.credentials).changes);
      const position = copy?.position;
      if (copy && position) {
        const answer = copy.since(cursor);
        // The copy's position is the same on every instance: the next stamp, when this one has none yet.
        const next = stamp ?? encodeCursor(position);
        if ('changes' in answer) return { stamp: next, resyncRequired: false, changes: answer.changes, directory };
        return { stamp: next, resyncRequired: true, reason: answer.resyncRequired };
      }
    }
    if (!live || stamp === undefined) return { stamp, resyncRequired: true, reason: 'unknown' };
    const answer = live.log.since(cursor);
    if ('resyncRequired' in answer) return { stamp, resyncRequired: true, reason: answer.resyncRequired };
    return { stamp, resyncRequired: false, changes: answer.changes, directory };
  }

  /**
   * Forgets the credential's log and ends its retention (its stamps then need a resync): for a
   * revoked credential (the revocation path calls it on 401) and for tests.
   */
  purge(connection: ZulipConnection): void {
    if (!connection.credentials) return;
    const cluster = this.hub.cluster;
    if (cluster) void purgeCopy(cluster.redis, cluster.keysOf(connection.baseUrl, connection.credentials).changes);
    const entry = this.entries.get(sessionKey(connection));
    if (!entry) return;
    this.counters.purged++;
    this.endRetention(entry);
    entry.log.reset();
  }

  /** Estimated bytes of every log, logs and retained credentials. */
  stats(): { logs: number; retained: number; bytes: number; evictedMemory: number; expired: number; purged: number } {
    let bytes = 0;
    let retained = 0;
    for (const entry of this.entries.values()) {
      bytes += entry.log.bytes;
      if (entry.release) retained++;
    }
    return { logs: this.entries.size, retained, bytes, ...this.counters };
  }

  /** The credential's log bytes (bench and tests). */
  bytesOf(connection: ZulipConnection): number {
    return this.entries.get(sessionKey(connection))?.log.bytes ?? 0;
  }

  close(): void {
    this.closed = true;
    this.removeTap();
    if (this.sweeper !== undefined) this.clock.clearTimeout(this.sweeper);
    for (const entry of [...this.entries.values()]) this.drop(entry);
  }

  /** Ends retentions past their time, prunes what no retained stamp can ask for, keeps retained directories warm. */
  sweep(): void {
    const now = this.clock.now();
    for (const entry of [...this.entries.values()]) {
      if (entry.session.stopped) {
        this.drop(entry);
        continue;
      }
      if (entry.release && entry.retainedUntil <= now) {
        // Past retention: the stamps it kept are answered `resyncRequired`, never with a gap.
        this.counters.expired++;
        this.endRetention(entry);
        entry.log.restartHere();
      }
      // Retained: the directory stays loaded (it would reload by deleting the queue, a resync for every stamp).
      if (entry.release) this.directories?.registry.get(entry.key);
      const cutoff = now - this.retentionMs;
      let floor: number | undefined;
      while (entry.checkpoints.length > 0 && entry.checkpoints[0]!.at <= cutoff) floor = entry.checkpoints.shift()!.seq;
      if (floor !== undefined) entry.log.forgetBefore(floor);
    }
  }

  private follow(key: string, session: EventSession, connection: ZulipConnection): void {
    if (this.closed) return;
    const old = this.entries.get(key);
    if (old) this.drop(old);
    const log = new ChangeLog();
    const cluster = this.hub.cluster;
    let copy: RedisChangeLog | undefined;
    if (cluster && connection.credentials) {
      copy = new RedisChangeLog(cluster.redis, cluster.keysOf(connection.baseUrl, connection.credentials).changes, this.retentionMs);
      log.trackChanges();
    }
    const entry: LogEntry = { key, session, log, lastUsed: this.clock.now(), retainedUntil: 0, release: undefined, checkpoints: [], unlisten: () => undefined, copy };
    entry.unlisten = session.listen({
      registered: (_result, reason) => {
        // A replaced queue: nothing before the position after its RESYNC is answerable (committed then).
        if (reason) return log.reset();
        // A first registration (or, in cluster mode, another instance's, loaded here): the log starts where the stream is.
        const position = session.position();
        if (position) log.commit(position);
      },
      lost: () => log.reset(),
      events: (events) => log.stage(events),
      position: (position: Cursor) => {
        log.commit(position);
        const now = this.clock.now();
        const last = entry.checkpoints.at(-1);
        if (!last || now - last.at >= CHECKPOINT_MS) entry.checkpoints.push({ at: now, seq: position.seq });
        this.enforceCap(entry);
        // The instance polling the queue writes the copy; the others only keep their own log.
        if (copy && session.holding) void copy.flush(log);
        else log.takeDirty();
      },
    });
    this.entries.set(key, entry);
  }

  private touch(entry: LogEntry): void {
    entry.lastUsed = this.clock.now();
    this.entries.delete(entry.key);
    this.entries.set(entry.key, entry);
  }

  private endRetention(entry: LogEntry): void {
    const release = entry.release;
    entry.release = undefined;
    entry.retainedUntil = 0;
    release?.();
  }

  private drop(entry: LogEntry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    entry.unlisten();
    entry.log.reset();
    this.endRetention(entry);
  }

  /** Least recently used logs go first (never `keep`, the one growing now) until all fit. */
  private enforceCap(keep: LogEntry): void {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.log.bytes;
    if (total <= this.maxBytes) return;
    for (const entry of [...this.entries.values()]) {
      if (total <= this.maxBytes) return;
      if (entry === keep) continue;
      if (entry.log.bytes === 0) continue;
      total -= entry.log.bytes;
      this.counters.evictedMemory++;
      this.endRetention(entry);
      entry.log.restartHere();
    }
  }
}

/** Deletes a credential's copy in Redis (Redis unreachable: it expires with the retention). */
async function purgeCopy(redis: ClusterRedis, key: string): Promise<void> {
  await redis.run((c) => c.del(key)).catch(() => undefined);
}
