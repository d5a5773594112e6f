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

/** How long a readiness check of the chat server is reused, in milliseconds. */
export const DEFAULT_READINESS_CACHE_MS = 5000;

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ReadinessOptions {
  /** The default chat server's address. */
  zulipUrl: string;
  /**
   * The other allowed servers (`ZULIP_SERVERS`, upstream/servers.ts): each is checked and
   * reported in `servers`; one that fails is a degradation (only its accounts fail), not
   * unreadiness. @default none
   */
  otherServers?: readonly string[];
  /** How long a check result is reused. @default DEFAULT_READINESS_CACHE_MS */
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
  /**
   * The default credentials (ZULIP_EMAIL/ZULIP_API_KEY) as an Authorization header: checked once
   * upstream (`GET /users/me`); credentials the server refuses keep the gateway unready, since
   * every request without its own Authorization would fail. @default none
   */
  defaultAuthorization?: string;
  /** Told once, when the default credentials are found refused (the entry point logs it at error). */
  onDefaultCredentialsRefused?: (reason: string) => void;
}

export interface ReadinessReport {
  ready: boolean;
  /** Why not ready, for operators (no secrets, no upstream body). */
  reason?: string;
  upstream: 'ok' | 'unavailable' | 'unchecked';
  redis?: string;
  /** With default credentials: whether the chat server accepted them (see ReadinessOptions.defaultAuthorization). */
  credentials?: 'ok' | 'refused' | 'unchecked';
  /** Degradations while ready (see ReadinessOptions.degradations). */
  detail?: string[];
  /** With several allowed servers: each one's state, by address, the default first. */
  servers?: Record<string, 'ok' | 'unavailable'>;
}

interface Cached {
  at: number;
  problem: string | undefined;
}

export class Readiness {
  #shuttingDown = false;
  /** The last check of each server, and the one in flight, by server settings URL. */
  readonly #cached = new Map<string, Cached>();
  readonly #inFlight = new Map<string, Promise<Cached>>();
  /** The default credentials' verdict once the server gave one (it does not change while running). */
  #credentials: Promise<{ refused?: string } | undefined> | undefined;
  readonly #url: string;

  constructor(private readonly options: ReadinessOptions) {
    this.#url = settingsUrl(options.zulipUrl);
  }

  /** From now on, readiness answers 503 (the load balancer stops sending new requests). */
  shutdown(): void {
    this.#shuttingDown = true;
  }

  async check(): Promise<ReadinessReport> {
    const redis = this.options.redisState?.();
    if (this.#shuttingDown) return { ready: false, reason: 'shutting down', upstream: 'unchecked', ...(redis && { redis }) };
    const others = this.options.otherServers ?? [];
    const [upstream, ...otherChecks] = await Promise.all([this.#upstream(this.#url), ...others.map((server) => this.#upstream(settingsUrl(server)))]);
    const servers = others.length > 0 ? serverStates(this.options.zulipUrl, others, [upstream!, ...otherChecks]) : undefined;
    if (upstream!.problem) return { ready: false, reason: upstream!.problem, upstream: 'unavailable', ...(redis && { redis }), ...(servers && { servers }) };
    if (this.options.defaultAuthorization !== undefined) {
      const verdict = await this.checkDefaultCredentials();
      if (verdict?.refused) return { ready: false, reason: verdict.refused, upstream: 'ok', credentials: 'refused', ...(redis && { redis }) };
    }
    if (redis !== undefined && !REDIS_READY.has(redis)) return { ready: false, reason: `redis ${redis}`, upstream: 'ok', redis };
    const detail = [...(this.options.degradations?.() ?? []), ...others.flatMap((server, i) => (otherChecks[i]!.problem ? [`${server}: ${otherChecks[i]!.problem}`] : []))];
    return { ready: true, upstream: 'ok', ...(redis && { redis }), ...(detail.length > 0 && { detail }), ...(servers && { servers }) };
  }

  /**
   * Checks the default credentials upstream, once: the entry point calls it at startup, and
   * readiness waits for it. A verdict (accepted or refused) is kept; no verdict (the server
   * unreachable, or answering 5xx) is retried at the next readiness check.
   */
  checkDefaultCredentials(): Promise<{ refused?: string } | undefined> {
    const authorization = this.options.defaultAuthorization;
    if (authorization === undefined) return Promise.resolve(undefined);
    this.#credentials ??= this.#probeCredentials(authorization).then((verdict) => {
      if (!verdict) this.#credentials = undefined;
      else if (verdict.refused) this.options.onDefaultCredentialsRefused?.(verdict.refused);
      return verdict;
    });
    return this.#credentials;
  }

  async #probeCredentials(authorization: string): Promise<{ refused?: string } | undefined> {
    const fetch = this.options.fetch ?? globalThis.fetch;
    try {
      const response = await fetch(this.#url.replace(/\/server_settings$/, '/users/me'), {
        signal: AbortSignal.timeout(this.options.probeTimeoutMs ?? 2000),
        headers: { accept: 'application/json', authorization },
      });
      const body = (await response.json().catch(() => undefined)) as { result?: unknown; code?: unknown } | undefined;
      if (response.status === 200 && body?.result === 'success') return {};
      if (response.status === 401 || response.status === 403) {
        // Zulip's error code (INVALID_API_KEY, USER_DEACTIVATED, …) says why; never the values.
        const code = typeof body?.code === 'string' && /^[A-Z_]{1,64}$/.test(body.code) ? ` ${body.code}` : '';
        return { refused: `ZULIP_EMAIL/ZULIP_API_KEY refused by the chat server (HTTP ${response.status}${code}): requests without an Authorization header will fail` };
      }
      return undefined;
    } catch {
      return undefined;
    }
  }

  #upstream(url: string): Promise<Cached> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.#cached.get(url);
    if (cached && now - cached.at < (this.options.cacheMs ?? DEFAULT_READINESS_CACHE_MS)) return Promise.resolve(cached);
    let inFlight = this.#inFlight.get(url);
    if (!inFlight) {
      inFlight = this.#probe(url).then((problem) => {
        this.#inFlight.delete(url);
        const checked = { at: (this.options.now ?? Date.now)(), problem };
        this.#cached.set(url, checked);
        return checked;
      });
      this.#inFlight.set(url, inFlight);
    }
    return inFlight;
  }

  /** undefined when the chat server answered as a Zulip server does, else what went wrong. */
  async #probe(url: string): Promise<string | undefined> {
    const fetch = this.options.fetch ?? globalThis.fetch;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.probeTimeoutMs ?? 2000), headers: { accept: 'application/json' } });
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

/** A server's `GET /server_settings` URL. */
function settingsUrl(server: string): string {
  return `${server.replace(/\/+$/, '')}/api/v1/server_settings`;
}

function serverStates(first: string, others: readonly string[], checks: readonly Cached[]): Record<string, 'ok' | 'unavailable'> {
  return Object.fromEntries([first, ...others].map((server, i) => [server, checks[i]!.problem ? 'unavailable' : 'ok']));
}
