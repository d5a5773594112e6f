/**
 * One credential's live directory: users, channels, the credential's subscriptions, user groups and
 * realm limits, loaded from one `POST /register` and kept current by the events of that
 * credential's queue (https://zulip.com/api/register-queue, "the state together with an event queue
 * that starts exactly at that snapshot").
 *
 * It serves only what the server sent this credential. Reads return `undefined` while the directory
 * is not ready (never loaded, or its queue was lost): the caller then takes the per-request path,
 * so a stale or half-loaded directory is never trusted.
 *
 * Lifecycle, driven by the owner of the credential's queue (the event hub):
 *   empty --load--> ready --reset/invalidate--> stale --load--> ready;  dispose() ends it.
 */
import type { Channel } from '../../zulip/model/channels.js';
import type { RegisterQueueResult } from '../../zulip/model/events.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import { applyStreamEvent, applySubscriptionEvent } from './apply/channels.js';
import { applyUserGroupEvent } from './apply/user-groups.js';
import { applyRealmEvent } from './apply/realm.js';
import { applyRealmUserEvent } from './apply/users.js';
import { eventTypeEntry } from '../events/types.js';
import { newCounters, systemDirectoryClock, type DirectoryClock, type DirectoryCounters } from './counters.js';
import type { DirectoryData, DirectoryEvent } from './data.js';
import { InternedMap, type ChunkTable } from './interned-map.js';
import { snapshotFromRegister, type DirectorySnapshot } from './register.js';
import { Unreads, type UnreadsView } from './unreads.js';

export type DirectoryStatus = 'empty' | 'ready' | 'stale' | 'disposed';

export type InvalidateReason = 'queue-lost' | 'restart' | 'write-timeout' | 'apply-failed';

/** How a read-your-writes wait ended. */
export type WaitOutcome = 'applied' | 'timeout' | 'invalidated';

export interface DirectoryOptions {
  /** Shared by every directory of the gateway instance (with its InternTable of objects). */
  chunks: ChunkTable;
  counters?: DirectoryCounters;
  clock?: DirectoryClock;
  /** Told when the directory stops trusting itself; the owner re-registers and calls `load` again. */
  onInvalidate?: (reason: InvalidateReason) => void;
  /** Told after each load, so the registry can enforce its memory cap. */
  onLoaded?: () => void;
}

interface Waiter {
  match: (event: DirectoryEvent) => boolean;
  done: (outcome: WaitOutcome) => void;
}

