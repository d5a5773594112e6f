/**
 * The directories of one gateway instance, one per credential key, with one intern table so that
 * credentials of one organization share identical objects. Bounded two ways:
 * - idle: a directory not used for `idleMs` is dropped (and the owner told, to stop its queue);
 * - memory: when the estimated total (distinct objects and chunks + each directory's own part)
 *   passes `maxBytes`, least recently used directories are dropped until it fits again.
 *
 * Keys are opaque to the registry; the hub's credential key (never the API key itself) is used.
 */
import { newCounters, systemDirectoryClock, type DirectoryClock, type DirectoryCounters } from './counters.js';
import { Directory, type InvalidateReason } from './directory.js';
import { InternTable, type InternStats } from './intern.js';
import { ChunkTable, type ChunkStats } from './interned-map.js';

export type DropReason = 'idle' | 'memory' | 'closed';

export interface DirectoryRegistryOptions {
  /** Drop a directory unused for this long. @default 300_000 (5 minutes) */
  idleMs?: number;
  /** Estimated memory cap of all directories together. @default 512 MiB */
  maxBytes?: number;
  clock?: DirectoryClock;
  /** A directory was dropped: its owner stops feeding it (and, in the hub, may delete the queue). */
  onDrop?: (key: string, reason: DropReason) => void;
  /** A directory stopped trusting itself: its owner re-registers and loads it again. */
  onInvalidate?: (key: string, reason: InvalidateReason) => void;
}

export interface DirectoryStats extends DirectoryCounters {
  directories: number;
  readyDirectories: number;
  /** Estimated bytes: distinct interned objects, distinct chunks and each directory's own part. */
  bytes: number;
  intern: InternStats;
  chunks: ChunkStats;
}

interface Slot {
  directory: Directory;
  lastUsed: number;
}

/** A credential's directory (and its queue) is dropped after this long unused (LIVE_DIRECTORY_IDLE_MS). */
export const DEFAULT_DIRECTORY_IDLE_MS = 300_000;
/** Estimated memory cap of all directories together (LIVE_DIRECTORY_MAX_BYTES). */
export const DEFAULT_DIRECTORY_MAX_BYTES = 512 * 1024 * 1024;

export class DirectoryRegistry {
  readonly intern = new InternTable();
  readonly chunks = new ChunkTable(this.intern);
  readonly counters = newCounters();
  private readonly slots = new Map<string, Slot>(); // least recently used first
  private readonly clock: DirectoryClock;
  private readonly idleMs: number;
  private readonly maxBytes: number;
  private sweeper: unknown;

  constructor(private readonly options: DirectoryRegistryOptions = {}) {
    this.clock = options.clock ?? systemDirectoryClock;
    this.idleMs = options.idleMs ?? DEFAULT_DIRECTORY_IDLE_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_DIRECTORY_MAX_BYTES;
  }

  /** The credential's directory, created empty if needed; marks it used. */
  open(key: string): Directory {
    this.sweep();
    const slot = this.slots.get(key);
    if (slot) return this.touch(key, slot);
    const directory = new Directory({
      chunks: this.chunks,
      counters: this.counters,
      clock: this.clock,
      onInvalidate: (reason) => this.options.onInvalidate?.(key, reason),
      onLoaded: () => this.enforceCap(key),
    });
    this.slots.set(key, { directory, lastUsed: this.clock.now() });
    return directory;
  }

  /** The credential's directory if there is one; marks it used. */
  get(key: string): Directory | undefined {
    const slot = this.slots.get(key);
    return slot && this.touch(key, slot);
  }

  /** The credential's directory if there is one, without marking it used. */
  peek(key: string): Directory | undefined {
    return this.slots.get(key)?.directory;
  }

  /** Drops the credential's directory (its queue is gone for good, or the credential was refused). */
  drop(key: string, reason: DropReason = 'closed'): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    slot.directory.dispose();
    if (reason === 'idle') this.counters.evictedIdle++;
    if (reason === 'memory') this.counters.evictedMemory++;
    this.options.onDrop?.(key, reason);
  }

  /** Drops every directory idle for `idleMs` or more. */
  sweep(): void {
    const cutoff = this.clock.now() - this.idleMs;
    // LRU order: the idle ones are at the front.
    for (const [key, slot] of this.slots) {
      if (slot.lastUsed > cutoff) break;
      this.drop(key, 'idle');
    }
  }

  /** Sweeps every `everyMs` until {@link close}; the wiring starts it once per gateway instance. */
  startSweeping(everyMs = Math.max(1000, this.idleMs / 4)): void {
    const tick = () => {
      this.sweep();
      this.sweeper = this.clock.setTimeout(tick, everyMs);
    };
    this.sweeper ??= this.clock.setTimeout(tick, everyMs);
  }

  /** Estimated bytes held by all directories together. */
  estimatedBytes(): number {
    let bytes = this.intern.stats().bytes + this.chunks.stats().bytes;
    for (const { directory } of this.slots.values()) bytes += directory.overheadBytes();
    return bytes;
  }

  stats(): DirectoryStats {
    let ready = 0;
    for (const { directory } of this.slots.values()) if (directory.ready) ready++;
    return {
      ...this.counters,
      directories: this.slots.size,
      readyDirectories: ready,
      bytes: this.estimatedBytes(),
      intern: this.intern.stats(),
      chunks: this.chunks.stats(),
    };
  }

  close(): void {
    if (this.sweeper !== undefined) this.clock.clearTimeout(this.sweeper);
    this.sweeper = undefined;
    for (const key of [...this.slots.keys()]) this.drop(key, 'closed');
  }

  private touch(key: string, slot: Slot): Directory {
    slot.lastUsed = this.clock.now();
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.directory;
  }

  /** Evicts least recently used directories (never `keep`, the one just loaded) until under the cap. */
  private enforceCap(keep: string): void {
    for (const key of [...this.slots.keys()]) {
      if (this.estimatedBytes() <= this.maxBytes) return;
      if (key !== keep) this.drop(key, 'memory');
    }
  }
}
