/**
 * A real `redis-server` for cluster-mode tests: started on a free loopback port with no
 * persistence in a temporary directory, ready once it answers PING, stopped by its PID, and
 * restartable on the same port (an outage or a restart that lost every key).
 *
 * ```ts
 * describeWithRedis('leases', () => {
 *   const server = setupRedisServer({ password: 'pw' });
 *   it('…', async () => { const url = server.url; … await server.stop(); … await server.start(); });
 * });
 * ```
 *
 * Without `redis-server` on the PATH (or at REDIS_SERVER) the suites are skipped with a printed
 * notice, unless REQUIRE_REDIS=1, where they fail instead (CI must not pass by skipping).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisServer, redisServerFound, type RedisServerOptions } from './redis-server.js';

export { RedisServer, redisServerFound, waitUntil, type RedisServerOptions } from './redis-server.js';

/**
 * `describe` when redis-server is available; otherwise a skipped block and a notice, or, with
 * REQUIRE_REDIS=1, a failing test.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (redisServerFound) {
    describe(name, body);
  } else if (process.env.REQUIRE_REDIS === '1') {
    describe(name, () => {
      it('needs redis-server', () => {
        throw new Error('REQUIRE_REDIS=1 but redis-server was not found on the PATH');
      });
    });
  } else {
    console.warn(`cluster tests skipped: redis-server not found (${name})`);
    describe.skip(name, body);
  }
}

/** A server started before the block's tests and disposed of after them. */
export function setupRedisServer(options: RedisServerOptions = {}): RedisServer {
  const server = new RedisServer(options);
  beforeAll(() => server.start());
  afterAll(() => server.dispose());
  return server;
}
