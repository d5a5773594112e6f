/**
 * The live directory in cluster mode, over a real Redis: two gateway instances in this process
 * share one credential's upstream queue. The instance that registered the queue loads its directory
 * from that registration (the directory's register options are part of it) and keeps it current
 * from the Redis log; the other instance answers per request. Answers are the same on both.
 */
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

  test('the holder serves warm lookups from its directory with no upstream call; the other instance answers per request; both stay correct after a change', async () => {
    const [a, b] = [await instance('d1:'), await instance('d1:')];
    const othello = userId('othello');

    // A's first lookup opens hamlet's session there: A takes the lease and registers the one queue.
    const first = await a.gql('hamlet', ONE, { id: othello });
    expect(first.data!.user!.fullName).toBe('Othello, the Moor of Venice');
    await waitUntil(() => a.directoryOf('hamlet')?.ready === true, 10_000, 'A\u2019s directory to load from the registration');
    expect(a.hub.stats().cluster?.leasesHeld).toBe(1);

    // B follows the same queue through Redis; it saw no registration, so it answers per request.
    const onB = await b.gql('hamlet', ONE, { id: othello });
    expect(onB.data).toEqual(first.data);
    await waitUntil(() => b.hub.stats().cluster?.streamsFollowed === 1, 10_000, 'B to follow hamlet\u2019s log');
    expect(registersOf('hamlet')).toBe(1);
    expect(b.directoryOf('hamlet')?.ready).not.toBe(true);

    let before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: othello })).data).toEqual(first.data);
    expect(lookupsOf('hamlet')).toBe(before); // warm on the holder: no upstream call
    before = lookupsOf('hamlet');
    expect((await b.gql('hamlet', ONE, { id: othello })).data).toEqual(first.data);
    expect(lookupsOf('hamlet')).toBe(before + 1); // per request on the other instance

    // A change upstream reaches A's directory through the log (in order, after its snapshot).
    const renamed = await fetch(`${upstream.url}/api/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: basicAuth(demoUser('othello')), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ full_name: 'Othello of Cyprus' }),
    });
    expect(renamed.status).toBe(200);
    await waitUntil(async () => (await a.gql('hamlet', ONE, { id: othello })).data?.user?.fullName === 'Othello of Cyprus', 10_000, 'A to apply the rename');
    before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: othello })).data!.user!.fullName).toBe('Othello of Cyprus');
    expect(lookupsOf('hamlet')).toBe(before);
    expect((await b.gql('hamlet', ONE, { id: othello })).data!.user!.fullName).toBe('Othello of Cyprus');
    expect(registersOf('hamlet')).toBe(1);
  });

  test('after the queue expires, the holder’s re-registration reloads its directory, which then follows the new queue only', async () => {
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

    // The new queue's events apply on top of the new snapshot; lookups on A stay free, B per request.
    expect((await rename('Iago the Second')).status).toBe(200);
    await waitUntil(async () => (await a.gql('hamlet', ONE, { id: iago })).data?.user?.fullName === 'Iago the Second', 10_000, 'A to apply the second rename');
    const before = lookupsOf('hamlet');
    expect((await a.gql('hamlet', ONE, { id: iago })).data!.user!.fullName).toBe('Iago the Second');
    expect(lookupsOf('hamlet')).toBe(before);
    expect((await b.gql('hamlet', ONE, { id: iago })).data!.user!.fullName).toBe('Iago the Second');
    expect(registersOf('hamlet')).toBe(registeredBefore + 2);
  });
});
