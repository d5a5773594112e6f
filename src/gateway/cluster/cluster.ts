/**
 * Cluster mode of the event hub: what one gateway instance shares with the others through Redis
 * (docs/operations.md, "Running several instances"). Made once per instance and given to the hub
 * (`EventHubOptions.cluster`), which then makes {@link ClusterEventSession}s instead of in-process
 * ones. It owns the instance's Redis connections: one for commands, one for the blocking reader
 * that follows the logs of every credential the instance has subscribers for.
 *
 * It reads no environment: the caller passes the settings (cluster/redis.ts
 * `clusterConfigFromEnv` reads REDIS_URL, GATEWAY_SECRET, REDIS_KEY_PREFIX, CLUSTER_FAILOVER_MS).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Credentials } from '../../zulip/credentials.js';
import { createKeyDeriver, type CredentialKeys, type KeyDeriver } from './keys.js';
import { leaseTimes, type LeaseTimes } from './lease.js';
import { ClusterRedis, DEFAULT_FAILOVER_MS, type RedisState } from './redis.js';
import { StreamTailer, type StreamTailerOptions } from './tail.js';
import type { ReplayBufferOptions } from '../events/buffer.js';
import type { EventSession, QueueEventSessionOptions } from '../events/session.js';
import { ClusterEventSession } from './session/index.js';

export interface EventClusterOptions {
  /** `redis://` or `rediss://` URL, credentials included (never logged). */
  url: string;
  /** Keys the Redis names of credentials; the same on every instance, at least 32 characters. */
  secret: string;
  /** @default DEFAULT_KEY_PREFIX (keys.ts) */
  keyPrefix?: string;
  /** How soon another instance takes over a dead holder's upstream queue. @default DEFAULT_FAILOVER_MS (redis.ts) */
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

/**
 * A revocation one instance tells the others (revocation.ts): a credential the chat server refused,
 * by its HMAC id (keys.ts, never the credential), or a user of a server whose every credential is
 * refused (`revoke`, a deactivation) or to be checked again at once (`check`, a regenerated bot key).
 */
export type ClusterRevocation = { credential: string } | { server: string; userId: number; action: 'revoke' | 'check' };

/** The channel revocations are published on (one per key prefix). */
const REVOCATIONS_CHANNEL = 'revocations';

/** Appends the lifting event's id to each field still holding the write's token (ARGV[1]). */
const LIFT_WRITES = `
for i = 3, #ARGV do
  local value = redis.call('HGET', KEYS[1], ARGV[i])
  if value and select(3, string.find(value, '^%S+ %S+ (%S+)$')) == ARGV[1] then
    redis.call('HSET', KEYS[1], ARGV[i], value .. ' ' .. ARGV[2])
  end
end
return 0`;

/** The event types a write causes that fence the live directory and the message cache (plugins/directory-writes.ts). */
export interface WriteFenceTypes {
  directory: readonly string[];
  messages: readonly string[];
}

export class EventCluster {
  readonly redis: ClusterRedis;
  readonly #tailer: StreamTailer;
  readonly #keys: KeyDeriver;
  readonly #lease: LeaseTimes;
  readonly #sessions = new Set<ClusterEventSession>();
  readonly #options: EventClusterOptions;
  readonly #instanceId = randomBytes(9).toString('base64url');
  readonly #revocationListeners = new Set<(revocation: ClusterRevocation) => void>();
  #subscriber: Redis | undefined;
  #closed = false;

