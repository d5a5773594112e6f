/**
 * The message cache: per credential, the message windows that queries fetched with
 * `GET /messages`, kept current by the same credential's event queue as its live directory
 * (events.ts says which events apply exactly; anything else drops the windows it touches).
 *
 * - Isolation: windows are kept per credential key and fed only by that credential's queue, so a
 *   credential is served only what the server sent it.
 * - A window is served only while its credential's directory is ready and in the same generation
 *   as when the window was fetched (a lost or reloaded queue may have missed events), and, for a
 *   channel narrow, while the caller is subscribed to the channel.
 * - Events that arrive while a window is being fetched are applied to it again once it is stored:
 *   the fetch may or may not have seen them, and applying one twice changes nothing.
 * - Read-your-writes: a message write through the gateway fences the writer's windows (no reads)
 *   until the queue delivered an event of the kind the write causes, or `writeFenceMs` after it.
 * - Memory: windows are bounded in estimated bytes together, least recently used dropped first,
 *   and in number per credential.
 * - Nothing degrades silently: each request the cache cannot serve for a reason other than a plain
 *   miss, and each window dropped, is reported with a bounded reason (`onUnusable`, `onDrop`); an
 *   event type the cache does not know is a cache-wide failure, listed by `detail()` for /readiness.
 */
import type { Anchor, GetMessagesResult } from '../../../zulip/model/messages.js';
import { systemDirectoryClock, type DirectoryClock } from '../counters.js';
import type { Directory } from '../directory.js';
import { applyToWindows, type WindowDropReason, type WindowSlot } from './events.js';
import { exactNarrow, narrowKey, type ExactNarrow, type NarrowFields } from './narrow.js';
import { MessageWindow } from './window.js';

export type { WindowDropReason } from './events.js';

/**
 * Why a request's shape keeps it from the cache (a bounded metric label). A plain miss is not one,
 * nor the passing states every credential goes through (its directory still loading, its own write
 * fencing its windows), which the directory's own metrics and the lookups' misses show.
 */
export type CacheUnusableReason = 'narrow' | 'options' | 'anchor' | 'unsubscribed' | 'uncacheable';

export interface MessageCacheOptions {
  /** Estimated memory cap of every window together; least recently used go first. @default 64 MiB */
  maxBytes?: number;
  /** Windows kept per credential, at most. @default 32 */
  maxWindowsPerCredential?: number;
  /** Longest a message write fences its credential's windows while waiting for its event. @default 3000 */
  writeFenceMs?: number;
  clock?: DirectoryClock;
  /** A request the cache could not serve, and why (metrics). */
  onUnusable?: (reason: CacheUnusableReason) => void;
  /** Windows dropped, and why (metrics). */
  onDrop?: (reason: WindowDropReason, count: number) => void;
}

/** One `messages` page request, as the schema resolves it. */
export interface CacheQuery {
  narrow: NarrowFields | null | undefined;
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  /** The format options: only the queue's own (HTML, avatar URLs, the empty topic's display name) are cached. */
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/** A request's use of the cache: its answer, or a miss whose fetched result may be stored. */
export type CacheLookup = { hit: GetMessagesResult } | { hit?: undefined; store(result: GetMessagesResult): void; abandon(): void };

/** Told which messages of which credential changed (for live queries); resources like `Message:12`. */
export type ChangeListener = (credentialKey: string, resources: readonly string[]) => void;

interface Slot extends WindowSlot {
  key: string;
  narrowKey: string;
  directory: Directory;
  generation: number;
}

interface Fence {
  types: ReadonlySet<string>;
  mark: number;
  timer: unknown;
}

/** Events seen while a window was being fetched, replayed onto it when stored. */
interface Pending {
  events: { id: number; type: string; [key: string]: unknown }[];
  overflow: boolean;
}

interface Credential {
  windows: Map<string, Slot>;
  fences: Set<Fence>;
  pending: Set<Pending>;
  lastEventId: number;
}

/** Events held for one fetch in flight, at most; past it the fetched window is not stored. */
const MAX_PENDING_EVENTS = 1000;
/** How long an event type the cache could not apply stays in the readiness detail. */
const FAILURE_MEMORY_MS = 300_000;
/** Distinct unknown event types remembered for the detail, at most. */
const MAX_FAILURE_KINDS = 20;

export interface MessageCacheStats {
  windows: number;
  credentials: number;
  bytes: number;
  hits: number;
  misses: number;
}

export class MessageCache {
  private readonly credentials = new Map<string, Credential>();
  /** Every window, least recently used first. */
  private readonly lru = new Map<Slot, true>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private readonly listeners = new Set<ChangeListener>();
  /** Event types that dropped every window of a credential, with when they last did. */
  private readonly failures = new Map<string, { at: number; count: number }>();
  private readonly clock: DirectoryClock;
  private readonly maxBytes: number;
  private readonly maxWindows: number;
  private readonly writeFenceMs: number;

