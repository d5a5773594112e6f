/**
 * Revocation in cluster mode (revocation.ts, cluster/cluster.ts), over a real Redis: two gateway
 * instances with live directories, the same credentials warm on both. A key regenerated through
 * one instance, and a user deactivated elsewhere (its event reaching only the instance that follows
 * another credential), are refused within 2 s on both: lookups from the warm directory over HTTP,
 * subscriptions over WebSocket and SSE end with UNAUTHENTICATED, and the credential's registration
 * snapshot leaves Redis.
 */
import { Redis } from 'ioredis';
import { createClient } from 'graphql-ws';
import { expect, onTestFinished, test } from 'vitest';
import WebSocket from 'ws';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { EventHub, sessionKey } from '../../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection, type Credentials } from '../../../src/zulip/connection.js';
import { basicAuth } from '../../helpers/harness.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { collect } from '../../helpers/ws-client.js';
import { setupListeningEmulator } from './fixture.js';

const SECRET = 's'.repeat(40);
const WITHIN_MS = 2_000;
const ONE = 'query One($id: Long!) { user(id: $id) { zulipId fullName } }';
const EVENTS = 'subscription { events { __typename } }';
type Result = { data?: unknown; errors?: readonly { extensions?: Record<string, unknown> }[]; extensions?: { upstreamRequests?: number } };
type Ending = { done: boolean; results: readonly { errors?: readonly { extensions?: Record<string, unknown> }[] }[] };

describeWithRedis('revocation in cluster mode', () => {
  const redis = setupRedisServer();
  const upstream = setupListeningEmulator();
  const userId = (login: string) => upstream.emulator.store.userByEmail(demoUser(login).email)!.user_id;

  async function instance(prefix: string) {
    const cluster = new EventCluster({ url: redis.url, secret: SECRET, keyPrefix: prefix, failoverMs: 1000, retryMs: 20, maxReconnectDelayMs: 50, tail: { blockMs: 1000, retryMs: 20 } });
    const hub = new EventHub({ graceMs: 300, cluster });
    const gateway = createGateway({ logging: false, liveDirectory: true, zulipUrl: upstream.url, eventHub: hub });
    const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
    const url = await served.listen(0, '127.0.0.1');
    const clients: ReturnType<typeof createClient>[] = [];
    onTestFinished(async () => {
      await Promise.all(clients.map((c) => c.dispose()));
      await served.close();
      await gateway.dispose();
    });
    const gql = async (as: Credentials, query: string, variables: Record<string, unknown> = {}): Promise<Result> => {
      const response = await fetch(url, { method: 'POST', headers: { authorization: basicAuth(as), 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return (await response.json()) as Result;
    };
    const ready = (as: Credentials) => gateway.directories!.registry.get(sessionKey(new ZulipConnection({ baseUrl: upstream.url, credentials: as })))?.ready === true;
    /** Warm on this instance: a lookup from the directory (no upstream call), and a subscription over WebSocket and one over SSE. */
    const warm = async (as: Credentials) => {
      await gql(as, ONE, { id: userId('iago') });
      await waitUntil(() => ready(as), 10_000, 'the directory to load');
      await waitUntil(async () => (await gql(as, ONE, { id: userId('iago') })).extensions?.upstreamRequests === 0, 5_000, 'a lookup from the directory');
      const client = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization: basicAuth(as) }, retryAttempts: 0, lazy: true });
      clients.push(client);
      const ws = collect(client, EVENTS);
      const sse = sseSubscribe(url, EVENTS, {}, { authorization: basicAuth(as) });
      onTestFinished(() => sse.close());
      await waitUntil(() => hub.stats().subscribers >= 1 && sse.status === 200, 5_000, 'the subscriptions to attach');
      return { ws, sse };
    };
    return { gql, warm, hub };
  }

  async function refusedOnBoth(instances: Awaited<ReturnType<typeof instance>>[], streams: { ws: Ending; sse: Ending }[], as: Credentials, since: number) {
    await waitUntil(() => streams.every((s) => s.ws.done && s.sse.done), WITHIN_MS - (Date.now() - since), 'every subscription on both instances to end');
    for (const s of streams) {
      expect(s.ws.results.at(-1)?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(s.sse.results.at(-1)?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    for (const side of instances) expect((await side.gql(as, ONE, { id: userId('iago') })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(Date.now() - since).toBeLessThan(WITHIN_MS);
  }

  test('a key regenerated through instance A is refused within 2 s on A and B, and its snapshot leaves Redis', async () => {
    const [a, b] = [await instance('r1:'), await instance('r1:')];
    const hamlet = demoUser('hamlet');
    const streams = [await a.warm(hamlet), await b.warm(hamlet)];
    const keys = new Redis(redis.url);
    onTestFinished(() => void keys.quit());
    expect(await keys.keys('r1:snapshot:*')).toHaveLength(1);
    const since = Date.now();
    const regenerated = await a.gql(hamlet, 'mutation { regenerateApiKey { apiKey } }');
    expect(regenerated.errors).toBeUndefined();
    await refusedOnBoth([a, b], streams, hamlet, since);
    await waitUntil(async () => (await keys.keys('r1:snapshot:*')).length === 0, WITHIN_MS, 'the snapshot to leave Redis');
  });

  test('a user deactivated elsewhere: the event reaches only A (another credential\u2019s queue), and B refuses the user within 2 s too', async () => {
    const [a, b] = [await instance('r2:'), await instance('r2:')];
    const othello = demoUser('othello');
    const iago = demoUser('iago');
    // Only A follows iago (whose queue gets the deactivation event; othello's own does not).
    expect((await a.gql(iago, ONE, { id: userId('hamlet') })).errors).toBeUndefined();
    const streams = [await a.warm(othello), await b.warm(othello)];
    await waitUntil(async () => (await a.gql(iago, ONE, { id: userId('hamlet') })).extensions?.upstreamRequests === 0, 10_000, 'iago\u2019s directory on A');
    const keys = new Redis(redis.url);
    onTestFinished(() => void keys.quit());
    expect(await keys.keys('r2:snapshot:*')).toHaveLength(2); // iago's and othello's
    const since = Date.now();
    const response = await fetch(`${upstream.url}/api/v1/users/${userId('othello')}`, { method: 'DELETE', headers: { authorization: basicAuth(demoUser('desdemona')) } });
    expect(response.status).toBe(200);
    await refusedOnBoth([a, b], streams, othello, since);
    await waitUntil(async () => (await keys.keys('r2:snapshot:*')).length === 1, WITHIN_MS, 'othello’s snapshot to leave Redis');
  });
});
