/**
 * The one slow-consumer policy (plugins/share-subscriptions.ts): a client that does not take its
 * results ends alone with SLOW_CONSUMER, on any transport, while an identical subscription sharing
 * its execution gets everything; and the bound on what one credential may hold open.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EventHub } from '../../../src/gateway/events/hub.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { until } from '../../helpers/wait.js';
import { collect, startLiveGateway, type Live } from '../../helpers/ws-client.js';

let live: Live;
beforeAll(async () => {
  live = await startLiveGateway({ hub: { slowConsumerLimit: 2 } });
});
afterAll(() => live.close());

async function send(content: string): Promise<number> {
  const response = await live.emulator.fetch(
    new Request('http://emulator.local/api/v1/messages', {
      method: 'POST',
      headers: { authorization: live.auth('othello'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'stream', to: 'general', topic: 'slow', content }),
    }),
  );
  return ((await response.json()) as { id: number }).id;
}

describe('slow consumers', () => {
  test('an SSE client that stops reading ends with SLOW_CONSUMER; the WebSocket sharing its execution gets every result', async () => {
    const query = 'subscription { messages { ... on MessageEvent { message { zulipId } } } }';
    // In-process, so that nothing (socket buffers) reads the event stream on the client's behalf.
    const idle = await live.gateway.fetch(live.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: live.auth('hamlet') },
      body: JSON.stringify({ query }),
    });
    expect(idle.status).toBe(200);
    const reader = collect(live.client('hamlet'), query);
    await until(() => live.gateway.graphqlSubscriptions.clients === 2, 5000, 'both subscriptions');
    expect(live.hub.stats().subscribers).toBe(1);
    const ids: number[] = [];
    // One at a time, each taken by the reader before the next (the sentinel: the shared execution
    // has then offered it to idle too), so that only idle falls behind.
    for (let i = 0; i < 6; i++) {
      ids.push(await send(`message ${i}`));
      await reader.waitFor(i + 1);
    }
    const received = reader.results;
    expect(received.map((r) => (r.data as { messages: { message: { zulipId: number } } }).messages.message.zulipId)).toEqual(ids);
    const text = await idle.text(); // ends: the idle client's subscription was closed
    expect(text).toContain('"code":"SLOW_CONSUMER"');
    expect(text).toContain('event: complete');
    expect(live.gateway.graphqlSubscriptions.clients).toBe(1);
    reader.dispose();
  });
});

describe('one slow-consumer limit', () => {
  test("the gateway gives slowConsumerLimit to the hub it builds, and refuses it beside a hub of the caller's", async () => {
    const gateway = createGateway({ zulipUrl: 'http://chat.localhost', logging: false, liveDirectory: false, slowConsumerLimit: 7 });
    expect(gateway.hub.slowConsumerLimit).toBe(7);
    await gateway.dispose();
    expect(new EventHub().slowConsumerLimit).toBe(1000);
    expect(() => createGateway({ zulipUrl: 'http://chat.localhost', logging: false, eventHub: new EventHub(), slowConsumerLimit: 7 })).toThrow(/slowConsumerLimit/);
  });
});

describe('subscriptions per credential', () => {
  let bounded: Live;
  beforeAll(async () => {
    bounded = await startLiveGateway({ gateway: { maxSubscriptionsPerCredential: 3 } });
  });
  afterAll(() => bounded.close());

  test('past the limit, over WebSocket and SSE together, the next is refused with TOO_MANY_SUBSCRIPTIONS until one ends', async () => {
    const query = 'subscription { messages { ... on MessageEvent { message { zulipId } } } }';
    const sse = (login: string) =>
      bounded.gateway.fetch(bounded.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: bounded.auth(login) },
        body: JSON.stringify({ query }),
      });
    const hamlet = bounded.client('hamlet');
    const first = collect(hamlet, query);
    const second = collect(hamlet, query, { unused: 1 }); // not shared with the first: counted all the same
    const stream = await sse('hamlet');
    await until(() => bounded.gateway.graphqlSubscriptions.clients === 3, 5000, 'three subscriptions');

    const refused = collect(hamlet, query);
    await refused.waitDone();
    // graphql-ws sends a subscribe function's error result as one `next`, then `complete`.
    expect(refused.results).toEqual([{ errors: [expect.objectContaining({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 3 } })] }]);
    const refusedSse = await sse('hamlet');
    expect(await refusedSse.text()).toContain('"code":"TOO_MANY_SUBSCRIPTIONS"');
    expect(first.done || second.done).toBe(false); // the open ones are untouched

    // Another credential has its own count.
    const othello = collect(bounded.client('othello'), query);
    await until(() => bounded.gateway.graphqlSubscriptions.clients === 4, 5000, "othello's subscription");

    // Ending one frees its place.
    second.dispose();
    await until(() => bounded.gateway.graphqlSubscriptions.clients === 3, 5000, 'the second subscription to end');
    const again = collect(hamlet, query);
    await until(() => bounded.gateway.graphqlSubscriptions.clients === 4, 5000, 'the new subscription');
    expect(again.done).toBe(false);
    expect(stream.status).toBe(200); // still open: the gateway's close ends it
    for (const c of [first, again, othello]) c.dispose();
  });
});
