/**
 * The Redis connection of cluster mode: configuration from the environment, a client whose
 * failures are classified, and a connection state for readiness and metrics.
 *
 * Cluster mode is on when REDIS_URL is set; `redis://` and `rediss://` (TLS) URLs with a
 * username and password are passed to ioredis as they are. The client never queues commands
 * while disconnected (`enableOfflineQueue: false`) and never resends a command that was in flight
 * when the connection dropped: a caller learns at once that Redis is unreachable instead of
 * waiting on a queue, and a blocking read is never silently replayed on a new server. ioredis
 * reconnects forever in the background (zulip/backoff.ts, capped, full jitter), and {@link ClusterRedis.state} follows.
 */
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { Backoff } from '../../zulip/backoff.js';
import { RedisCommandError, RedisUnavailableError } from './errors.js';
import { ClusterConfigError, createKeyDeriver, DEFAULT_KEY_PREFIX } from './keys.js';

/** How soon another instance takes over a dead holder's upstream queue (CLUSTER_FAILOVER_MS). */
export const DEFAULT_FAILOVER_MS = 10_000;

export interface ClusterConfig {
  /** REDIS_URL, password included; never log it (see {@link redactRedisUrl}). */
  url: string;
  /** GATEWAY_SECRET. */
  secret: string;
  /** REDIS_KEY_PREFIX. @default 'chatgraph:' */
  keyPrefix: string;
  /** CLUSTER_FAILOVER_MS: how soon another instance takes over a dead holder's queue. @default 10_000 */
  failoverMs: number;
}

/** The cluster settings in `env`, or undefined when REDIS_URL is unset (single-instance mode). */
export function clusterConfigFromEnv(env: NodeJS.ProcessEnv): ClusterConfig | undefined {
  const url = env.REDIS_URL?.trim();
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ClusterConfigError('REDIS_URL is not a URL (expected redis://… or rediss://…).');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ClusterConfigError(`REDIS_URL must use redis:// or rediss://, not ${parsed.protocol}//.`);
  }
  const failoverMs = env.CLUSTER_FAILOVER_MS ? Number(env.CLUSTER_FAILOVER_MS) : DEFAULT_FAILOVER_MS;
  if (!Number.isInteger(failoverMs) || failoverMs < 100 || failoverMs > 600_000) {
    throw new ClusterConfigError('CLUSTER_FAILOVER_MS must be a whole number of milliseconds between 100 and 600000.');
  }
  const config: ClusterConfig = { url, secret: env.GATEWAY_SECRET ?? '', keyPrefix: env.REDIS_KEY_PREFIX ?? DEFAULT_KEY_PREFIX, failoverMs };
  createKeyDeriver({ secret: config.secret, prefix: config.keyPrefix }); // refuses a missing secret now, at start-up
  return config;
}

/** The URL without its password, for logs and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

export { RedisCommandError, RedisUnavailableError } from './errors.js';

/** Sorts any failure of a Redis call into one of the two classes (messages carry no key names). */
export function classifyRedisError(error: unknown): RedisUnavailableError | RedisCommandError {
  if (error instanceof RedisUnavailableError || error instanceof RedisCommandError) return error;
  if (error instanceof ReplyError) {
    const message = String((error as Error).message);
    // A server still loading its data set or without auth yet is unreachable for our purpose.
    if (/^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)\b/.test(message)) return new RedisUnavailableError(message.split('\n')[0]!);
    return new RedisCommandError(message.split('\n')[0]!);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RedisUnavailableError(`Redis is unreachable: ${message}`);
}

export type RedisState = 'connecting' | 'connected' | 'down' | 'closed';

export interface ClusterRedisOptions {
  url: string;
  /** Longest wait between reconnection attempts. @default 2_000 */
  maxReconnectDelayMs?: number;
  /** Timeout of one connection attempt. @default 5_000 */
  connectTimeoutMs?: number;
  /** Told of every state change (for logs and the readiness probe). */
  onState?: (state: RedisState) => void;
}

/** ioredis options shared by the command client and its duplicates (blocking readers). */
function clientOptions(options: ClusterRedisOptions, onReconnect: () => void): RedisOptions {
  // The gateway's one backoff (full jitter), so that instances do not all reconnect at once.
  const backoff = new Backoff({ maxBoundMs: options.maxReconnectDelayMs ?? 2_000 });
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    // Never give up: the gateway keeps serving queries, and subscriptions recover when Redis returns.
    // ioredis counts attempts from 1 again after each successful connection.
    retryStrategy: (times) => {
      onReconnect();
      if (times === 1) backoff.reset();
      return backoff.nextDelayMs();
    },
    // A failover replica turning read-only must drop the connection so we reach the new primary.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  };
}

/**
 * The command client of cluster mode. `client` serves short commands; {@link duplicate} opens
 * a further connection with the same settings for blocking reads (XREAD BLOCK holds its
 * connection for the whole wait).
 */
export class ClusterRedis {
  readonly client: Redis;
  #state: RedisState = 'connecting';
  #refusal: RedisCommandError | RedisUnavailableError | undefined;
  readonly #options: ClusterRedisOptions;
  readonly #duplicates = new Set<Redis>();

  constructor(options: ClusterRedisOptions) {
    this.#options = options;
    this.client = new Redis(options.url, clientOptions(options, () => this.#set('down')));
    this.client.on('ready', () => ((this.#refusal = undefined), this.#set('connected')));
    this.client.on('close', () => this.#state !== 'closed' && this.#set('down'));
    // Without a listener ioredis reports connection errors as unhandled 'error' events (a crash).
    this.client.on('error', (error) => {
      if (error instanceof ReplyError) this.#refusal = classifyRedisError(error);
    });
  }

  /**
   * Why the server turned the connection down (a wrong password, say), while it does; such a
   * server answers, so its failures are command errors, not an outage.
   */
  get refusal(): RedisCommandError | RedisUnavailableError | undefined {
    return this.#refusal;
  }

  get state(): RedisState {
    return this.#state;
  }

  /** Connects; resolves even when Redis is down (the client keeps retrying and the state says so). */
  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch {
      // reported through the state; reconnection continues in the background
    }
  }

  /** Resolves when connected, or rejects after `withinMs`. */
  async whenConnected(withinMs: number): Promise<void> {
    if (this.#state === 'connected') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (this.client.off('ready', ready), reject(new RedisUnavailableError('Redis is unreachable.'))), withinMs);
      const ready = () => (clearTimeout(timer), resolve());
      this.client.once('ready', ready);
    });
  }

  /** Runs `command`, turning its failure into a {@link RedisUnavailableError} or {@link RedisCommandError}. */
  async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    if (this.#state === 'closed') throw new RedisUnavailableError('The Redis client is closed.');
    try {
      return await command(this.client);
    } catch (error) {
      if (this.#state !== 'connected' && this.#refusal) throw this.#refusal;
      throw classifyRedisError(error);
    }
  }

  /** A new connection with the same settings, for blocking commands; closed with this client. */
  duplicate(): Redis {
    const copy = new Redis(this.#options.url, clientOptions(this.#options, () => undefined));
    copy.on('error', () => undefined);
    this.#duplicates.add(copy);
    copy.once('end', () => this.#duplicates.delete(copy));
    return copy;
  }

  async close(): Promise<void> {
    this.#set('closed');
    for (const copy of this.#duplicates) copy.disconnect();
    this.#duplicates.clear();
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  #set(state: RedisState): void {
    if (this.#state === state || this.#state === 'closed') return;
    this.#state = state;
    this.#options.onState?.(state);
  }
}
