/**
 * Cluster mode of the event hub: what one gateway instance shares with the others through Redis
 * (README, "Running several instances"). Made once per instance and given to the hub
 * (`EventHubOptions.cluster`), which then makes {@link ClusterEventSession}s instead of in-process
 * ones. It owns the instance's Redis connections: one for commands, one for the blocking reader
 * that follows the logs of every credential the instance has subscribers for.
 *
 * It reads no environment: the caller passes the settings (cluster/redis.ts
 * `clusterConfigFromEnv` reads REDIS_URL, GATEWAY_SECRET, REDIS_KEY_PREFIX, CLUSTER_FAILOVER_MS).
 */
import { randomBytes } from 'node:crypto';
import { createKeyDeriver, type KeyDeriver } from './keys.js';
import { leaseTimes, type LeaseTimes } from './lease.js';
import { ClusterRedis, type RedisState } from './redis.js';
import { StreamTailer, type StreamTailerOptions } from './tail.js';
import type { ReplayBufferOptions } from '../events/buffer.js';
import type { EventSession, QueueEventSessionOptions } from '../events/session.js';
import { ClusterEventSession } from './session/index.js';

export interface EventClusterOptions {
  /** `redis://` or `rediss://` URL, credentials included (never logged). */
  url: string;
  /** Keys the Redis names of credentials; the same on every instance, at least 32 characters. */
  secret: string;
  /** @default 'chatgraph:' */
  keyPrefix?: string;
  /** How soon another instance takes over a dead holder's upstream queue. @default 10_000 */
  failoverMs?: number;
  /** Caps of each credential's log. @default { maxEntries: 1000, maxAgeMs: 300_000 } */
  replay?: Omit<ReplayBufferOptions, 'now'>;
  /** The blocking reader's settings (tests shorten them). */
  tail?: StreamTailerOptions;
  /** Wait between Redis attempts while it is unreachable. @default 250 */
  retryMs?: number;
  /** Longest wait between reconnection attempts. @default 2_000 */
  maxReconnectDelayMs?: number;
  /** Told of every change of the Redis connection state (logs, readiness, metrics). */
  onRedisState?: (state: RedisState) => void;
}

/** What readiness probes and metrics read. */
export interface ClusterState {
  /** The command connection: `connected`, `down` (reconnecting), `connecting` or `closed`. */
  redis: RedisState;
  /** Credentials whose log this instance follows (it has subscribers for them, or had within the grace period). */
  streamsFollowed: number;
  /** Credentials whose upstream queue this instance polls (it holds their lease). */
  leasesHeld: number;
}

export class EventCluster {
  readonly redis: ClusterRedis;
  readonly #tailer: StreamTailer;
  readonly #keys: KeyDeriver;
  readonly #lease: LeaseTimes;
  readonly #sessions = new Set<ClusterEventSession>();
  readonly #options: EventClusterOptions;
  readonly #instanceId = randomBytes(9).toString('base64url');

  /** Throws ClusterConfigError without a usable secret; connects in the background. */
  constructor(options: EventClusterOptions) {
    this.#options = options;
    this.#keys = createKeyDeriver({ secret: options.secret, ...(options.keyPrefix !== undefined && { prefix: options.keyPrefix }) });
    this.#lease = leaseTimes(options.failoverMs ?? 10_000);
    this.redis = new ClusterRedis({
      url: options.url,
      ...(options.maxReconnectDelayMs !== undefined && { maxReconnectDelayMs: options.maxReconnectDelayMs }),
      ...(options.onRedisState && { onState: options.onRedisState }),
    });
    void this.redis.connect();
    this.#tailer = new StreamTailer(this.redis, options.tail);
  }

  /** The session of one credential on this instance (the hub's factory). */
  createSession(options: QueueEventSessionOptions): EventSession {
    const { connection } = options;
    const keys = this.#keys(connection.baseUrl, connection.credentials ?? { email: '', apiKey: '' });
    const replay = this.#options.replay;
    const session = new ClusterEventSession(
      keys,
      {
        redis: this.redis,
        tailer: this.#tailer,
        lease: this.#lease,
        stream: { ...(replay?.maxEntries !== undefined && { maxEntries: replay.maxEntries }), ...(replay?.maxAgeMs !== undefined && { maxAgeMs: replay.maxAgeMs }) },
        retryMs: this.#options.retryMs ?? 250,
        sessions: this.#sessions,
        instanceId: this.#instanceId,
      },
      options,
    );
    this.#sessions.add(session);
    return session;
  }

  state(): ClusterState {
    let leasesHeld = 0;
    for (const session of this.#sessions) if (session.holding) leasesHeld++;
    return { redis: this.redis.state, streamsFollowed: this.#tailer.size, leasesHeld };
  }

  /** Stops reading and closes the connections (sessions are stopped by the hub first). */
  async close(): Promise<void> {
    await this.#tailer.close();
    await this.redis.close();
  }
}
