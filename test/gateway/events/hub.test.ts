/**
 * The event hub against the emulator, through the fetch seam: queue sharing, ordering and
 * acknowledgement, resync, transient failures, rate limits, 401, the watchdog, replay and the
 * grace-period delete. Events are pushed straight into the emulator's queues, so these tests do
 * not depend on any resource route.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { decodeCursor } from '../../../src/gateway/events/buffer.js';
import { EventHub, type EventHubOptions } from '../../../src/gateway/events/hub.js';
import type { Subscriber, SubscriberItem } from '../../../src/gateway/events/subscriber.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { isAuthError } from '../../../src/zulip/errors.js';
import { until } from '../../helpers/wait.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A backoff sleep in virtual time: records what was asked and only yields to the event loop. */
function fastSleep() {
  const delays: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    delays.push(ms);
    await new Promise<void>((resolve, reject) => {
      const tick = setImmediate(resolve);
      signal?.addEventListener('abort', () => (clearImmediate(tick), reject(signal.reason)), { once: true });
    });
  };
  return { delays, sleep };
}

function setup(options: { hub?: EventHubOptions; heartbeatIntervalMs?: number } = {}) {
  const emulator = createEmulator({ settings: { heartbeatIntervalMs: options.heartbeatIntervalMs ?? 50_000 } });
  const { delays, sleep } = fastSleep();
  const hub = new EventHub({ graceMs: 100, backoff: { sleep }, ...options.hub });
  cleanups.push(() => emulator.close(), () => hub.close());
  const connect = (login: string) => {
    const user = demoUser(login);
    return new ZulipConnection({
      baseUrl: 'http://zulip.test',
      credentials: { email: user.email, apiKey: user.apiKey },
      fetch: viaEmulator(emulator),
    });
  };
  return { emulator, hub, delays, connect };
}

/**
 * The emulator's fetch seam, behaving like a real fetch on abort: it rejects, instead of
 * resolving with whatever the handler answers after the client gave up.
 */
