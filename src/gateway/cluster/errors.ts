/**
 * The two ways a Redis call fails, apart from the Redis client (redis.ts), so that the gateway's
 * error catalogue (gateway/errors.ts) can name a Redis outage without loading ioredis.
 */

/** Redis could not be reached (down, restarting, network): retry later; nothing was applied. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/** Redis answered with an error (wrong type, script error, NOAUTH…): a bug or misconfiguration. */
export class RedisCommandError extends Error {
  override readonly name = 'RedisCommandError';
}
