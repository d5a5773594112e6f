/**
 * Two gateway instances acting as one over a real Redis, against one emulator on a loopback port:
 * instance A runs in a child process (instance.ts) so that it can be killed with SIGKILL, instance
 * B in this process. Clients are real graphql-ws clients; every wait is bounded and event-driven.
 */
import { expect, onTestFinished, test } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { ClusterConfigError } from '../../../src/gateway/cluster/keys.js';
import { EventHub, type HubStats } from '../../../src/gateway/events/hub.js';
import { EventCluster } from '../../../src/gateway/cluster/cluster.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { basicAuth } from '../../helpers/harness.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';
import { collect, type Collected } from '../../helpers/ws-client.js';
import { setupInstances, setupListeningEmulator, type Instance } from './fixture.js';

const SECRET = 's'.repeat(40);
const FAILOVER_MS = 1000;
const EVENTS = `subscription($after: String) { events(after: $after) {
  __typename
  ... on Event { cursor kind }
  ... on MessageEvent { message { zulipId content } }
  ... on ResyncEvent { reason }
} }`;

type Ev = { __typename: string; cursor: string; kind: string; message?: { zulipId: number; content: string }; reason?: string };
const events = (sub: Collected): Ev[] => sub.results.map((r) => (r.data as { events: Ev }).events);
const messageIds = (sub: Collected) => events(sub).filter((e) => e.message).map((e) => e.message!.zulipId);

