/**
 * Stamps in cluster mode, over a real Redis: two gateway instances follow one credential's Redis
 * log, so a stamp names the same position on both. A stamp taken on instance A is answered by
 * `changes(since:)` on instance B (no upstream call but the queue's own), and resumes a subscription
 * on B. (Each instance keeps its own change log of the shared log: B answers the stamps of the
 * time it has followed the credential; docs/mobile-sync.md, "Cluster mode".)
 */
import { expect, onTestFinished, test } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { EventHub, sessionKey } from '../../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { basicAuth } from '../../helpers/harness.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { setupListeningEmulator } from '../cluster/fixture.js';

const SECRET = 's'.repeat(40);
type Answer = { data?: Record<string, unknown> | null; errors?: unknown[]; extensions?: { stamp?: string } };

describeWithRedis('stamps in cluster mode', () => {
  const redis = setupRedisServer();
  const upstream = setupListeningEmulator();
  const lookupsOf = (login: string) =>
    upstream.emulator.requests.filter((r) => r.email === demoUser(login).email && r.path !== '/register' && !r.path.startsWith('/events')).length;

  async function instance(prefix: string) {
    const cluster = new EventCluster({ url: redis.url, secret: SECRET, keyPrefix: prefix, failoverMs: 1000, retryMs: 20, maxReconnectDelayMs: 50, tail: { blockMs: 1000, retryMs: 20 } });
    const hub = new EventHub({ graceMs: 300, cluster });
    const gateway = createGateway({ logging: false, zulipUrl: upstream.url, eventHub: hub });
    const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
    const url = await served.listen(0, '127.0.0.1');
    onTestFinished(async () => {
      await served.close();
      await gateway.dispose();
    });
    const gql = async (login: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> => {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: basicAuth(demoUser(login)), 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as Answer;
    };
    const directoryOf = (login: string) => {
      const { email, apiKey } = demoUser(login);
      return gateway.directories!.registry.get(sessionKey(new ZulipConnection({ baseUrl: upstream.url, credentials: { email, apiKey } })));
    };
    return { gql, url, directoryOf };
  }

  async function send(login: string, content: string): Promise<number> {
    const response = await fetch(`${upstream.url}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: basicAuth(demoUser(login)), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'stream', to: 'general', topic: 'cluster sync', content }),
    });
    return ((await response.json()) as { id: number }).id;
  }

  test('a stamp from instance A is answered by changes(since:) on instance B, and resumes a subscription there', async () => {
    const [a, b] = [await instance('s1:'), await instance('s1:')];
    // Both instances follow hamlet's one queue (A registers it, B follows its Redis log).
    expect((await a.gql('hamlet', '{ stamp me { zulipId } }')).errors).toBeUndefined();
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true, 10_000, 'A\u2019s directory');
    await b.gql('hamlet', 'query($id: Long!) { stamp user(id: $id) { zulipId } }', { id: upstream.emulator.store.userByEmail(demoUser('othello').email)!.user_id });
    await waitUntil(() => b.directoryOf('hamlet')?.ready === true, 10_000, 'B\u2019s directory');

    const onA = await a.gql('hamlet', '{ stamp me { zulipId } }');
    const stamp = onA.extensions!.stamp!;
    expect(stamp).toEqual(expect.any(String));

    const sent = [await send('othello', 'one'), await send('othello', 'two')];
    await waitUntil(async () => (await b.gql('hamlet', '{ stamp }')).extensions!.stamp !== stamp, 10_000, 'B to follow the new events');

    const before = lookupsOf('hamlet');
    const changes = await b.gql('hamlet', 'query($s: String!) { changes(since: $s) { stamp resyncRequired messages { created { zulipId } } } }', { s: stamp });
    expect(changes.errors).toBeUndefined();
    expect(changes.data!.changes).toMatchObject({ resyncRequired: false, messages: { created: sent.map((zulipId) => ({ zulipId })) } });
    expect(lookupsOf('hamlet')).toBe(before);

    const stream = sseSubscribe<{ messages: { message?: { zulipId: number } } }>(
      `${b.url}/graphql`,
      'subscription($after: String) { messages(after: $after) { ... on MessageEvent { message { zulipId } } } }',
      { after: stamp },
      { authorization: basicAuth(demoUser('hamlet')) },
    );
    await stream.waitFor(2, 10_000);
    stream.close();
    expect(stream.results.slice(0, 2).map((r) => r.data?.messages.message?.zulipId)).toEqual(sent);
  }, 60_000);
});
