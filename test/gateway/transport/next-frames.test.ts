/**
 * A subscription's `next` messages over graphql-ws (transport/next-frames.ts), on real sockets:
 * identical subscriptions share one execution and every socket gets graphql-ws's own message with
 * its operation id; a socket whose peer stops
 * reading ends alone with SLOW_CONSUMER while the sockets sharing its execution get every result.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { collect, startLiveGateway, until, type Live } from '../../helpers/ws-client.js';

let live: Live;
beforeAll(async () => {
  // Long messages fill the socket buffers of a peer that stops reading in a few dozen events.
  live = await startLiveGateway({ hub: { slowConsumerLimit: 2 }, emulator: { maxMessageLength: 200_000 } });
});
afterAll(() => live.close());

const QUERY = 'subscription { messages { ... on MessageEvent { message { zulipId content } } } }';

async function send(content: string, topic = 'frames'): Promise<number> {
  const response = await live.emulator.fetch(
    new Request('http://emulator.local/api/v1/messages', {
      method: 'POST',
      headers: { authorization: live.auth('othello'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'stream', to: 'general', topic, content }),
    }),
  );
  return ((await response.json()) as { id: number }).id;
}

/** A raw `graphql-transport-ws` socket: every text message as received, subscribed once acknowledged. */
async function rawSubscriber(login: string, id: string, query = QUERY) {
  const socket = new WebSocket(live.wsUrl, 'graphql-transport-ws');
  const texts: string[] = [];
  let closed = false;
  socket.on('message', (data) => {
    const text = String(data);
    texts.push(text);
    if ((JSON.parse(text) as { type: string }).type === 'connection_ack') socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
  });
  socket.on('close', () => (closed = true));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: live.auth(login) } }));
  await until(() => texts.length > 0, 5000, 'the ack');
  const nexts = () => texts.map((t) => JSON.parse(t) as { id?: string; type: string; payload?: unknown }).filter((m) => m.type === 'next');
  return { socket, texts, nexts, closed: () => closed };
}

describe('next messages', () => {
  test('identical subscriptions share one execution; each socket gets graphql-ws’s own message, with its operation id', async () => {
    const before = live.gateway.graphqlSubscriptions.clients;
    const sockets = await Promise.all([rawSubscriber('hamlet', '1'), rawSubscriber('hamlet', '1'), rawSubscriber('hamlet', 'a5d1c6e0-op')]);
    const client = collect(live.client('hamlet'), QUERY);
    await until(() => live.gateway.graphqlSubscriptions.clients === before + 4, 5000, 'four subscriptions');
    expect(live.hub.stats().subscribers).toBe(1); // one execution for the four

    const ids = [await send('shared "quoted" ünïcode ✓')];
    ids.push(await send('second'));
    for (const s of sockets) await until(() => s.nexts().length === 2, 5000, 'two results on every socket');
    await client.waitFor(2);

    for (const [k, s] of sockets.entries()) {
      const id = k < 2 ? '1' : 'a5d1c6e0-op';
      const texts = s.texts.filter((t) => t.includes('"type":"next"'));
      expect(texts.map((t) => (JSON.parse(t) as { payload: { data: { messages: { message: { zulipId: number } } } } }).payload.data.messages.message.zulipId)).toEqual(ids);
      // Byte for byte what graphql-ws sends: id, type, payload, in that order.
      for (const text of texts) expect(text).toBe(JSON.stringify({ id, type: 'next', payload: JSON.parse(text).payload }));
    }
    expect(client.results.map((r) => (r.data as { messages: { message: { content: string } } }).messages.message.content)).toEqual([
      expect.stringContaining('shared &quot;quoted&quot; ünïcode ✓'),
      expect.stringContaining('second'),
    ]);
    for (const s of sockets) s.socket.close(1000);
    client.dispose();
    await until(() => live.gateway.graphqlSubscriptions.clients === before, 5000, 'the subscriptions to end');
  });

  test('a socket that stops reading ends alone with SLOW_CONSUMER; the one sharing its execution gets every result', async () => {
    const before = live.gateway.graphqlSubscriptions.clients;
    const reader = await rawSubscriber('iago', '1');
    const idle = await rawSubscriber('iago', '1');
    await until(() => live.gateway.graphqlSubscriptions.clients === before + 2, 5000, 'both subscriptions');
    // Stop reading: the kernel's buffers fill, then the gateway's, then the idle subscription's backlog.
    (idle.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const content = 'x'.repeat(150_000);
    const ids: number[] = [];
    for (let n = 0; n < 500 && live.gateway.graphqlSubscriptions.clients > before + 1; n++) {
      ids.push(await send(`${n} ${content}`, 'slow'));
      // One at a time, as in the SSE test: only the idle socket falls behind.
      await until(() => reader.nexts().length === ids.length, 5000, `result ${n} on the reading socket`);
    }
    expect(live.gateway.graphqlSubscriptions.clients).toBe(before + 1); // the idle one ended, the reader did not
    expect(reader.nexts().map((m) => (m.payload as { data: { messages: { message: { zulipId: number } } } }).data.messages.message.zulipId)).toEqual(ids);

    (idle.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    await until(() => idle.texts.some((t) => t.includes('"type":"complete"')), 10_000, 'the idle subscription to complete');
    const last = idle.nexts().at(-1)!.payload as { errors?: { extensions?: { code?: string } }[] };
    expect(last.errors?.[0]?.extensions?.code).toBe('SLOW_CONSUMER');
    const got = idle.nexts().slice(0, -1).map((m) => (m.payload as { data: { messages: { message: { zulipId: number } } } }).data.messages.message.zulipId);
    expect(got).toEqual(ids.slice(0, got.length)); // in order, a prefix, then the end
    expect(idle.closed()).toBe(false); // the socket stays open: only the subscription ended
    reader.socket.close(1000);
    idle.socket.close(1000);
  }, 60_000);
});
