import { onTestFinished } from 'vitest';
import { ClusterRedis } from '../../../src/gateway/cluster/redis.js';
import { setupRedisServer, type RedisServer } from '../../helpers/redis.js';

/**
 * For a `describeWithRedis` body: one redis-server for the block, and `instance()`, a connected
 * client per simulated gateway instance, closed after the test.
 */
export function setupClusterRedis(): { server: RedisServer; instance: () => Promise<ClusterRedis> } {
  const server = setupRedisServer();
  async function instance(): Promise<ClusterRedis> {
    const redis = new ClusterRedis({ url: server.url, maxReconnectDelayMs: 50 });
    onTestFinished(() => redis.close());
    await redis.connect();
    return redis;
  }
  return { server, instance };
}
