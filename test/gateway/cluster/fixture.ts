import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { ClusterRedis } from '../../../src/gateway/cluster/redis.js';
import { EventHub, type HubStats } from '../../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { basicAuth } from '../../helpers/harness.js';
import { setupRedisServer, type RedisServer } from '../../helpers/redis.js';
import type { InstanceMessage } from './instance.js';

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

/** A gateway instance of a cluster test, on a loopback port. */
export interface Instance {
  wsUrl: string;
  url: string;
  stats(): Promise<HubStats>;
  client(login: string): Client;
}

/**
 * For a `describeWithRedis` body: gateway instances in cluster mode over `redis`, in front of
 * `upstream`, each closed (or killed) after its test. `childInstance` runs in a process of its own
 * (instance.ts: killable with SIGKILL, closed cleanly with `{ type: 'close' }`), `localInstance` in
 * this one.
 */
export function setupInstances(redis: RedisServer, upstream: ListeningEmulator, { secret, failoverMs }: { secret: string; failoverMs: number }) {
  function clientOf(wsUrl: string, clients: Client[]) {
    return (login: string) => {
      const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { authorization: basicAuth(demoUser(login)) }, retryAttempts: 0, lazy: true });
      clients.push(client);
      return client;
    };
  }

  /** A fresh key prefix per test: each test's credentials start with no state in Redis. */
  let prefixCount = 0;
  const nextPrefix = () => `t${++prefixCount}:`;

  /** Instance A: a child process (killable with SIGKILL). */
  async function childInstance(prefix: string): Promise<Instance & { child: ChildProcess }> {
    const child = fork(fileURLToPath(new URL('./instance.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ZULIP_URL: upstream.url, REDIS_URL: redis.url, GATEWAY_SECRET: secret, REDIS_KEY_PREFIX: prefix, CLUSTER_FAILOVER_MS: String(failoverMs) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const clients: Client[] = [];
    onTestFinished(async () => {
      await Promise.all(clients.map((c) => c.dispose()));
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('instance A did not start within 60 s')), 60_000);
      child.once('exit', (code) => reject(new Error(`instance A exited (${code})`)));
      child.on('message', (m: InstanceMessage) => m.type === 'ready' && (clearTimeout(timer), resolve(m.url)));
    });
    const wsUrl = url.replace(/^http/, 'ws');
    const stats = () =>
      new Promise<HubStats>((resolve) => {
        const onMessage = (m: InstanceMessage) => m.type === 'stats' && (child.off('message', onMessage), resolve(m.stats!));
        child.on('message', onMessage);
        child.send({ type: 'stats' } satisfies InstanceMessage);
      });
    return { child, url, wsUrl, stats, client: clientOf(wsUrl, clients) };
  }

  /** Instance B: in this process. */
  async function localInstance(prefix: string): Promise<Instance & { hub: EventHub }> {
    const cluster = new EventCluster({
      url: redis.url,
      secret,
      keyPrefix: prefix,
      failoverMs,
      retryMs: 20,
      maxReconnectDelayMs: 50,
      tail: { blockMs: 1000, retryMs: 20 },
    });
    const hub = new EventHub({ graceMs: 300, cluster });
    const gateway = createGateway({ logging: false, liveDirectory: false, zulipUrl: upstream.url, eventHub: hub });
    const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
    const url = await served.listen(0, '127.0.0.1');
    const wsUrl = url.replace(/^http/, 'ws');
    const clients: Client[] = [];
    onTestFinished(async () => {
      await Promise.all(clients.map((c) => c.dispose()));
      await served.close();
      await gateway.dispose();
    });
    return { hub, url, wsUrl, stats: async () => hub.stats(), client: clientOf(wsUrl, clients) };
  }

  return { childInstance, localInstance, nextPrefix };
}