describeWithRedis('two gateway instances over one Redis', () => {
  const redis = setupRedisServer();
  const upstream = setupListeningEmulator();
  const { registersOf } = upstream;
  const { childInstance, localInstance, nextPrefix } = setupInstances(redis, upstream, { secret: SECRET, failoverMs: FAILOVER_MS });

  /** The user's live upstream queues (registered: events sent from now on are delivered). */
  const queuesOf = (login: string) => upstream.emulator.queues.queuesOf(upstream.emulator.store.userByEmail(demoUser(login).email)!.user_id);

  /** Sends a channel message straight to the emulator, as a client of some other server would. */
  async function send(login: string, content: string, to = 'general'): Promise<number> {
    const body = new URLSearchParams({ type: 'stream', to, topic: 'cluster', content });
    const response = await fetch(`${upstream.url}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: basicAuth(demoUser(login)), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return ((await response.json()) as { id: number }).id;
  }

  async function waitStats(instance: Instance, condition: (s: HubStats) => boolean, what: string, withinMs = 10_000) {
    await waitUntil(async () => condition(await instance.stats()), withinMs, what);
  }

  test('subscribers on two instances share one upstream queue; A dies, B takes over the same queue, and A\u2019s cursor resumes on B with exactly the missed messages', async () => {
    const prefix = nextPrefix();
    const [a, b] = [await childInstance(prefix), await localInstance(prefix)];

    // A's subscriber comes first, so A holds the lease and polls.
    const onA = collect(a.client('hamlet'), EVENTS);
    await waitStats(a, (s) => s.subscribers === 1 && s.cluster?.leasesHeld === 1, 'A to hold the lease');
    await waitUntil(() => queuesOf('hamlet').length === 1, 10_000, 'the queue');
    const onB = collect(b.client('hamlet'), EVENTS);
    const otherOnB = collect(b.client('othello'), EVENTS); // another credential on the same instance
    await waitStats(b, (s) => s.subscribers === 2 && s.cluster?.streamsFollowed === 2, 'B to follow both logs');
    await waitUntil(() => queuesOf('othello').length === 1, 10_000, 'othello\u2019s queue');
    expect(registersOf('hamlet')).toBe(1);
    expect((await b.stats()).cluster).toMatchObject({ redis: 'connected', leasesHeld: 1 }); // othello's, not hamlet's

    const first = await send('othello', 'before the crash');
    await onA.waitFor(1);
    await onB.waitFor(1);
    const cursor = events(onA)[0]!.cursor;
    expect(events(onB)[0]!.cursor).toBe(cursor); // one log, one cursor, whichever instance delivers

    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    const missed: number[] = [];
    for (let i = 0; i < 5; i++) missed.push(await send('othello', `missed ${i}`));
    await waitUntil(() => b.hub.stats().cluster?.leasesHeld === 2, 10_000, 'B to take over hamlet\u2019s lease');
    const failoverMs = Date.now() - killedAt;
    expect(failoverMs).toBeLessThan(FAILOVER_MS + 500);

    // A's client comes back on B with A's cursor.
    const resumed = collect(b.client('hamlet'), EVENTS, { after: cursor });
    await resumed.waitFor(missed.length, 10_000);
    const sentinel = await send('othello', 'sentinel');
    await resumed.waitFor(missed.length + 1);
    await onB.waitFor(missed.length + 2);
    expect(messageIds(resumed)).toEqual([...missed, sentinel]);
    expect(events(resumed).every((e) => e.__typename === 'MessageEvent')).toBe(true);
    expect(messageIds(onB)).toEqual([first, ...missed, sentinel]); // no duplicate on B
    // The same upstream queue went on: no second registration, no resync.
    expect(registersOf('hamlet')).toBe(1);
    expect(queuesOf('hamlet')).toHaveLength(1);

    // othello's own subscription saw the channel messages it can read, and nothing of hamlet's.
    const direct = new URLSearchParams({ type: 'direct', to: JSON.stringify([upstream.emulator.store.userByEmail(demoUser('hamlet').email)!.user_id]), content: 'for hamlet only' });
    await fetch(`${upstream.url}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: basicAuth(demoUser('iago')), 'content-type': 'application/x-www-form-urlencoded' },
      body: direct,
    });
    const last = await send('iago', 'last');
    await onB.waitFor(missed.length + 4);
    await otherOnB.waitFor(missed.length + 2);
    expect(events(onB).at(-2)!.message!.content).toContain('for hamlet only');
    expect(events(otherOnB).map((e) => e.message?.content ?? '').some((c) => c.includes('for hamlet only'))).toBe(false);
    expect(messageIds(otherOnB).at(-1)).toBe(last);
  }, 60_000);

  test('a Redis restart: queries and mutations keep working, subscribers get a ResyncEvent and recover', async () => {
    const prefix = nextPrefix();
    const b = await localInstance(prefix);
    const sub = collect(b.client('cordelia'), EVENTS);
    await waitUntil(() => b.hub.stats().cluster?.leasesHeld === 1 && queuesOf('cordelia').length === 1, 10_000, 'B to hold the lease');
    const before = await send('othello', 'before the outage');
    await sub.waitFor(1);

    onTestFinished(() => redis.start()); // even if this test fails, the next ones find Redis up
    await redis.stop();
    await waitUntil(() => events(sub).some((e) => e.__typename === 'ResyncEvent'), 10_000, 'a ResyncEvent');
    // The blocking reader can see the outage before the command client's own close event: the
    // state must follow, not lead.
    await waitUntil(() => b.hub.stats().cluster?.redis === 'down', 10_000, `Redis reported down (${JSON.stringify(events(sub))})`);
    // A query and a mutation through B still work without Redis.
    const response = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(demoUser('othello')) },
      body: JSON.stringify({ query: 'mutation { sendMessage(channelName: "general", topic: "cluster", content: "during the outage") { messageId } }' }),
    });
    const during = ((await response.json()) as { data: { sendMessage: { messageId: number } } }).data.sendMessage.messageId;
    expect(typeof during).toBe('number');

    await redis.start();
    await waitUntil(() => b.hub.stats().cluster?.redis === 'connected' && b.hub.stats().cluster?.leasesHeld === 1, 10_000, 'B to reconnect and hold the lease');
    const after = await send('othello', 'after the outage');
    await waitUntil(() => messageIds(sub).includes(after), 10_000, 'the message sent after the outage');
    const list = events(sub);
    expect(list[0]!.message!.zulipId).toBe(before);
    expect(list[1]).toMatchObject({ __typename: 'ResyncEvent', reason: 'REDIS_UNAVAILABLE' });
    // Nothing is repeated, and the message sent during the outage is not lost (the queue went on).
    expect(messageIds(sub)).toEqual([before, during, after]);
    expect(sub.done).toBe(false);
  }, 60_000);

  test('an instance taking over a queue that is gone upstream registers a new one and sends a ResyncEvent', async () => {
    const prefix = nextPrefix();
    const [first, second] = [await localInstance(prefix), await localInstance(prefix)];
    const onFirst = collect(first.client('shiva'), EVENTS);
    await waitUntil(() => first.hub.stats().cluster?.leasesHeld === 1 && queuesOf('shiva').length === 1, 10_000, 'the first instance to hold the lease');
    const onSecond = collect(second.client('shiva'), EVENTS);
    await waitUntil(() => second.hub.stats().subscribers === 1, 10_000, 'the second subscriber');
    const before = await send('othello', 'before');
    await onSecond.waitFor(1);

    const userId = upstream.emulator.store.userByEmail(demoUser('shiva').email)!.user_id;
    const [queue] = upstream.emulator.queues.queuesOf(userId);
    onFirst.dispose();
    await first.hub.close(); // gives the lease up at once, leaving the queue to the second instance…
    upstream.emulator.queues.expire(queue!.id); // …which finds it gone
    await waitUntil(() => second.hub.stats().cluster?.leasesHeld === 1, 10_000, 'the second instance to take over');
    await waitUntil(() => registersOf('shiva') === 2, 10_000, 'a new registration');
    const after = await send('othello', 'after');
    await waitUntil(() => messageIds(onSecond).includes(after), 10_000, 'the message after the takeover');
    expect(events(onSecond).map((e) => e.message?.zulipId ?? e.reason)).toEqual([before, 'QUEUE_EXPIRED', after]);
  }, 60_000);

  test('after Redis lost the log, an instance continuing the queue from its own stale position replaces it and deletes the old one upstream: one queue left', async () => {
    const prefix = nextPrefix();
    const x = await childInstance(prefix);
    const y = await childInstance(prefix);
    const onX = collect(x.client('desdemona'), EVENTS);
    await waitStats(x, (s) => s.cluster?.leasesHeld === 1, 'X to hold the lease');
    await waitUntil(() => queuesOf('desdemona').length === 1, 10_000, 'X\u2019s queue');
    const onY = collect(y.client('desdemona'), EVENTS);
    await waitStats(y, (s) => s.subscribers === 1, 'Y\u2019s subscriber');
    await send('othello', 'polled by X');
    await onX.waitFor(1);
    await onY.waitFor(1);
    const [queue] = queuesOf('desdemona');
    await waitUntil(() => queue!.events.length === 0 && queue!.parked !== null, 10_000, 'X to acknowledge it');
    const ackedByX = queue!.maxPrunedId;

    // X is paused: Y takes the queue over and acknowledges past anything X logged.
    onTestFinished(() => void x.child.kill('SIGCONT'));
    onTestFinished(() => void y.child.kill('SIGCONT'));
    x.child.kill('SIGSTOP');
    await waitStats(y, (s) => s.cluster?.leasesHeld === 1, 'Y to take over');
    await send('othello', 'polled by Y');
    await onY.waitFor(2);
    await waitUntil(() => queue!.maxPrunedId > ackedByX, 10_000, 'Y to acknowledge past X');
    x.child.kill('SIGCONT');
    await waitStats(x, (s) => s.cluster?.leasesHeld === 0, 'X to see the lease gone');
    // (X may first have registered a queue of its own, refused by the fence and deleted at once.)
    const deletes = () => upstream.emulator.requests.filter((r) => r.method === 'DELETE' && r.path === '/events' && r.email === demoUser('desdemona').email).length;
    const [registersBefore, deletesBefore] = [registersOf('desdemona'), deletes()];

    // Redis loses every key while Y is paused: X takes the lease and only has its own position,
    // which the queue has pruned past ("An event newer than … has already been pruned").
    y.child.kill('SIGSTOP');
    onTestFinished(() => redis.start());
    await redis.stop();
    await redis.start();
    await waitUntil(() => registersOf('desdemona') === registersBefore + 1 && deletes() === deletesBefore + 1, 20_000, 'a new queue, and the old one deleted');
    const replacement = queuesOf('desdemona').map((q) => q.id);
    expect(replacement).toHaveLength(1);
    expect(replacement).not.toContain(queue!.id);

    // Y resumes, finds its queue gone and the lease taken (a queue it may register meanwhile is
    // refused by the fence and deleted): X's queue is the only one.
    y.child.kill('SIGCONT');
    await waitStats(y, (s) => s.cluster?.leasesHeld === 0, 'Y to see the lease gone');
    await waitStats(x, (s) => s.cluster?.leasesHeld === 1, 'X to hold the lease');
    await waitUntil(() => queuesOf('desdemona').length === 1, 10_000, 'one queue upstream');
    expect(queuesOf('desdemona').map((q) => q.id)).toEqual(replacement);
    const after = await send('othello', 'on the new queue');
    await waitUntil(() => messageIds(onX).includes(after) && messageIds(onY).includes(after), 20_000, 'the message on both instances');
    expect(events(onX).flatMap((e) => (e.reason ? [e.reason] : []))).toContain('UPSTREAM_ERROR');
  }, 90_000);

  test('a cursor resumes on an instance that had no session for the user: the replay comes from Redis', async () => {
    const prefix = nextPrefix();
    const [first, second] = [await localInstance(prefix), await localInstance(prefix)];
    const onFirst = collect(first.client('iago'), EVENTS);
    await waitUntil(() => first.hub.stats().cluster?.leasesHeld === 1 && queuesOf('iago').length === 1, 10_000, 'the first instance to hold the lease');
    const seen = await send('othello', 'seen');
    await onFirst.waitFor(1);
    const missed = [await send('othello', 'missed 1'), await send('othello', 'missed 2')];
    await onFirst.waitFor(3);
    expect(second.hub.stats().sessions).toBe(0);

    const resumed = collect(second.client('iago'), EVENTS, { after: events(onFirst)[0]!.cursor });
    await resumed.waitFor(2, 10_000);
    const next = await send('othello', 'live');
    await resumed.waitFor(3);
    await onFirst.waitFor(4);
    expect(messageIds(resumed)).toEqual([...missed, next]);
    expect(messageIds(onFirst)).toEqual([seen, ...missed, next]);
    expect(events(resumed).map((e) => e.cursor)).toEqual(events(onFirst).slice(1).map((e) => e.cursor));
    expect(registersOf('iago')).toBe(1);
  }, 60_000);

  test('the upstream queue outlives an instance\u2019s last subscriber while another instance has one, and is deleted when the last one anywhere leaves', async () => {
    const prefix = nextPrefix();
    const [first, second] = [await localInstance(prefix), await localInstance(prefix)];
    const onFirst = collect(first.client('polonius'), EVENTS);
    await waitUntil(() => first.hub.stats().cluster?.leasesHeld === 1 && queuesOf('polonius').length === 1, 10_000, 'the first instance to poll');
    const onSecond = collect(second.client('polonius'), EVENTS);
    await waitUntil(() => second.hub.stats().subscribers === 1, 10_000, 'the second subscriber');

    onFirst.dispose(); // the holder's last subscriber: after its grace period it hands the queue over
    await waitUntil(() => first.hub.stats().sessions === 0 && second.hub.stats().cluster?.leasesHeld === 1, 10_000, 'the second instance to take over');
    expect(queuesOf('polonius')).toHaveLength(1);
    const message = await send('iago', 'still here');
    await waitUntil(() => messageIds(onSecond).includes(message), 10_000, 'the message on the second instance');

    onSecond.dispose(); // the last subscriber anywhere
    await waitUntil(() => queuesOf('polonius').length === 0, 10_000, 'the queue to be deleted upstream');
    expect(registersOf('polonius')).toBe(1);
  }, 60_000);

  test('cluster mode refuses to start without GATEWAY_SECRET; without cluster options the hub stays in process', () => {
    expect(() => new EventCluster({ url: redis.url, secret: '' })).toThrow(ClusterConfigError);
    expect(() => createGateway({ zulipUrl: upstream.url, liveDirectory: false, cluster: { url: redis.url, secret: 'short' } })).toThrow(ClusterConfigError);
    expect(new EventHub().stats().cluster).toBeUndefined();
  });
});
