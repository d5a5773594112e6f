/**
 * One gateway instance in cluster mode, in a process of its own, for the multi-instance tests (which
 * kill it with SIGKILL) and the cluster benchmark. Started with `fork(this file, { execArgv:
 * ['--import', 'tsx'] })` and the environment of a real deployment: ZULIP_URL, REDIS_URL,
 * GATEWAY_SECRET, REDIS_KEY_PREFIX, CLUSTER_FAILOVER_MS (without REDIS_URL: an in-process instance,
 * the benchmark's baseline). Served as `npm start` serves it, on an ephemeral loopback port.
 *
 * IPC: sends `{ type: 'ready', url }` once listening; answers `{ type: 'stats' }` with
 * `{ type: 'stats', stats, clients }` (the hub's, and the subscriptions served), and `{ type: 'close' }` by closing and exiting.
 */
import { clusterConfigFromEnv } from '../../../src/gateway/cluster/redis.js';
import { EventHub } from '../../../src/gateway/events/hub.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';

export type InstanceMessage =
  | { type: 'ready'; url: string }
  | { type: 'stats'; stats?: ReturnType<EventHub['stats']>; clients?: number }
  | { type: 'close' };

async function main(): Promise<void> {
  const config = clusterConfigFromEnv(process.env);
  const cluster =
    config &&
    new EventCluster({
      ...config,
      // Fast recovery in tests; the defaults are for production.
      retryMs: Number(process.env.CLUSTER_RETRY_MS ?? 20),
      maxReconnectDelayMs: 50,
      tail: { blockMs: 1000, retryMs: 20 },
    });
  const hub = new EventHub({
    graceMs: Number(process.env.GRACE_MS ?? 300),
    slowConsumerLimit: Number(process.env.SLOW_CONSUMER_LIMIT ?? 1000),
    ...(cluster && { cluster }),
  });
  const gateway = createGateway({ logging: false, liveDirectory: false, zulipUrl: process.env.ZULIP_URL!, eventHub: hub });
  const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
  const url = await served.listen(0, '127.0.0.1');
  process.on('message', async (message: InstanceMessage) => {
    if (message.type === 'stats') process.send!({ type: 'stats', stats: hub.stats(), clients: gateway.graphqlSubscriptions.clients } satisfies InstanceMessage);
    if (message.type === 'close') {
      await served.close();
      await gateway.dispose();
      process.exit(0);
    }
  });
  // Orphaned (the test runner died): leave too.
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', url } satisfies InstanceMessage);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
