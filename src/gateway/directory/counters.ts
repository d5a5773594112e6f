/** Counters of the directories of one gateway instance, read by the metrics helper. */

export interface DirectoryCounters {
  /** Lookups answered by a ready directory. */
  hits: number;
  /** Lookups made while the directory was not ready: the caller used the per-request path. */
  misses: number;
  /** Register responses loaded (first loads and reloads). */
  loads: number;
  /** Loads that replaced an earlier state (after a lost queue, a restart or an invalidation). */
  reloads: number;
  /** Events applied. */
  events: number;
  /** Times a directory stopped trusting itself (lost queue, restart, read-your-writes timeout). */
  invalidations: number;
  /** Directories dropped after their idle time. */
  evictedIdle: number;
  /** Directories dropped to stay under the memory cap. */
  evictedMemory: number;
}

export function newCounters(): DirectoryCounters {
  return { hits: 0, misses: 0, loads: 0, reloads: 0, events: 0, invalidations: 0, evictedIdle: 0, evictedMemory: 0 };
}

/** Time and timers, injected so tests drive idle expiry and read-your-writes timeouts by hand. */
export interface DirectoryClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemDirectoryClock: DirectoryClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
