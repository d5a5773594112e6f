import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
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

/** One emulator on a loopback port, shared by the gateway instances of a block. */
export interface ListeningEmulator {
  readonly emulator: Emulator;
  /** Its base URL, the gateways' ZULIP_URL. */
  readonly url: string;
  /** How many queues `login` has registered (POST /register). */
  registersOf(login: string): number;
}

/** For a describe body: an emulator listening for the whole block, closed after it. */
export function setupListeningEmulator(): ListeningEmulator {
  let emulator: Emulator | undefined;
  let listening: { url: string; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    emulator = createEmulator();
    listening = await emulator.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await listening?.close();
    await emulator?.close();
  });
  return {
    get emulator() {
      return emulator!;
    },
    get url() {
      return listening!.url;
    },
    registersOf: (login) =>
      emulator!.requests.filter((r) => r.method === 'POST' && r.path === '/register' && r.email === demoUser(login).email).length,
  };
}