function viaEmulator(emulator: Emulator) {
  return (input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init?.signal;
      const onAbort = () => reject(new DOMException('This operation was aborted', 'AbortError'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      emulator.fetch(new Request(input, init)).then(resolve, reject);
    });
}

function userId(emulator: Emulator, login: string): number {
  return emulator.store.userByEmail(demoUser(login).email)!.user_id;
}

let nextMessageId = 10_000;

/** Pushes a message event into a user's queues, as the messages route would. */
function pushMessage(emulator: Emulator, to: number, fields: { channel?: number; topic?: string; content?: string } = {}) {
  const id = nextMessageId++;
  emulator.queues.notify([to], {
    type: 'message',
    flags: [],
    message: {
      id,
      type: 'stream',
      stream_id: fields.channel ?? 1,
      display_recipient: 'general',
      subject: fields.topic ?? 'greetings',
      content: fields.content ?? `<p>message ${id}</p>`,
      sender_id: to,
      reactions: [],
    },
  });
  return id;
}

/** Reads items until `count` arrived or the deadline passed. */
async function take(subscriber: Subscriber, count: number, withinMs = 3000): Promise<SubscriberItem[]> {
  const items: SubscriberItem[] = [];
  const deadline = Date.now() + withinMs;
  while (items.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const result = await subscriber.nextWithin(left);
    if (!result || result.done) break;
    items.push(result.value);
  }
  return items;
}

const messageIds = (items: SubscriberItem[]) =>
  items.map((i) => (i.type === 'event' && i.delivery.event.kind === 'MESSAGE' ? i.delivery.event.message.id : i.type === 'event' ? i.delivery.event.kind : i.reason));

const registers = (emulator: Emulator) => emulator.requests.filter((r) => r.method === 'POST' && r.path === '/register').length;

describe('EventHub', () => {
  test('two subscriptions of one user share one queue registered with the supported union and a fixed shape', async () => {
    const { emulator, hub, connect } = setup();
    const a = await hub.subscribe(connect('hamlet'));
    const b = await hub.subscribe(connect('hamlet'));
    expect(registers(emulator)).toBe(1);
    const [queue] = emulator.queues.queuesOf(userId(emulator, 'hamlet'));
    expect(queue!.options.applyMarkdown).toBe(true);
    expect(queue!.options.clientGravatar).toBe(false);
    expect(queue!.options.slimPresence).toBe(true);
    expect(queue!.options.capabilities).toMatchObject({ notification_settings_null: true, bulk_message_deletion: true, stream_typing_notifications: true, user_settings_object: true });
    expect(queue!.options.eventTypes).toContain('restart');
    expect(queue!.options.eventTypes).not.toContain('web_reload_client');

    const ids = [pushMessage(emulator, userId(emulator, 'hamlet')), pushMessage(emulator, userId(emulator, 'hamlet'))];
    expect(messageIds(await take(a, 2))).toEqual(ids);
    expect(messageIds(await take(b, 2))).toEqual(ids);
    expect(hub.stats()).toEqual({ sessions: 1, subscribers: 2, lingering: 0 });

    // Another user gets a queue of their own.
    await hub.subscribe(connect('othello'));
    expect(registers(emulator)).toBe(2);
  });

  test('events arrive in order, once each, with increasing cursors; heartbeats are acknowledged but not delivered', async () => {
    const { emulator, hub, connect } = setup({ heartbeatIntervalMs: 50 });
    const sub = await hub.subscribe(connect('hamlet'));
    const me = userId(emulator, 'hamlet');
    await until(() => emulator.requests.filter((r) => r.path === '/events').length >= 3); // heartbeats went by
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(pushMessage(emulator, me));
    const items = await take(sub, 20);
    expect(messageIds(items)).toEqual(ids);
    const seqs = items.map((i) => (i.type === 'event' ? decodeCursor(i.delivery.cursor)!.seq : -1));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(20);
    const sentinel = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([sentinel]); // nothing in between: no duplicate
    // Everything delivered was acknowledged: the queue holds nothing older than the last poll.
    await until(() => emulator.queues.queuesOf(me)[0]!.events.every((e) => e.type === 'heartbeat'));
  });

  test('kind and channel filters run per subscription on the shared queue', async () => {
    const { emulator, hub, connect } = setup();
    const me = userId(emulator, 'hamlet');
    const all = await hub.subscribe(connect('hamlet'));
    const channel2 = await hub.subscribe(connect('hamlet'), { filter: { terms: [{ operator: 'channel', channelId: 2 }] } });
    const typingOnly = await hub.subscribe(connect('hamlet'), { filter: { kinds: ['TYPING_STARTED'] } });
    pushMessage(emulator, me, { channel: 1 });
    const inTwo = pushMessage(emulator, me, { channel: 2 });
    emulator.queues.notify([me], { type: 'typing', op: 'start', message_type: 'stream', stream_id: 2, topic: 't', sender: { user_id: 5, email: 'x' } });
    expect(await take(all, 3)).toHaveLength(3);
    const two = await take(channel2, 2);
    expect(two.map((i) => i.type === 'event' && i.delivery.event.kind)).toEqual(['MESSAGE', 'TYPING_STARTED']);
    expect(messageIds(two)[0]).toBe(inTwo);
    expect((await take(typingOnly, 1)).map((i) => i.type === 'event' && i.delivery.event.kind)).toEqual(['TYPING_STARTED']);
    expect(registers(emulator)).toBe(1);
  });

  test('an expired queue is re-registered and subscribers get RESYNC, then new events', async () => {
    const { emulator, hub, connect } = setup();
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    const first = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([first]);
    emulator.queues.expire(emulator.queues.queuesOf(me)[0]!.id);
    await until(() => registers(emulator) === 2 && emulator.queues.queuesOf(me).length === 1);
    const [resync] = await take(sub, 1);
    expect(resync).toMatchObject({ type: 'event', delivery: { event: { kind: 'RESYNC', reason: 'QUEUE_EXPIRED', featureLevel: 372 } } });
    const after = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([after]);
  });

  test('5xx and dropped connections back off with jitter and retry with dont_block, losing nothing', async () => {
    const { emulator, hub, delays, connect } = setup();
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    await until(() => emulator.queues.queuesOf(me)[0]!.parked !== null);
    emulator.faults.inject('GET /events', { status: 502, times: 2 });
    emulator.faults.inject('GET /events', { reset: true, times: 2 });
    const id = pushMessage(emulator, me); // answers the parked poll; the retries then fail four times
    const id2 = pushMessage(emulator, me);
    const items = await take(sub, 2);
    expect(messageIds(items)).toEqual([id, id2]);
    const more = [pushMessage(emulator, me)];
    expect(messageIds(await take(sub, 1))).toEqual(more);
    expect(delays.length).toBe(4);
    delays.forEach((d, i) => expect(d).toBeLessThanOrEqual(100 * 2 ** i));
    const sentinel = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([sentinel]); // nothing repeated by the retries
  });

  test('a 429 waits at least Retry-After', async () => {
    const { emulator, hub, delays, connect } = setup();
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    await until(() => emulator.queues.queuesOf(me)[0]!.parked !== null);
    emulator.faults.inject('GET /events', { rateLimit: { retryAfter: 2.5 }, times: 1 });
    const id = pushMessage(emulator, me);
    const id2 = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 2))).toEqual([id, id2]);
    await until(() => delays.length > 0);
    expect(delays).toEqual([expect.any(Number)]);
    expect(delays[0]).toBeGreaterThanOrEqual(2500);
    const id3 = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([id3]);
  });

  test('the long-poll timeout is a watchdog: a silent connection is abandoned and retried', async () => {
    const { emulator, hub, connect } = setup({ hub: { longpollTimeoutMs: 150 } });
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    await until(() => emulator.queues.queuesOf(me)[0]!.parked !== null);
    emulator.faults.inject('GET /events', { hang: true, times: 1 });
    const first = pushMessage(emulator, me); // ends the parked poll; the next one hangs
    expect(messageIds(await take(sub, 1))).toEqual([first]);
    const hungAt = emulator.requests.length;
    await until(() => emulator.requests.length > hungAt + 1, 3000); // the watchdog gave up, a retry went out
    const id = pushMessage(emulator, me);
    expect(messageIds(await take(sub, 1))).toEqual([id]);
    expect(registers(emulator)).toBe(1); // the same queue throughout
  });

  test('a refused credential rejects the subscription; a credential revoked mid-stream ends it with UNAUTHENTICATED', async () => {
    const { emulator, hub, connect } = setup();
    const bad = new ZulipConnection({
      baseUrl: 'http://zulip.test',
      credentials: { email: demoUser('hamlet').email, apiKey: 'wrong' },
      fetch: viaEmulator(emulator),
    });
    await expect(hub.subscribe(bad)).rejects.toSatisfy(isAuthError);

    const sub = await hub.subscribe(connect('othello'));
    const othello = emulator.store.userByEmail(demoUser('othello').email)!;
    await until(() => emulator.queues.queuesOf(othello.user_id)[0]!.parked !== null);
    othello.api_key = 'rotated';
    pushMessage(emulator, othello.user_id); // the poll returns; the next one is refused
    const items = await take(sub, 2);
    expect(items.at(-1)).toMatchObject({ type: 'end', reason: 'UNAUTHENTICATED' });
    expect(JSON.stringify(items)).not.toContain(demoUser('othello').apiKey);
    expect(hub.stats().sessions).toBe(0);
  });

  test('when the last subscriber leaves, the queue is deleted after the grace period; a return within it reuses the queue', async () => {
    const { emulator, hub, connect } = setup({ hub: { graceMs: 300 } });
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    await sub.return();
    expect(hub.stats()).toEqual({ sessions: 1, subscribers: 0, lingering: 1 }); // in its grace period
    const again = await hub.subscribe(connect('hamlet'));
    expect(registers(emulator)).toBe(1);
    expect(hub.stats()).toEqual({ sessions: 1, subscribers: 1, lingering: 0 });
    await again.return();
    await until(() => emulator.queues.size() === 0, 3000);
    expect(emulator.requests.filter((r) => r.method === 'DELETE' && r.path === '/events')).toHaveLength(1);
    expect(emulator.queues.queuesOf(me)).toEqual([]);
    expect(hub.stats()).toEqual({ sessions: 0, subscribers: 0, lingering: 0 });
  });

  test('resuming with a cursor replays what was missed while away; a stale or foreign cursor yields RESYNC', async () => {
    const { emulator, hub, connect } = setup({ hub: { graceMs: 5000, replay: { maxEntries: 5 } } });
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'));
    pushMessage(emulator, me);
    const [seen] = await take(sub, 1);
    const cursor = decodeCursor((seen as { delivery: { cursor: string } }).delivery.cursor)!;
    await sub.return();
    const missed = [pushMessage(emulator, me), pushMessage(emulator, me), pushMessage(emulator, me)];
    await until(() => emulator.queues.queuesOf(me)[0]!.events.length === 0 && emulator.queues.queuesOf(me)[0]!.parked !== null);
    const resumed = await hub.subscribe(connect('hamlet'), { after: cursor });
    const live = pushMessage(emulator, me);
    expect(messageIds(await take(resumed, 4))).toEqual([...missed, live]);
    const sentinel = pushMessage(emulator, me);
    expect(messageIds(await take(resumed, 1))).toEqual([sentinel]); // nothing replayed twice

    // The buffer holds 5 entries: a cursor from before them cannot be served.
    for (let i = 0; i < 6; i++) pushMessage(emulator, me);
    await take(resumed, 6);
    const stale = await hub.subscribe(connect('hamlet'), { after: cursor });
    expect(await take(stale, 1)).toMatchObject([{ delivery: { event: { kind: 'RESYNC', reason: 'CURSOR_EXPIRED' } } }]);
    const foreign = await hub.subscribe(connect('hamlet'), { after: { generation: 'elsewhere', seq: 1 } });
    expect(await take(foreign, 1)).toMatchObject([{ delivery: { event: { kind: 'RESYNC', reason: 'CURSOR_UNKNOWN' } } }]);
  });

  test('a subscriber that does not read is closed with SLOW_CONSUMER and does not hold back the others', async () => {
    const { emulator, hub, connect } = setup({ hub: { slowConsumerLimit: 5 } });
    const me = userId(emulator, 'hamlet');
    const slow = await hub.subscribe(connect('hamlet'));
    const fast = await hub.subscribe(connect('hamlet'));
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      ids.push(pushMessage(emulator, me));
      expect(messageIds(await take(fast, 1))).toEqual([ids.at(-1)]);
    }
    expect(await take(slow, 10)).toEqual([expect.objectContaining({ type: 'end', reason: 'SLOW_CONSUMER' })]);
    expect(hub.stats().subscribers).toBe(1);
  });

  test('an in-process listener sees every registration and raw batch of the shared queue, with no queue of its own', async () => {
    const { emulator, hub, connect } = setup();
    const me = userId(emulator, 'hamlet');
    const sub = await hub.subscribe(connect('hamlet'), { filter: { kinds: ['TYPING_STARTED'] } });
    const seen: string[] = [];
    const stopListening = await hub.withSession(connect('hamlet'), async (session) =>
      session.listen({
        registered: (result, reason) => seen.push(`registered ${result.queue_id === null ? 'null' : 'queue'} ${reason ?? 'first'}`),
        events: (events) => seen.push(...events.map((e) => e.type)),
      }),
    );
    expect(registers(emulator)).toBe(1);
    pushMessage(emulator, me); // filtered out for the subscriber, not for the listener
    emulator.queues.notify([me], { type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: 5, email: 'x' }, recipients: [] });
    expect((await take(sub, 1)).map((i) => i.type === 'event' && i.delivery.event.kind)).toEqual(['TYPING_STARTED']);
    expect(seen).toEqual(['message', 'typing']);
    emulator.queues.expire(emulator.queues.queuesOf(me)[0]!.id);
    await until(() => seen.length === 3);
    expect(seen[2]).toBe('registered queue QUEUE_EXPIRED');
    stopListening();
    expect(registers(emulator)).toBe(2);
  });

  test('closing the hub waits for a session whose grace period just ended: its queue deletion completes before close resolves', async () => {
    const emulator = createEmulator({ settings: { heartbeatIntervalMs: 50_000 } });
    cleanups.push(() => emulator.close());
    // The DELETE is held until released: the session is then stopping, out of the hub's sessions.
    let releaseDelete!: () => void;
    const deleteHeld = new Promise<void>((resolve) => (releaseDelete = resolve));
    let deletesSeen = 0;
    const seam = viaEmulator(emulator);
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      if ((init?.method ?? 'GET') === 'DELETE') (deletesSeen++, await deleteHeld);
      return seam(input, init);
    };
    const hub = new EventHub({ graceMs: 50 });
    const user = demoUser('hamlet');
    const sub = await hub.subscribe(new ZulipConnection({ baseUrl: 'http://zulip.test', credentials: { email: user.email, apiKey: user.apiKey }, fetch }));
    await sub.return();
    await until(() => deletesSeen === 1);
    expect(hub.stats()).toEqual({ sessions: 0, subscribers: 0, lingering: 0 });
    let closed = false;
    const closing = hub.close().then(() => (closed = true));
    // A close that does not wait resolves within a few turns of the event loop (no timer involved).
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    expect(emulator.queues.size()).toBe(1);
    releaseDelete();
    await closing;
    expect(emulator.queues.size()).toBe(0);
  });

  test('closing the hub ends subscriptions and deletes queues', async () => {
    const { emulator, hub, connect } = setup();
    const sub = await hub.subscribe(connect('hamlet'));
    await hub.close();
    expect(await take(sub, 2)).toMatchObject([{ type: 'end', reason: 'SHUTDOWN' }]);
    expect(emulator.queues.size()).toBe(0);
  });
});
