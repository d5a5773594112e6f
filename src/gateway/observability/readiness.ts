/**
 * Readiness: the gateway is ready when the chat server answers `GET /api/v1/server_settings`
 * (https://zulip.com/api/get-server-settings, no credentials needed) with a JSON success carrying
 * a `zulip_feature_level` (so the origin really speaks the API, not a web server's page), it is not shutting down and,
 * in cluster mode, Redis is connected. The upstream check is cached for a few seconds and shared by
 * concurrent probes, so a load balancer probing every second costs the chat server little.
 */

import { UPSTREAM_BAD_RESPONSE_HINT } from '../errors.js';

/** Redis states that mean usable: ioredis's `ready`, cluster/redis.ts's `connected`. */
const REDIS_READY = new Set(['ready', 'connected']);

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ReadinessOptions {
  /** Chat server origin. */
  zulipUrl: string;
  /** How long a check result is reused. @default 5000 */
  cacheMs?: number;
  /** Timeout of the upstream check. @default 2000 */
  probeTimeoutMs?: number;
  fetch?: FetchLike;
  now?: () => number;
  /** Cluster mode: the Redis connection's state (cluster/redis.ts `RedisState`, e.g. 'connected'). */
  redisState?: () => string;
  /**
   * What works but degraded (the live directories' load failures): reported in `detail`, the
   * gateway staying ready. @default none
   */
  degradations?: () => readonly string[];
}

export interface ReadinessReport {
  ready: boolean;
  /** Why not ready, for operators (no secrets, no upstream body). */
  reason?: string;
  upstream: 'ok' | 'unavailable' | 'unchecked';
  redis?: string;
  /** Degradations while ready (see ReadinessOptions.degradations). */
  detail?: string[];
}

interface Cached {
  at: number;
  problem: string | undefined;
}

export class Readiness {
  #shuttingDown = false;
  #cached: Cached | undefined;
  #inFlight: Promise<Cached> | undefined;
  readonly #url: string;

  constructor(private readonly options: ReadinessOptions) {
    this.#url = `${options.zulipUrl.replace(/\/+$/, '')}/api/v1/server_settings`;
  }

  /** From now on, readiness answers 503 (the load balancer stops sending new requests). */
  shutdown(): void {
    this.#shuttingDown = true;
  }

  async check(): Promise<ReadinessReport> {
    const redis = this.options.redisState?.();
    if (this.#shuttingDown) return { ready: false, reason: 'shutting down', upstream: 'unchecked', ...(redis && { redis }) };
    const upstream = await this.#upstream();
    if (upstream.problem) return { ready: false, reason: upstream.problem, upstream: 'unavailable', ...(redis && { redis }) };
    if (redis !== undefined && !REDIS_READY.has(redis)) return { ready: false, reason: `redis ${redis}`, upstream: 'ok', redis };
    const detail = this.options.degradations?.() ?? [];
    return { ready: true, upstream: 'ok', ...(redis && { redis }), ...(detail.length > 0 && { detail: [...detail] }) };
  }

  #upstream(): Promise<Cached> {
    const now = (this.options.now ?? Date.now)();
    if (this.#cached && now - this.#cached.at < (this.options.cacheMs ?? 5000)) return Promise.resolve(this.#cached);
    this.#inFlight ??= this.#probe().then((problem) => {
      this.#inFlight = undefined;
      return (this.#cached = { at: (this.options.now ?? Date.now)(), problem });
    });
    return this.#inFlight;
  }

  /** undefined when the chat server answered as a Zulip server does, else what went wrong. */
  async #probe(): Promise<string | undefined> {
    const fetch = this.options.fetch ?? globalThis.fetch;
    try {
      const response = await fetch(this.#url, { signal: AbortSignal.timeout(this.options.probeTimeoutMs ?? 2000), headers: { accept: 'application/json' } });
      if (response.status !== 200) {
        await response.body?.cancel();
        const hint = response.status === 404 ? ` (${UPSTREAM_BAD_RESPONSE_HINT})` : '';
        return `chat server answered GET /server_settings with HTTP ${response.status}${hint}`;
      }
      // The API itself, not a web server answering 200: a JSON success with a feature level.
      const body = (await response.json().catch(() => undefined)) as { result?: unknown; zulip_feature_level?: unknown } | undefined;
      return body?.result === 'success' && typeof body.zulip_feature_level === 'number'
        ? undefined
        : `chat server answered GET /server_settings with something that is not a Zulip response (${UPSTREAM_BAD_RESPONSE_HINT})`;
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      return timedOut ? 'chat server did not answer GET /server_settings in time' : 'chat server unreachable';
    }
  }
}
