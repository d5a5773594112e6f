import { describe, expect, it, onTestFinished } from 'vitest';
import { ClusterConfigError } from '../../../src/gateway/cluster/keys.js';
import {
  ClusterRedis,
  RedisCommandError,
  RedisUnavailableError,
  clusterConfigFromEnv,
  redactRedisUrl,
  type RedisState,
} from '../../../src/gateway/cluster/redis.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';

const SECRET = 'a'.repeat(32);

async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

/** A client that is closed when the test ends, with the states it went through. */
function client(url: string): { redis: ClusterRedis; states: RedisState[] } {
  const states: RedisState[] = [];
  const redis = new ClusterRedis({ url, maxReconnectDelayMs: 50, onState: (s) => states.push(s) });
  onTestFinished(() => redis.close());
  return { redis, states };
}

describe('cluster configuration', () => {
  it('is off without REDIS_URL', () => {
    expect(clusterConfigFromEnv({})).toBeUndefined();
    expect(clusterConfigFromEnv({ REDIS_URL: '  ' })).toBeUndefined();
  });

  it('refuses to start without GATEWAY_SECRET, without echoing the URL or its password', () => {
    const error = (() => {
      try {
        clusterConfigFromEnv({ REDIS_URL: 'redis://:hunter2@redis.internal:6379' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ClusterConfigError);
    expect(error!.message).toMatch(/GATEWAY_SECRET is required/);
    expect(error!.message).not.toContain('hunter2');
  });

  it('rejects other schemes and bad failover times', () => {
    expect(() => clusterConfigFromEnv({ REDIS_URL: 'http://redis', GATEWAY_SECRET: SECRET })).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => clusterConfigFromEnv({ REDIS_URL: 'not a url', GATEWAY_SECRET: SECRET })).toThrow(ClusterConfigError);
    expect(() => clusterConfigFromEnv({ REDIS_URL: 'redis://r', GATEWAY_SECRET: SECRET, CLUSTER_FAILOVER_MS: '10s' })).toThrow(
      /CLUSTER_FAILOVER_MS/,
    );
  });

  it('passes rediss:// URLs with a username and password through to the client, TLS on', async () => {
    const url = 'rediss://gateway:s3cret@redis.example.com:6380/2';
    const config = clusterConfigFromEnv({ REDIS_URL: url, GATEWAY_SECRET: SECRET, REDIS_KEY_PREFIX: 'prod:', CLUSTER_FAILOVER_MS: '5000' });
    expect(config).toEqual({ url, secret: SECRET, keyPrefix: 'prod:', failoverMs: 5000 });
    const redis = new ClusterRedis({ url });
    const options = redis.client.options;
    expect(options).toMatchObject({ host: 'redis.example.com', port: 6380, username: 'gateway', password: 's3cret', db: 2 });
    expect(options.tls).toBeDefined();
    expect(options).toMatchObject({ enableOfflineQueue: false, autoResendUnfulfilledCommands: false });
    await redis.close();
    expect(redactRedisUrl(url)).toBe('rediss://gateway:***@redis.example.com:6380/2');
  });
});

describeWithRedis('the Redis client against a server with a password', () => {
  const server = setupRedisServer({ password: 'p@ss word' });

  it('authenticates with the password from the URL', async () => {
    const { redis, states } = client(server.url);
    await redis.connect();
    expect(redis.state).toBe('connected');
    expect(await redis.run((c) => c.ping())).toBe('PONG');
    expect(states).toEqual(['connected']);
  });

  it('tells a refused password (a command error) apart from an unreachable server', async () => {
    const { redis } = client(`redis://:wrong@127.0.0.1:${server.port}`);
    await redis.connect();
    const error = await caught(redis.run((c) => c.ping()));
    expect(error).toBeInstanceOf(RedisCommandError);
    expect(error.message).not.toContain('wrong');
  });

  it('fails fast while the server is down, reports the state, and recovers when it is back', async () => {
    const { redis, states } = client(server.url);
    await redis.connect();
    await redis.run((c) => c.set('k', 'v'));
    await server.stop();
    await waitUntil(() => redis.state === 'down', 5000, 'state down');
    const started = Date.now();
    const error = await caught(redis.run((c) => c.get('k')));
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect(Date.now() - started).toBeLessThan(1000); // no offline queue: no waiting for a reconnect
    await server.start();
    await redis.whenConnected(5000);
    expect(await redis.run((c) => c.get('k'))).toBeNull(); // a restart without persistence lost the key
    expect(states).toEqual(['connected', 'down', 'connected']);
  });

  it('starts while the server is down and connects once it answers', async () => {
    await server.stop();
    const { redis } = client(server.url);
    await redis.connect();
    expect(redis.state).toBe('down');
    expect(await caught(redis.run((c) => c.ping()))).toBeInstanceOf(RedisUnavailableError);
    await server.start();
    await redis.whenConnected(5000);
    expect(await redis.run((c) => c.ping())).toBe('PONG');
  });

  it('refuses commands once closed', async () => {
    const { redis } = client(server.url);
    await redis.connect();
    await redis.close();
    expect(redis.state).toBe('closed');
    expect(await caught(redis.run((c) => c.ping()))).toBeInstanceOf(RedisUnavailableError);
  });
});