  /** Throws ClusterConfigError without a usable secret; connects in the background. */
  constructor(options: EventClusterOptions) {
    this.#options = options;
    this.#keys = createKeyDeriver({ secret: options.secret, ...(options.keyPrefix !== undefined && { prefix: options.keyPrefix }) });
    this.#lease = leaseTimes(options.failoverMs ?? DEFAULT_FAILOVER_MS);
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

  /** The Redis keys of a credential (keys.ts): HMAC names, never the credential. */
  keysOf(baseUrl: string, credentials: Credentials): CredentialKeys {
    return this.#keys(baseUrl, credentials);
  }

  /** The id of a credential in Redis (keys.ts): the same on every instance, never the credential. */
  credentialId(baseUrl: string, credentials: Credentials): string {
    return this.#keys(baseUrl, credentials).id;
  }

  /**
   * A credential was refused: its registration snapshot, log, change log and queue state leave Redis (no
   * instance may load what it was sent, nor resume its queue as if it were accepted), and every
   * other instance is told.
   */
  async revokeCredential(baseUrl: string, credentials: Credentials): Promise<void> {
    const keys = this.#keys(baseUrl, credentials);
    // One hash slot (keys.ts): one DEL.
    await this.redis.run((c) => c.del(keys.snapshot, keys.state, keys.stream, keys.changes, keys.writes));
    await this.#publish({ credential: keys.id });
  }

  /**
   * A write as this credential fences the live directories and message caches of every instance
   * (plugins/directory-writes.ts) for at most `ms`: each event type it causes is kept in the
   * credential's `writes` hash (`until instance token`), which a read on any other instance asks
   * before it answers from its directory ({@link writeFences}). Redis keeps the hash no longer
   * than its newest expiry. Returns the write's token, for {@link liftWrites}.
   */
  async fenceWrites(baseUrl: string, credentials: Credentials, fences: WriteFenceTypes, ms: number): Promise<string> {
    const key = this.#keys(baseUrl, credentials).writes;
    const token = randomBytes(6).toString('base64url');
    const value = `${Date.now() + ms} ${this.#instanceId} ${token}`;
    const fields = [...fences.directory.map((type) => `d:${type}`), ...fences.messages.map((type) => `m:${type}`)];
    if (fields.length === 0) return token;
    // Every write of a gateway fences for the same time: the newest expiry is the latest.
    await this.redis.run((c) => c.multi().hset(key, Object.fromEntries(fields.map((field) => [field, value]))).pexpire(key, ms).exec());
    return token;
  }

  /**
   * The write `token` was seen applied here: its event `eventId` reached this instance's directory.
   * Each of its fields (unless a newer write took it) says so, and an instance whose directory has
   * applied that event no longer fences for it.
   */
  async liftWrites(baseUrl: string, credentials: Credentials, fences: WriteFenceTypes, token: string, eventId: number): Promise<void> {
    const key = this.#keys(baseUrl, credentials).writes;
    const fields = [...fences.directory.map((type) => `d:${type}`), ...fences.messages.map((type) => `m:${type}`)];
    if (fields.length === 0) return;
    await this.redis.run((c) => c.eval(LIFT_WRITES, 1, key, token, String(eventId), ...fields));
  }

  /**
   * The event types of the credential's writes that still fence reads here, or none: other
   * instances' writes only (this instance's own fence its directory already), and not those whose
   * event this instance's directory has applied (`appliedEventId`: its last event id).
   */
  async writeFences(baseUrl: string, credentials: Credentials, appliedEventId: number): Promise<WriteFenceTypes | undefined> {
    const key = this.#keys(baseUrl, credentials).writes;
    const fields = await this.redis.run((c) => c.hgetall(key));
    const now = Date.now();
    const fences = { directory: [] as string[], messages: [] as string[] };
    for (const [field, value] of Object.entries(fields)) {
      const [until, instance, , lifted] = value.split(' ');
      if (Number(until) <= now || instance === this.#instanceId) continue;
      if (lifted !== undefined && Number(lifted) <= appliedEventId) continue;
      if (field.startsWith('d:')) fences.directory.push(field.slice(2));
      else if (field.startsWith('m:')) fences.messages.push(field.slice(2));
    }
    return fences.directory.length + fences.messages.length > 0 ? fences : undefined;
  }

  /** Tells every other instance that a user's credentials are refused, or to be checked again. */
  async revokeUser(server: string, userId: number, action: 'revoke' | 'check'): Promise<void> {
    await this.#publish({ server, userId, action });
  }

  /**
   * Told of the revocations other instances publish (not this one's own); returns its removal.
   * The first listener subscribes this instance (a connection of its own: a subscribed Redis
   * connection can send nothing else), retried until Redis answers.
   */
  onRevocation(listener: (revocation: ClusterRevocation) => void): () => void {
    this.#revocationListeners.add(listener);
    if (!this.#subscriber) void this.#subscribe();
    return () => this.#revocationListeners.delete(listener);
  }

  async #publish(revocation: ClusterRevocation): Promise<void> {
    await this.redis.run((c) => c.publish(this.#channel, JSON.stringify({ from: this.#instanceId, ...revocation })));
  }

  get #channel(): string {
    return `${this.#options.keyPrefix ?? 'chatgraph:'}${REVOCATIONS_CHANNEL}`;
  }

  async #subscribe(): Promise<void> {
    const subscriber = this.redis.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('message', (_channel: string, text: string) => {
      let message: { from?: unknown } & Partial<Record<string, unknown>>;
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return;
      }
      if (message.from === this.#instanceId) return;
      const revocation: ClusterRevocation | undefined =
        typeof message.credential === 'string'
          ? { credential: message.credential }
          : typeof message.server === 'string' && typeof message.userId === 'number' && (message.action === 'revoke' || message.action === 'check')
            ? { server: message.server, userId: message.userId, action: message.action }
            : undefined;
      if (revocation) for (const listener of this.#revocationListeners) listener(revocation);
    });
    // ioredis subscribes again by itself after a reconnection; only the first subscription is ours to retry.
    while (!this.#closed) {
      try {
        if (subscriber.status === 'wait' || subscriber.status === 'end') await subscriber.connect();
        await subscriber.subscribe(this.#channel);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, this.#options.retryMs ?? 250).unref?.());
      }
    }
  }

  state(): ClusterState {
    let leasesHeld = 0;
    for (const session of this.#sessions) if (session.holding) leasesHeld++;
    return { redis: this.redis.state, streamsFollowed: this.#tailer.size, leasesHeld };
  }

  /** Stops reading and closes the connections (sessions are stopped by the hub first). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#subscriber?.disconnect();
    await this.#tailer.close();
    await this.redis.close();
  }
}
