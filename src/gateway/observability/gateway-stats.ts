/**
 * Series sampled at scrape time from parts that keep their own counts: the event hub (upstream
 * queues) and the live directories (size, lookups, loads, evictions). Their counters are
 * cumulative totals; the Prometheus counters are advanced by the difference since the last scrape.
 */
import type { GatewayMetrics } from './metrics.js';

/** What the hub's `stats()` reports (events/hub.ts HubStats). */
export interface HubCounts {
  sessions: number;
}

/** What the live directories' `stats()` reports (directory/live.ts). */
export interface DirectoryCounts {
  sessions: number;
  bytes: number;
  hits: number;
  misses: number;
  loads: number;
  evictedIdle: number;
  evictedMemory: number;
}

/** What the message cache's `stats()` reports (directory/messages/cache.ts). */
export interface CacheCounts {
  windows: number;
  bytes: number;
  hits: number;
  misses: number;
}

export interface StatsSources {
  hub?: { stats(): HubCounts };
  directories?: { stats(): DirectoryCounts; messages?: { stats(): CacheCounts } | undefined } | undefined;
}

/** Registers the sampling with `metrics`; returns its removal. */
export function collectGatewayStats(metrics: GatewayMetrics, sources: StatsSources): () => void {
  const seen = { hits: 0, misses: 0, loads: 0, evictedIdle: 0, evictedMemory: 0, cacheHits: 0, cacheMisses: 0 };
  /** The increase of a cumulative total since the last scrape. */
  const delta = (key: keyof typeof seen, total: number): number => {
    const increase = Math.max(0, total - seen[key]);
    seen[key] = total;
    return increase;
  };
  return metrics.addCollector(() => {
    if (sources.hub) metrics.eventQueues(sources.hub.stats().sessions);
    const directories = sources.directories?.stats();
    if (!directories) return;
    metrics.directorySize(directories.sessions, directories.bytes);
    metrics.directoryLookups(delta('hits', directories.hits), delta('misses', directories.misses));
    metrics.directoryLoad(delta('loads', directories.loads));
    metrics.directoryEvictions(delta('evictedIdle', directories.evictedIdle), delta('evictedMemory', directories.evictedMemory));
    const cache = sources.directories?.messages?.stats();
    if (!cache) return;
    metrics.cacheSize(cache.windows, cache.bytes);
    metrics.cacheLookups(delta('cacheHits', cache.hits), delta('cacheMisses', cache.misses));
  });
}
