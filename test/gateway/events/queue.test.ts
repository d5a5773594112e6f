/**
 * The poll loop of one upstream queue against the emulator, through the fetch seam: what becomes
 * of a queue the poller gives up. (Sharing, ordering and the other failures: hub.test.ts.)
 */
import { afterEach, expect, test } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import type { ResyncReason } from '../../../src/gateway/events/model.js';
import { QueuePoller, type QueueHandler } from '../../../src/gateway/events/queue.js';
import type { RawEvent } from '../../../src/gateway/events/model.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { until } from '../../helpers/wait.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A backoff sleep that only yields to the event loop (the backoff itself is hub.test.ts's). */
const sleep = (_ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const tick = setImmediate(resolve);
    signal?.addEventListener('abort', () => (clearImmediate(tick), reject(signal.reason)), { once: true });
  });

/**
 * hamlet's connection through the emulator's fetch seam (rejecting on abort, as a real fetch),
 * recording the queue ids deleted. With `registerAnswer`, a registration is carried out upstream at
 * once but answered only when that promise resolves (a slow answer).
 */
function connect(emulator: Emulator, registerAnswer?: Promise<void>) {
  const deleted: string[] = [];
  const user = demoUser('hamlet');
  const connection = new ZulipConnection({
    baseUrl: 'http://zulip.test',
    credentials: { email: user.email, apiKey: user.apiKey },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'DELETE') {
        const body = new URLSearchParams(await request.clone().text());
        deleted.push(body.get('queue_id') ?? new URL(request.url).searchParams.get('queue_id') ?? '');
      }
      return new Promise<Response>((resolve, reject) => {
        const onAbort = () => reject(new DOMException('This operation was aborted', 'AbortError'));
        if (init?.signal?.aborted) return onAbort();
        init?.signal?.addEventListener('abort', onAbort, { once: true });
        const answer = emulator.fetch(request);
        const held = registerAnswer && request.method === 'POST' && request.url.endsWith('/register') ? registerAnswer : undefined;
        void (held ?? Promise.resolve()).then(() => answer.then(resolve, reject));
      });
    },
  });
  return { connection, deleted };
}

function pushMessage(emulator: Emulator, to: number, id: number): void {
  emulator.queues.notify([to], {
    type: 'message',
    flags: [],
    message: { id, type: 'stream', stream_id: 1, display_recipient: 'general', subject: 'greetings', content: `<p>${id}</p>`, sender_id: to, reactions: [] },
  });
}

function handler(overrides: Partial<QueueHandler> = {}): QueueHandler {
  return { events: () => undefined, registered: () => undefined, failed: () => undefined, ...overrides };
}

test('a queue resumed from a stale position ("already been pruned") is deleted upstream before a new one is registered, with an UPSTREAM_ERROR resync', async () => {
  const emulator = createEmulator({ settings: { heartbeatIntervalMs: 50_000 } });
  cleanups.push(() => emulator.close());
  const me = emulator.store.userByEmail(demoUser('hamlet').email)!.user_id;
  const { connection, deleted } = connect(emulator);

  // A first poller receives three events and acknowledges them (its next poll prunes them).
  const seen: RawEvent[] = [];
  const first = new QueuePoller({ connection, eventTypes: ['message'], handler: handler({ events: (events) => void seen.push(...events) }) }).start();
  cleanups.push(() => first.stop());
  await first.whenReady(3000);
  const queueId = first.queueId!;
  for (const id of [1, 2, 3]) pushMessage(emulator, me, 20_000 + id);
  await until(() => emulator.queues.queuesOf(me)[0]!.maxPrunedId === seen.at(-1)?.id && seen.length === 3, 3000, 'the three events acknowledged');
  await first.stop(false); // left for another poller, as a cluster holder hands it over

  // Another one continues it from a position older than the acknowledgement (cluster mode: an
  // instance's own last position after Redis lost the log).
  const registrations: { reason: ResyncReason | undefined; oldQueueLive: boolean }[] = [];
  const second = new QueuePoller({
    connection,
    eventTypes: ['message'],
    resume: { queueId, lastEventId: seen[0]!.id - 1 },
    backoff: { sleep },
    handler: handler({
      registered: (_result, reason) => void registrations.push({ reason, oldQueueLive: emulator.queues.queuesOf(me).some((q) => q.id === queueId) }),
    }),
  }).start();
  cleanups.push(() => second.stop());
  await until(() => registrations.length === 1, 3000, 'a new registration');

  expect(registrations).toEqual([{ reason: 'UPSTREAM_ERROR', oldQueueLive: false }]);
  expect(deleted).toEqual([queueId]);
  expect(emulator.queues.queuesOf(me).map((q) => q.id)).toEqual([second.queueId]);
  expect(emulator.requests.filter((r) => r.method === 'POST' && r.path === '/register')).toHaveLength(2);
});

test.each([
  { deleteUpstream: false, left: 'kept for the next holder' },
  { deleteUpstream: true, left: 'deleted' },
])('a poller stopped while it waits to give a queue up leaves the queue to stop(): $left', async ({ deleteUpstream }) => {
  const emulator = createEmulator({ settings: { heartbeatIntervalMs: 50_000 } });
  cleanups.push(() => emulator.close());
  const me = emulator.store.userByEmail(demoUser('hamlet').email)!.user_id;
  const { connection, deleted } = connect(emulator);
  const first = new QueuePoller({ connection, eventTypes: ['message'], handler: handler() }).start();
  await first.whenReady(3000);
  const queueId = first.queueId!;
  pushMessage(emulator, me, 30_001);
  await until(() => emulator.queues.queuesOf(me)[0]!.events.length === 0 && first.lastEventId >= 0, 3000, 'the event acknowledged');
  await first.stop(false);

  // Its backoff never ends by itself: the poller is stopped in the middle of it.
  let waiting!: () => void;
  const inBackoff = new Promise<void>((resolve) => (waiting = resolve));
  const stuck = (_ms: number, signal?: AbortSignal) =>
    new Promise<void>((_resolve, reject) => {
      waiting();
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const second = new QueuePoller({ connection, eventTypes: ['message'], resume: { queueId, lastEventId: -1 }, backoff: { sleep: stuck }, handler: handler() }).start();
  await inBackoff;
  await second.stop(deleteUpstream);
  expect(emulator.queues.queuesOf(me).map((q) => q.id)).toEqual(deleteUpstream ? [] : [queueId]);
  expect(deleted).toEqual(deleteUpstream ? [queueId] : []);
});

test('a registration in flight when the poller stops is let finish, and its queue deleted (an aborted one would stay registered upstream)', async () => {
  const emulator = createEmulator({ settings: { heartbeatIntervalMs: 50_000 } });
  cleanups.push(() => emulator.close());
  const me = emulator.store.userByEmail(demoUser('hamlet').email)!.user_id;
  let answer!: () => void;
  const { connection, deleted } = connect(
    emulator,
    new Promise<void>((resolve) => (answer = resolve)),
  );
  const poller = new QueuePoller({ connection, eventTypes: ['message'], handler: handler() }).start();
  await until(() => emulator.queues.queuesOf(me).length === 1, 3000, 'the queue registered upstream');
  const [queue] = emulator.queues.queuesOf(me);
  const stopped = poller.stop();
  answer();
  await stopped;
  expect(emulator.queues.queuesOf(me)).toEqual([]);
  expect(deleted).toEqual([queue!.id]);
});