/** Refused channel IDs remembered per directory (a bound on what a caller asking for many can make it hold). */
const MAX_MISSING_CHANNELS = 1000;
/** The directory object, its maps and realm record. */
const DIRECTORY_BYTES = 2048;
/** Zulip sorts channel lists by name, in code point order (Python's `sorted`). */
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class Directory {
  status: DirectoryStatus = 'empty';
  /** The newest event folded into the state; events at or below it are skipped. */
  lastEventId = -1;
  /**
   * Changes at each load and each invalidation: what was derived from the directory's event stream
   * in one generation (the message cache's windows) is not continued by the next.
   */
  generation = 0;
  private data: DirectoryData | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly readyWaiters = new Set<() => void>();
  /**
   * Channel IDs the server refused to this credential (GET /streams/{id}: invalid channel ID), so
   * that a record missing from the directory costs one upstream call per directory generation, not
   * one per query. Forgotten at each load and at each channel or subscription event (which may
   * give access).
   */
  private readonly missingChannels = new Set<number>();
  private readonly counters: DirectoryCounters;
  private readonly clock: DirectoryClock;

  constructor(private readonly options: DirectoryOptions) {
    this.counters = options.counters ?? newCounters();
    this.clock = options.clock ?? systemDirectoryClock;
  }

  get ready(): boolean {
    return this.status === 'ready';
  }

  /** This directory when it is ready; else undefined, counted as a miss (a request that cannot use it). */
  ifReady(): Directory | undefined {
    if (this.status === 'ready') return this;
    this.counters.misses++;
    return undefined;
  }

  // ---- loading and events ------------------------------------------------------------------------

  /** Loads a register response made with DIRECTORY_REGISTER_OPTIONS (throws if it lacks a key, leaving the state as it was). */
  loadRegisterResponse(result: RegisterQueueResult): void {
    this.load(snapshotFromRegister(result));
  }

  /**
   * Replaces the whole state with `snapshot`, the state at the start of the (new) queue. Takes
   * ownership of the snapshot's objects: they are frozen, and may be shared with other credentials.
   */
  load(snapshot: DirectorySnapshot): void {
    if (this.status === 'disposed') return;
    const { chunks } = this.options;
    const data: DirectoryData = {
      users: new InternedMap<User>(chunks),
      channels: new InternedMap<Channel>(chunks),
      subscriptions: new InternedMap<Subscription>(chunks),
      userGroups: new InternedMap<UserGroup>(chunks),
      realm: { ...snapshot.realm },
      selfId: snapshot.selfId,
      featureLevel: snapshot.featureLevel,
      unreads: new Unreads(snapshot.unreads, snapshot.userTopics, snapshot.selfId, chunks.objects),
    };
    // The snapshot's objects are interned as they are (and so frozen): the directory owns them now.
    data.users.setAll(snapshot.users.map((u) => [u.user_id, u]));
    data.channels.setAll(snapshot.channels.map((c) => [c.stream_id, c]));
    data.subscriptions.setAll(snapshot.subscriptions.map((s) => [s.stream_id, s]));
    data.userGroups.setAll(snapshot.userGroups.map((g) => [g.id, g]));
    // The new state is built before the old one is released, so shared objects are reused, not re-stored.
    const reload = this.status !== 'empty';
    this.release();
    this.missingChannels.clear();
    this.data = data;
    this.lastEventId = snapshot.lastEventId;
    this.generation++;
    this.status = 'ready';
    this.counters.loads++;
    if (reload) this.counters.reloads++;
    for (const wake of this.readyWaiters) wake();
    this.readyWaiters.clear();
    this.options.onLoaded?.();
  }

  /** The queue is gone (BAD_EVENT_QUEUE_ID, upstream restart): stop serving until the next `load`. */
  reset(): void {
    this.invalidate('queue-lost', false);
  }

  /** Applies one event of the credential's queue (any type: the ones the directory does not keep are ignored). */
  apply(event: DirectoryEvent): void {
    if (this.status !== 'ready' || event.id <= this.lastEventId) return;
    this.lastEventId = event.id;
    const data = this.data!;
    try {
      // What each type does here is the event table's (events/types.ts).
      switch (eventTypeEntry(event.type)?.directory) {
        case 'users':
          applyRealmUserEvent(data, event);
          break;
        case 'channels':
          this.missingChannels.clear();
          applyStreamEvent(data, event);
          break;
        case 'subscriptions':
          this.missingChannels.clear();
          applySubscriptionEvent(data, event);
          break;
        case 'userGroups':
          applyUserGroupEvent(data, event);
          break;
        case 'realm':
          applyRealmEvent(data, event);
          break;
        case 'reload':
          // The server was upgraded or restarted: object shapes may have changed with its version.
          this.invalidate('restart', true);
          return;
        case undefined:
          if (!data.unreads.apply(event, (id) => data.subscriptions.get(id))) return this.wake(event);
      }
    } catch {
      // An event of a shape we did not expect: the state can no longer be vouched for.
      this.invalidate('apply-failed', true);
      return;
    }
    this.counters.events++;
    this.wake(event);
  }

  applyAll(events: readonly DirectoryEvent[]): void {
    for (const event of events) this.apply(event);
  }

  /**
   * Read-your-writes: resolves when an event matching `match` has been applied, or after
   * `withinMs`. On timeout the directory invalidates itself, so the next read takes the
   * per-request path (and sees the write) until the owner reloads it.
   */
  waitForEvent(match: (event: DirectoryEvent) => boolean, withinMs: number): Promise<WaitOutcome> {
    if (this.status !== 'ready') return Promise.resolve('invalidated');
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.waiters.delete(waiter);
        if (this.status === 'ready') this.invalidate('write-timeout', true);
        resolve('timeout');
      }, withinMs);
      const waiter: Waiter = {
        match,
        done: (outcome) => {
          this.clock.clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /** Resolves when the directory is (or becomes) ready, false after `withinMs`. */
  whenReady(withinMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => (this.clock.clearTimeout(timer), resolve(true));
      const timer = this.clock.setTimeout(() => (this.readyWaiters.delete(wake), resolve(false)), withinMs);
      this.readyWaiters.add(wake);
    });
  }

  /** Releases everything; the directory serves nothing afterwards. */
  dispose(): void {
    if (this.status === 'disposed') return;
    this.invalidate('queue-lost', false);
    this.status = 'disposed';
  }

  private invalidate(reason: InvalidateReason, tellOwner: boolean): void {
    if (this.status === 'ready') this.counters.invalidations++;
    this.generation++;
    if (this.status !== 'disposed' && this.status !== 'empty') this.status = 'stale';
    this.release();
    for (const waiter of [...this.waiters]) waiter.done('invalidated');
    if (tellOwner) this.options.onInvalidate?.(reason);
  }

  private release(): void {
    const data = this.data;
    this.data = undefined;
    if (!data) return;
    data.users.clear();
    data.channels.clear();
    data.subscriptions.clear();
    data.userGroups.clear();
    data.unreads.dispose();
  }

  private wake(event: DirectoryEvent): void {
    for (const waiter of [...this.waiters]) if (waiter.match(event)) waiter.done('applied');
  }

  // ---- reads: undefined means "not ready, use the per-request path" --------------------------------

  private found<T>(record: T | undefined): T | undefined {
    if (record !== undefined) this.counters.hits++;
    return record;
  }

  private read(lookups = 1): DirectoryData | undefined {
    if (this.status !== 'ready') {
      this.counters.misses += lookups;
      return undefined;
    }
    this.counters.hits += lookups;
    return this.data;
  }

  /** A fresh list (nothing per directory is cached: lists of 20,000 pointers per credential add up). */
  private list<T>(compute: (data: DirectoryData) => T[]): T[] | undefined {
    const data = this.read();
    return data && compute(data);
  }

  /** The caller's own user ID. */
  get selfId(): number | undefined {
    return this.data?.selfId;
  }

  /** Users by ID, aligned with `ids`; an entry is undefined when the caller cannot see that user. */
  usersById(ids: readonly number[]): (User | undefined)[] | undefined {
    const data = this.read(ids.length);
    return data && ids.map((id) => data.users.get(id));
  }

  /**
   * One user, or undefined when the caller cannot see them or the directory is not ready. Counted
   * as a hit only when found: otherwise the caller asks `usersById`, which counts the lookup.
   */
  userById(id: number): User | undefined {
    return this.found(this.status === 'ready' ? this.data?.users.get(id) : undefined);
  }

  /** Every user GET /users would list (active and deactivated), by user ID. */
  allUsers(): readonly User[] | undefined {
    return this.list((d) => [...d.users.values()]); // values() is in ID order
  }

  /** One channel, as `userById`. */
  channelById(id: number): Channel | undefined {
    return this.found(this.status === 'ready' ? this.data?.channels.get(id) : undefined);
  }

  /** Whether the server already refused this channel ID to the credential (see `missingChannels`). */
  isMissingChannel(id: number): boolean {
    return this.status === 'ready' && this.missingChannels.has(id);
  }

  /** Notes that the server refused this channel ID (bounded: the set is emptied when it grows large). */
  noteMissingChannel(id: number): void {
    if (this.status !== 'ready') return;
    if (this.missingChannels.size >= MAX_MISSING_CHANNELS) this.missingChannels.clear();
    this.missingChannels.add(id);
  }

  channelsById(ids: readonly number[]): (Channel | undefined)[] | undefined {
    const data = this.read(ids.length);
    return data && ids.map((id) => data.channels.get(id));
  }

  /** A channel by name, case-insensitively as Zulip compares them; null when there is none. */
  channelByName(name: string): Channel | null | undefined {
    const data = this.read();
    if (!data) return undefined;
    // A scan, not an index: channels are few, and an index per credential would not be shared.
    const wanted = name.toLowerCase();
    for (const channel of data.channels.values()) if (channel.name.toLowerCase() === wanted) return channel;
    return null;
  }

  /** Every channel the caller has metadata access to (archived included), by name. */
  allChannels(): readonly Channel[] | undefined {
    return this.list((d) => [...d.channels.values()].sort(byName));
  }

  /** The caller's subscriptions, by channel name, as GET /users/me/subscriptions lists the unarchived ones. */
  subscriptions(): readonly Subscription[] | undefined {
    return this.list((d) => [...d.subscriptions.values()].sort(byName));
  }

  subscriptionsById(ids: readonly number[]): (Subscription | undefined)[] | undefined {
    const data = this.read(ids.length);
    return data && ids.map((id) => data.subscriptions.get(id));
  }

  userGroupsById(ids: readonly number[]): (UserGroup | undefined)[] | undefined {
    const data = this.read(ids.length);
    return data && ids.map((id) => data.userGroups.get(id));
  }

  allUserGroups(): readonly UserGroup[] | undefined {
    return this.list((d) => [...d.userGroups.values()]);
  }

  /** Realm limits and names (register.ts REALM_KEYS), e.g. `max_topic_length`. */
  realm(): Readonly<Record<string, unknown>> | undefined {
    return this.read()?.realm;
  }

  /** The caller's unread counts (unreads.ts). */
  unreads(): UnreadsView | undefined {
    const data = this.read();
    return data?.unreads.view((id) => data.subscriptions.get(id));
  }

  /** Estimated bytes this directory holds beyond the shared chunks and objects. */
  overheadBytes(): number {
    const d = this.data;
    if (!d) return 0;
    return DIRECTORY_BYTES + d.users.ownBytes + d.channels.ownBytes + d.subscriptions.ownBytes + d.userGroups.ownBytes + d.unreads.bytes;
  }

  /** Object counts, for diagnostics. */
  sizes(): { users: number; channels: number; subscriptions: number; userGroups: number } {
    const d = this.data;
    return {
      users: d?.users.size ?? 0,
      channels: d?.channels.size ?? 0,
      subscriptions: d?.subscriptions.size ?? 0,
      userGroups: d?.userGroups.size ?? 0,
    };
  }
}
