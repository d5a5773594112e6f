/**
 * The live directory in cluster mode, over a real Redis: two gateway instances in this process
 * share one credential's upstream queue. The instance that registered the queue loads its directory
 * from that registration (the directory's register options are part of it) and keeps it current
 * from the Redis log; the other instance loads the same registration from Redis (cluster/snapshot.ts)
 * and follows the same log. Answers are the same on both, and cost no upstream call once warm.
 */
import { gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { expect, onTestFinished, test } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventHub, sessionKey } from '../../../src/gateway/events/hub.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { basicAuth } from '../../helpers/harness.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';
import { setupListeningEmulator } from './fixture.js';

const SECRET = 's'.repeat(40);
const ONE = 'query One($id: Long!) { user(id: $id) { zulipId fullName email } }';
type OneUser = { data?: { user: { id: number; fullName: string; email: string } | null }; errors?: unknown[] };

describeWithRedis('live directory in cluster mode', () => {
  const redis = setupRedisServer();
  const upstream = setupListeningEmulator();
  const { registersOf } = upstream;

  const userId = (login: string) => upstream.emulator.store.userByEmail(demoUser(login).email)!.user_id;
  /** Calls of `login` to the chat server other than the queue's own (register, long polls). */
  const lookupsOf = (login: string) =>
    upstream.emulator.requests.filter((r) => r.email === demoUser(login).email && r.path !== '/register' && !r.path.startsWith('/events')).length;

  async function instance(prefix: string) {
    const cluster = new EventCluster({ url: redis.url, secret: SECRET, keyPrefix: prefix, failoverMs: 1000, retryMs: 20, maxReconnectDelayMs: 50, tail: { blockMs: 1000, retryMs: 20 } });
    const hub = new EventHub({ graceMs: 300, cluster });
    const gateway = createGateway({ logging: false, liveDirectory: true, zulipUrl: upstream.url, eventHub: hub });
    const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0 }, drainMs: 0 });
    const url = await served.listen(0, '127.0.0.1');
    onTestFinished(async () => {
      await served.close();
      await gateway.dispose();
    });
    const directoryOf = (login: string) => {
      const { email, apiKey } = demoUser(login);
      return gateway.directories!.registry.get(sessionKey(new ZulipConnection({ baseUrl: upstream.url, credentials: { email, apiKey } })));
    };
    const gql = async (login: string, query: string, variables: Record<string, unknown>): Promise<OneUser> => {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: basicAuth(demoUser(login)), 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as OneUser;
    };
    return { hub, directoryOf, gql };
  }

  test('both instances serve warm lookups from their directories with no upstream call: the other instance loads the holder\u2019s registration from Redis; a change made through one is seen on the other once its event arrived', async () => {
    const [a, b] = [await instance('d1:'), await instance('d1:')];
    const othello = userId('othello');
    const hamlet = userId('hamlet');

    // A's first lookup opens hamlet's session there: A takes the lease and registers the one queue.
    const first = await a.gql('hamlet', ONE, { id: othello });
    expect(first.data!.user!.fullName).toBe('Othello, the Moor of Venice');
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true, 10_000, 'A\u2019s directory to load from the registration');
    expect(a.hub.stats().cluster?.leasesHeld).toBe(1);

    // B follows the same queue through Redis, and loads A's registration from there: no second one.
    const onB = await b.gql('hamlet', ONE, { id: othello });
    expect(onB.data).toEqual(first.data);
    await waitUntil(() => b.directoryOf('hamlet')?.ready === true, 10_000, 'B\u2019s directory to load from the stored registration');
    expect(b.hub.stats().cluster?.leasesHeld).toBe(0);
    expect(registersOf('hamlet')).toBe(1);

    let before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: othello })).data).toEqual(first.data);
    expect((await b.gql('hamlet', ONE, { id: othello })).data).toEqual(first.data);
    expect(lookupsOf('hamlet')).toBe(before); // warm on both: no upstream call

    // A change upstream reaches both directories through the log (in order, after their snapshot).
    const renamed = await fetch(`${upstream.url}/api/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: basicAuth(demoUser('othello')), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ full_name: 'Othello of Cyprus' }),
    });
    expect(renamed.status).toBe(200);
    for (const side of [a, b]) {
      await waitUntil(async () => (await side.gql('hamlet', ONE, { id: othello })).data?.user?.fullName === 'Othello of Cyprus', 10_000, 'the rename to be applied');
    }
    before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: othello })).data!.user!.fullName).toBe('Othello of Cyprus');
    expect((await b.gql('hamlet', ONE, { id: othello })).data!.user!.fullName).toBe('Othello of Cyprus');
    expect(lookupsOf('hamlet')).toBe(before);

    // A change made through A (hamlet renames himself there) is seen on B once its event arrived, still with no call.
    const mutation = await a.gql('hamlet', 'mutation($name: String!) { updateSettings(input: { fullName: $name }) { ignoredParametersUnsupported } }', { name: 'Hamlet, Prince' });
    expect(mutation.errors).toBeUndefined();
    const registers = registersOf('hamlet'); // the mutation reads the settings back with a registration of its own
    await waitUntil(() => b.directoryOf('hamlet')?.userById(hamlet)?.full_name === 'Hamlet, Prince', 10_000, 'B to apply the rename made through A');
    before = lookupsOf('hamlet');
    expect((await b.gql('hamlet', ONE, { id: hamlet })).data!.user!.fullName).toBe('Hamlet, Prince');
    expect(lookupsOf('hamlet')).toBe(before);
    expect(registersOf('hamlet')).toBe(registers); // the queue went on: no registration for the directories

    // The stored registration holds values only: no API key, in any key or value.
    const redisClient = new Redis(redis.url);
    onTestFinished(() => void redisClient.quit());
    const dump: string[] = [];
    for (const key of await redisClient.keys('d1:*')) {
      dump.push(key);
      const type = await redisClient.type(key);
      if (type === 'string') {
        const value = (await redisClient.getBuffer(key))!;
        dump.push(key.startsWith('d1:snapshot:') ? gunzipSync(value).toString('utf8') : value.toString('utf8'));
      }
      if (type === 'hash') dump.push(...Object.values(await redisClient.hgetall(key)));
      if (type === 'stream') dump.push(JSON.stringify(await redisClient.xrange(key, '-', '+')));
    }
    const text = dump.join('\n');
    expect(text).toContain('Othello, the Moor of Venice'); // the dump is real: only the snapshot holds the name from before the rename
    const { email, apiKey } = demoUser('hamlet');
    for (const secret of [apiKey, Buffer.from(`${email}:${apiKey}`).toString('base64')]) expect(text).not.toContain(secret);
  });

  test('after the queue expires, the holder’s re-registration reloads both instances\u2019 directories, which then follow the new queue only', async () => {
    const [a, b] = [await instance('d2:'), await instance('d2:')];
    const iago = userId('iago');
    const registeredBefore = registersOf('hamlet');
    await a.gql('hamlet', ONE, { id: iago });
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true, 10_000, 'A’s directory');
    await b.gql('hamlet', ONE, { id: iago });
    await waitUntil(() => b.hub.stats().cluster?.streamsFollowed === 1, 10_000, 'B to follow hamlet’s log');
    const loaded = a.directoryOf('hamlet')!;
    const oldLastEventId = loaded.lastEventId;

    // Events of the old queue, then the queue is gone: A registers a new one and logs a RESYNC.
    // A's queue: the newest (two instances closing together may leave an earlier test's queue to expire upstream).
    const queue = upstream.emulator.queues.queuesOf(userId('hamlet')).at(-1);
    const rename = (name: string) =>
      fetch(`${upstream.url}/api/v1/settings`, {
        method: 'PATCH',
        headers: { authorization: basicAuth(demoUser('iago')), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ full_name: name }),
      });
    expect((await rename('Iago the First')).status).toBe(200);
    await waitUntil(() => loaded.lastEventId > oldLastEventId, 10_000, 'the first rename to be applied');
    const beforeExpiry = loaded.lastEventId;
    upstream.emulator.queues.expire(queue!.id);
    await waitUntil(() => registersOf('hamlet') === registeredBefore + 2, 10_000, 'A to register a new queue');
    // Loaded from the new registration: event ids count from the new queue's start.
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true && a.directoryOf('hamlet')!.lastEventId < beforeExpiry, 10_000, 'the reload');
    expect((await a.gql('hamlet', ONE, { id: iago })).data!.user!.fullName).toBe('Iago the First');

    // B loads the new registration from Redis at its mark in the log, after the RESYNC.
    await waitUntil(() => b.directoryOf('hamlet')?.ready === true && b.directoryOf('hamlet')!.lastEventId < beforeExpiry, 10_000, 'B\u2019s reload');

    // The new queue's events apply on top of the new snapshot; lookups stay free on both.
    expect((await rename('Iago the Second')).status).toBe(200);
    for (const side of [a, b]) {
      await waitUntil(async () => (await side.gql('hamlet', ONE, { id: iago })).data?.user?.fullName === 'Iago the Second', 10_000, 'the second rename');
    }
    const before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: iago })).data!.user!.fullName).toBe('Iago the Second');
    expect((await b.gql('hamlet', ONE, { id: iago })).data!.user!.fullName).toBe('Iago the Second');
    expect(lookupsOf('hamlet')).toBe(before);
    expect(registersOf('hamlet')).toBe(registeredBefore + 2);
  });
});
