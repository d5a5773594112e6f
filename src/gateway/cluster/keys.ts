/**
 * Redis key names for one credential in cluster mode.
 *
 * Every key of a credential carries the same id: an HMAC-SHA256 of the server URL and the
 * credential under GATEWAY_SECRET. Without the secret the id cannot be recomputed from a guessed
 * API key, so neither the credential nor a plain hash of it (which a leaked key dump would let
 * anyone test guesses against) ever reaches Redis. The id sits in a `{hash tag}` so that the keys
 * of one credential share a Redis Cluster slot and one Lua script may touch them all.
 */
import { createHmac } from 'node:crypto';
import type { Credentials } from '../../zulip/connection.js';

/** Prepended to every Redis key unless REDIS_KEY_PREFIX says otherwise. */
export const DEFAULT_KEY_PREFIX = 'chatgraph:';

/** The keys of one credential. */
export interface CredentialKeys {
  /** The HMAC id (hex), also usable as a log-safe name of the credential within the cluster. */
  id: string;
  /** Who polls the upstream queue: a fencing token with a TTL (lease.ts). */
  lease: string;
  /** The capped event log every instance reads (stream.ts). */
  stream: string;
  /** Hash: stream generation and last sequence number, upstream queue_id and last_event_id. */
  state: string;
  /** The latest registration the holder logged, for the other instances' listeners (snapshot.ts). */
  snapshot: string;
  /** Hash: the credential's compacted change log behind `changes(since:)` (sync/redis.ts). */
  changes: string;
  /** Hash: the event types of the credential's writes in progress, each with its expiry (cluster.ts `fenceWrites`). */
  writes: string;
}

/** The log key of the credential whose lease key is `lease` (a handover seals the log, lease.ts). */
export function streamKeyOfLease(lease: string): string {
  return lease.replace(/lease:\{([^}]*)\}$/, 'stream:{$1}');
}

/** A cluster setting is missing or unusable; the gateway must not start. */
export class ClusterConfigError extends Error {
  override readonly name = 'ClusterConfigError';
}

/** Shortest GATEWAY_SECRET accepted: 16 bytes of entropy written as 32 hex digits, or the like. */
const MIN_SECRET_LENGTH = 32;

export interface KeyDeriverOptions {
  /** GATEWAY_SECRET; required, at least {@link MIN_SECRET_LENGTH} characters. */
  secret: string | undefined;
  /** Prepended to every key, so several deployments can share one Redis. @default DEFAULT_KEY_PREFIX */
  prefix?: string;
}

export type KeyDeriver = (baseUrl: string, credentials: Credentials) => CredentialKeys;

/** A function from (server, credential) to its keys; throws {@link ClusterConfigError} without a usable secret. */
export function createKeyDeriver(options: KeyDeriverOptions): KeyDeriver {
  const secret = options.secret ?? '';
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ClusterConfigError(
      secret.length === 0
        ? 'GATEWAY_SECRET is required when REDIS_URL is set (it keys the Redis names of credentials).'
        : `GATEWAY_SECRET must be at least ${MIN_SECRET_LENGTH} characters long.`,
    );
  }
  const prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
  if (/\s/.test(prefix)) throw new ClusterConfigError('The Redis key prefix must not contain whitespace.');
  return (baseUrl, credentials) => {
    // Length-prefixed fields: no two different (url, email, key) triples hash the same input.
    const id = createHmac('sha256', secret)
      .update(`${baseUrl.length}:${baseUrl}\n${credentials.email.length}:${credentials.email}\n${credentials.apiKey}`)
      .digest('hex');
    return {
      id,
      lease: `${prefix}lease:{${id}}`,
      stream: `${prefix}stream:{${id}}`,
      state: `${prefix}state:{${id}}`,
      snapshot: `${prefix}snapshot:{${id}}`,
      changes: `${prefix}changes:{${id}}`,
      writes: `${prefix}writes:{${id}}`,
    };
  };
}