  constructor(private readonly options: MessageCacheOptions = {}) {
    this.clock = options.clock ?? systemDirectoryClock;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.maxWindows = options.maxWindowsPerCredential ?? 32;
    this.writeFenceMs = options.writeFenceMs ?? 3000;
  }

  /**
   * The cached answer to `query` for the credential `key`, or a miss to store the fetched answer
   * into; undefined when the cache cannot serve this request at all (reported to `onUnusable`).
   * @param directory the credential's directory for this request (undefined: not ready or fenced)
   */
  lookup(key: string, directory: Directory | undefined, query: CacheQuery): CacheLookup | undefined {
    if (!query.applyMarkdown || query.clientGravatar || query.allowEmptyTopicName) return this.unusable('options');
    if (query.anchor === 'first_unread') return this.unusable('anchor');
    if (!directory?.ready || directory.selfId === undefined) return undefined;
    const narrow = exactNarrow(query.narrow, directory.selfId, directory.realm()?.realm_empty_topic_display_name);
    if (!narrow) return this.unusable('narrow');
    if (narrow.channelId !== undefined && !directory.subscriptionsById([narrow.channelId])?.[0]) return this.unusable('unsubscribed');
    const credential = this.credential(key);
    const nKey = narrowKey(narrow);
    const windowQuery = { anchor: query.anchor, numBefore: query.numBefore, numAfter: query.numAfter };
    const slot = credential.windows.get(nKey);
    if (slot && (slot.directory !== directory || slot.generation !== directory.generation)) this.drop([slot], 'queue');
    else if (slot) {
      this.touch(slot);
      const answer = credential.fences.size > 0 ? undefined : slot.window.answer(windowQuery);
      if (answer) {
        this.hits++;
        return { hit: answer };
      }
    }
    this.misses++;
    return this.ticket(key, credential, narrow, nKey, directory, windowQuery);
  }

  /** Applies a batch of the credential's events (after its directory applied them). */
  applyEvents(key: string, events: readonly { id: number; type: string; [key: string]: unknown }[]): void {
    const credential = this.credentials.get(key);
    if (!credential) return;
    for (const event of events) {
      if (event.id > credential.lastEventId) credential.lastEventId = event.id;
      for (const pending of credential.pending) {
        if (pending.events.length >= MAX_PENDING_EVENTS) pending.overflow = true;
        else pending.events.push(event);
      }
      this.apply(key, credential, event);
    }
    if (credential.fences.size > 0) {
      for (const fence of [...credential.fences]) {
        if (events.some((e) => e.id > fence.mark && fence.types.has(e.type))) this.lift(credential, fence);
      }
    }
  }

  /** A write as the credential begins; see the file comment. `done(false)` (it failed) lifts the fence at once. */
  fence(key: string, types: readonly string[]): { done(ok: boolean): void } {
    const credential = this.credentials.get(key);
    if (!credential || types.length === 0) return { done: () => undefined };
    const fence: Fence = { types: new Set(types), mark: credential.lastEventId, timer: undefined };
    credential.fences.add(fence);
    return {
      done: (ok) => {
        if (!credential.fences.has(fence)) return;
        if (!ok) return this.lift(credential, fence);
        fence.timer = this.clock.setTimeout(() => this.lift(credential, fence), this.writeFenceMs);
      },
    };
  }

  /** The credential's queue was lost, reloaded or released: its windows may have missed events. */
  reset(key: string, reason: WindowDropReason = 'queue'): void {
    const credential = this.credentials.get(key);
    if (!credential) return;
    this.drop([...credential.windows.values()], reason);
    for (const pending of credential.pending) pending.overflow = true;
  }

  /** Forgets the credential (its session is no longer followed). */
  forget(key: string, reason: WindowDropReason = 'queue'): void {
    const credential = this.credentials.get(key);
    if (!credential) return;
    this.reset(key, reason);
    for (const fence of credential.fences) this.clock.clearTimeout(fence.timer);
    this.credentials.delete(key);
  }

  /** Listens to changes of cached messages (a hook for live queries); returns the removal. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  stats(): MessageCacheStats {
    return { windows: this.lru.size, credentials: this.credentials.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  /** Lasting cache-wide failures, one line each (for /readiness). */
  detail(): string[] {
    const cutoff = this.clock.now() - FAILURE_MEMORY_MS;
    const types: string[] = [];
    for (const [type, { at }] of this.failures) if (at >= cutoff) types.push(type);
    if (types.length === 0) return [];
    return [`message cache: events of types it cannot apply (${types.join(', ')}) dropped every window of their credentials in the last 5 minutes: those queries go upstream`];
  }

  close(): void {
    for (const key of [...this.credentials.keys()]) this.forget(key, 'queue');
    this.listeners.clear();
  }

  // ---- internals -----------------------------------------------------------------------------------

