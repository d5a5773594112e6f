/**
 * The delivery contract on one instance (README, "Delivery contract"), under load: thousands of
 * messages flow to four subscriptions (two of them on one credential) while the upstream queue
 * expires or the chat server stops and comes back. Every event of at least 10,000 is accounted for:
 * delivered in order and once, or missing only where a ResyncEvent marks the gap.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { checkDelivery, EVENTS, idsOf, itemsOf, resyncsOf, streamMessages, untilLive, type Item } from '../../helpers/delivery.js';
import { collect, startLiveGateway, until, type Collected, type Live } from '../../helpers/ws-client.js';

/** Messages per test: with four subscriptions, more than 10,000 events. */
const MESSAGES = 2600;
const SUBSCRIBERS = ['hamlet', 'hamlet', 'iago', 'cordelia'];

describe('delivery contract, one instance, under load', () => {
  let live: Live;
  beforeEach(async () => {
    live = await startLiveGateway();
  });
  afterEach(() => live.close());

  async function subscribeAll(): Promise<Collected[]> {
    // The second of hamlet's asks for one more field: identical subscriptions would share one execution.
    const subs = SUBSCRIBERS.map((login, i) => collect(live.client(login), i === 1 ? EVENTS.replace('__typename', '__typename ... on Event { kind }') : EVENTS));
    await untilLive(live.emulator, () => items(subs));
    return subs;
  }

  const items = (subs: Collected[]) => subs.map((s) => itemsOf(s.results));
  const lastId = (list: Item[]) => idsOf(list).at(-1) ?? 0;
  /** Pacing: every subscription has message `id`, or has resynced (its gap may hold `id`). */
  const caughtUp = (subs: Collected[]) => (id: number) => items(subs).every((list) => lastId(list) >= id || resyncsOf(list).length > 0);

  test('an upstream queue expiring mid-stream: the credential\u2019s subscriptions get one QUEUE_EXPIRED resync marking the only gap; the others lose nothing', async () => {
    const subs = await subscribeAll();
    const stream = streamMessages(live.emulator, { count: MESSAGES, caughtUp: caughtUp(subs) });
    await until(() => items(subs).every((list) => idsOf(list).length >= 1000), 60_000, '1,000 messages on every subscription');
    const [queue] = live.emulator.queues.queuesOf(live.userId('hamlet'));
    live.emulator.queues.expire(queue!.id);
    await stream.done;
    const last = stream.sent.at(-1)!;
    await until(() => items(subs).every((list) => lastId(list) === last), 60_000, 'the last message everywhere');

    let accounted = 0;
    items(subs).forEach((list, i) => {
      const report = checkDelivery(list, stream.sent);
      expect(report.outOfOrder).toEqual([]);
      expect(report.unmarkedLosses).toEqual([]);
      expect(report.tail).toEqual([]);
      accounted += report.delivered + report.markedLosses.length;
      if (SUBSCRIBERS[i] === 'hamlet') expect(resyncsOf(list)).toEqual(['QUEUE_EXPIRED']);
      else expect({ resyncs: resyncsOf(list), lost: report.markedLosses }).toEqual({ resyncs: [], lost: [] });
    });
    expect(accounted).toBe(MESSAGES * SUBSCRIBERS.length);
    expect(accounted).toBeGreaterThanOrEqual(10_000);
  }, 180_000);

  test('the chat server stopping and restarting mid-stream: its queues survive (as Zulip\u2019s do), every message arrives once and in order, with no resync', async () => {
    const subs = await subscribeAll();
    const stream = streamMessages(live.emulator, { count: MESSAGES, caughtUp: caughtUp(subs) });
    await until(() => items(subs).every((list) => idsOf(list).length >= 1000), 60_000, '1,000 messages on every subscription');
    const backoffs = live.backoffDelays.length;
    await live.stopUpstream();
    // Messages keep reaching the queues meanwhile; the hub retries with backoff until the server is back.
    await until(() => live.backoffDelays.length > backoffs, 10_000, 'the hub to back off');
    await live.startUpstream();
    await stream.done;
    const last = stream.sent.at(-1)!;
    await until(() => items(subs).every((list) => lastId(list) === last), 60_000, 'the last message everywhere');

    let delivered = 0;
    for (const list of items(subs)) {
      expect(resyncsOf(list)).toEqual([]);
      expect(idsOf(list).filter((id) => id >= stream.sent[0]!)).toEqual(stream.sent);
      delivered += idsOf(list).length;
    }
    expect(delivered).toBeGreaterThanOrEqual(10_000);
  }, 180_000);
});
