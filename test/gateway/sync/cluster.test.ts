/**
 * Stamps in cluster mode, over a real redis-server on a free loopback port: the change log lives in
 * Redis (sync/redis.ts), so a stamp taken on instance A is answered by `changes(since:)` on
 * instance B, which started after the stamp and the changes (no upstream call), and resumes a
 * subscription on B; a revoked credential's change log leaves Redis (docs/mobile-sync.md).
 */
import { expect, onTestFinished, test } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { createKeyDeriver } from '../../../src/gateway/cluster/keys.js';
import { EventHub, sessionKey } from '../../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { basicAuth } from '../../helpers/harness.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';
import { Redis } from 'ioredis';
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

  const CHANGES = 'query($s: String!) { changes(since: $s) { stamp resyncRequired messages { created { zulipId } edited { messageId content } } } }';

  test('a stamp from instance A is answered by changes(since:) on instance B started later, from Redis, and resumes a subscription there', async () => {
    const a = await instance('s1:');
    expect((await a.gql('hamlet', '{ stamp me { zulipId } }')).errors).toBeUndefined();
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true, 10_000, 'A\u2019s directory');
    const onA = await a.gql('hamlet', '{ stamp me { zulipId } }');
    const stamp = onA.extensions!.stamp!;
    expect(stamp).toEqual(expect.any(String));
    // A uses the stamp: its queue and change log are retained.
    const used = await a.gql("hamlet", CHANGES, { s: stamp });
    expect(used.data!.changes, JSON.stringify(used)).toMatchObject({ resyncRequired: false });

    const sent = [await send('othello', 'one'), await send('othello', 'two')];
    const edit = await fetch(`${upstream.url}/api/v1/messages/${sent[0]}`, {
      method: 'PATCH',
      headers: { authorization: basicAuth(demoUser('othello')), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ content: 'one, edited' }),
    });
    expect(edit.status).toBe(200);
    // A has followed (and written to Redis) the three events.
    await waitUntil(async () => ((await a.gql("hamlet", CHANGES, { s: stamp })).data?.changes as { messages: { created: { zulipId: number }[] } } | undefined)?.messages.created[0]?.zulipId === sent[0], 10_000, "A to follow the new events");
    const key = createKeyDeriver({ secret: SECRET, prefix: 's1:' })(upstream.url, { email: demoUser('hamlet').email, apiKey: demoUser('hamlet').apiKey }).changes;
    const raw = new Redis(redis.url, { lazyConnect: true });
    onTestFinished(() => void raw.quit());
    await waitUntil(async () => (await raw.hlen(key)) > 0, 10_000, 'the change log in Redis');
    // Its Redis key names the credential by its HMAC only.
    expect((await raw.keys('s1:changes:*')).join(' ')).not.toContain(demoUser('hamlet').apiKey);
    expect((await raw.keys('s1:changes:*')).join(' ')).not.toContain(demoUser('hamlet').email);

    // B starts now: it never followed hamlet, so only the log in Redis can answer.
    const b = await instance('s1:');
    const before = lookupsOf('hamlet');
    const changes = await b.gql('hamlet', CHANGES, { s: stamp });
    expect(changes.errors).toBeUndefined();
    expect(changes.data!.changes).toMatchObject({ resyncRequired: false, messages: { created: sent.map((zulipId) => ({ zulipId })), edited: [] } });
    expect((changes.data!.changes as { stamp: string }).stamp).toEqual(expect.any(String));
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

  test('a revoked credential\u2019s change log leaves Redis, and its stamps ask for a resync', async () => {
    const a = await instance('s2:');
    const b = await instance('s2:');
    expect((await a.gql('iago', '{ stamp me { zulipId } }')).errors).toBeUndefined();
    await waitUntil(() => a.directoryOf('iago')?.ready === true, 10_000, 'A\u2019s directory');
    const stamp = (await a.gql('iago', '{ stamp }')).extensions!.stamp!;
    await a.gql('iago', CHANGES, { s: stamp });
    await send('othello', 'for iago');
    const key = createKeyDeriver({ secret: SECRET, prefix: 's2:' })(upstream.url, { email: demoUser('iago').email, apiKey: demoUser('iago').apiKey }).changes;
    const raw = new Redis(redis.url, { lazyConnect: true });
    onTestFinished(() => void raw.quit());
    await waitUntil(async () => (await raw.hlen(key)) > 1, 10_000, 'the change log in Redis');
    // The key regenerated elsewhere: the old credential's next call is refused (401), which revokes it.
    const regenerated = await a.gql('iago', 'mutation { regenerateApiKey { apiKey } }');
    expect(regenerated.errors).toBeUndefined();
    await waitUntil(async () => (await raw.exists(key)) === 0, 10_000, 'the change log to leave Redis');
    const { apiKey } = (regenerated.data as { regenerateApiKey: { apiKey: string } }).regenerateApiKey;
    const fresh = await fetch(`${b.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${demoUser('iago').email}:${apiKey}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: CHANGES, variables: { s: stamp } }),
    });
    // Another credential (the new key) never inherits the old one's log.
    expect(((await fresh.json()) as Answer).data!.changes).toMatchObject({ resyncRequired: true });
  }, 60_000);
});