  private unusable(reason: CacheUnusableReason): undefined {
    this.options.onUnusable?.(reason);
    return undefined;
  }

  private credential(key: string): Credential {
    let credential = this.credentials.get(key);
    if (!credential) {
      credential = { windows: new Map(), fences: new Set(), pending: new Set(), lastEventId: -1 };
      this.credentials.set(key, credential);
    }
    return credential;
  }

  private ticket(
    key: string,
    credential: Credential,
    narrow: ExactNarrow,
    nKey: string,
    directory: Directory,
    query: { anchor: Anchor; numBefore: number; numAfter: number },
  ): CacheLookup {
    const pending: Pending = { events: [], overflow: false };
    credential.pending.add(pending);
    const generation = directory.generation;
    const end = () => credential.pending.delete(pending);
    return {
      abandon: end,
      store: (result) => {
        end();
        if (pending.overflow || this.credentials.get(key) !== credential) return;
        if (!directory.ready || directory.generation !== generation) return;
        const window = query.anchor === 'first_unread' ? undefined : MessageWindow.fromResult({ ...query, anchor: query.anchor }, result);
        if (!window || window.bytes > this.maxBytes) return void this.options.onUnusable?.('uncacheable');
        const slot: Slot = { key, narrow, narrowKey: nKey, window, directory, generation };
        const previous = credential.windows.get(nKey);
        if (previous) this.drop([previous], undefined);
        credential.windows.set(nKey, slot);
        this.lru.set(slot, true);
        this.bytes += window.bytes;
        // Replayed in order; a replayed event changes nothing the fetch already saw.
        for (const event of pending.events) this.applyToSlots([slot], event);
        if (credential.windows.size > this.maxWindows) this.dropLeastUsedOf(credential);
        this.enforceCap(slot);
      },
    };
  }

  private apply(key: string, credential: Credential, event: { id: number; type: string; [key: string]: unknown }): void {
    if (credential.windows.size === 0) return;
    const changed = this.applyToSlots([...credential.windows.values()], event);
    if (changed.length > 0) for (const listener of this.listeners) listener(key, changed.map((id) => `Message:${id}`));
  }

  private applyToSlots(slots: Slot[], event: { id: number; type: string; [key: string]: unknown }): number[] {
    const before = new Map(slots.map((s) => [s, s.window.bytes]));
    let outcome;
    try {
      outcome = applyToWindows(slots, event);
    } catch {
      // A shape the cache did not expect: none of these windows can be vouched for.
      this.drop(slots, 'event');
      return [];
    }
    for (const [slot, bytes] of before) this.bytes += slot.window.bytes - bytes;
    if (outcome.unknownType !== undefined) this.noteFailure(outcome.unknownType);
    if (outcome.dropAll) this.drop(slots, outcome.dropAll);
    else {
      const byReason = new Map<WindowDropReason, Slot[]>();
      for (const [slot, reason] of outcome.drop) byReason.set(reason, [...(byReason.get(reason) ?? []), slot as Slot]);
      for (const [reason, dropped] of byReason) this.drop(dropped, reason);
    }
    if (this.bytes > this.maxBytes) this.enforceCap(undefined);
    return outcome.changed;
  }

  private noteFailure(type: string): void {
    const name = type.slice(0, 40);
    const known = this.failures.get(name);
    if (!known && this.failures.size >= MAX_FAILURE_KINDS) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(name, { at: this.clock.now(), count: (known?.count ?? 0) + 1 });
  }

  /** Drops windows; `reason` undefined: replaced by a newer fetch of the same narrow (not reported). */
  private drop(slots: readonly Slot[], reason: WindowDropReason | undefined): void {
    let count = 0;
    for (const slot of slots) {
      const credential = this.credentials.get(slot.key);
      if (!this.lru.delete(slot)) continue;
      if (credential?.windows.get(slot.narrowKey) === slot) credential.windows.delete(slot.narrowKey);
      this.bytes -= slot.window.bytes;
      count++;
    }
    if (count > 0 && reason) this.options.onDrop?.(reason, count);
  }

  private touch(slot: Slot): void {
    this.lru.delete(slot);
    this.lru.set(slot, true);
  }

  private dropLeastUsedOf(credential: Credential): void {
    for (const slot of this.lru.keys()) {
      if (credential.windows.get(slot.narrowKey) === slot) return this.drop([slot], 'memory');
    }
  }

  /** Drops least recently used windows (never `keep`, the one just stored) until under the cap. */
  private enforceCap(keep: Slot | undefined): void {
    for (const slot of [...this.lru.keys()]) {
      if (this.bytes <= this.maxBytes) return;
      if (slot !== keep) this.drop([slot], 'memory');
    }
  }

  private lift(credential: Credential, fence: Fence): void {
    this.clock.clearTimeout(fence.timer);
    credential.fences.delete(fence);
  }
}
