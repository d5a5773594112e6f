/**
 * The one slow-consumer policy (plugins/share-subscriptions.ts): a client that does not take its
 * results ends alone with SLOW_CONSUMER, on any transport, while an identical subscription sharing
 * its execution gets everything.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from '../../helpers/wait.js';
import { collect, startLiveGateway, type Live } from '../../helpers/ws-client.js';

let live: Live;
beforeAll(async () => {
  live = await startLiveGateway({ gateway: { subscriptionBacklog: 2 } });
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
    const query = 'subscription { messages { ... on MessageEvent { message { id } } } }';
    // In-process, so that nothing (socket buffers) reads the event stream on the client's behalf.
    const idle = await live.gateway.fetch(live.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: live.auth('hamlet') },
      body: JSON.stringify({ query }),
    });
    expect(idle.status).toBe(200);
    const reader = collect(live.client('hamlet'), query);
    await until(() => live.gateway.subscriptions.clients === 2, 5000, 'both subscriptions');
    expect(live.hub.stats().subscribers).toBe(1);
    const ids: number[] = [];
    // One at a time, each taken by the reader before the next (the sentinel: the shared execution
    // has then offered it to idle too), so that only idle falls behind.
    for (let i = 0; i < 6; i++) {
      ids.push(await send(`message ${i}`));
      await reader.waitFor(i + 1);
    }
    const received = reader.results;
    expect(received.map((r) => (r.data as { messages: { message: { id: number } } }).messages.message.id)).toEqual(ids);
    const text = await idle.text(); // ends: the idle client's subscription was closed
    expect(text).toContain('"code":"SLOW_CONSUMER"');
    expect(text).toContain('event: complete');
    expect(live.gateway.subscriptions.clients).toBe(1);
    reader.dispose();
  });
});
