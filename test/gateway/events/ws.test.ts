/**
 * graphql-ws on the gateway's /graphql path, against a live gateway and emulator on loopback:
 * credentials in connection_init, close codes, keep-alive, and errors that must not drop the socket.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { demoUser } from '../../../src/emulator/seed.js';
import { nextFrames } from '../../../src/gateway/ws.js';
import { collect, rawSocket, startLiveGateway, until, type Live } from '../../helpers/ws-client.js';

let live: Live;
beforeAll(async () => {
  live = await startLiveGateway({ ws: { connectionInitWaitTimeoutMs: 300, keepAliveMs: 0 } });
});
afterAll(() => live.close());

const init = (payload: Record<string, unknown>) => ({ type: 'connection_init', payload });

describe('graphql-ws transport', () => {
  test('no connection_init in time: 4408', async () => {
    const socket = await rawSocket(live.wsUrl);
    expect(await socket.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  test('bad credentials: 4403, with a reason that names the problem and not the key', async () => {
    const socket = await rawSocket(live.wsUrl);
    socket.send(init({ email: demoUser('hamlet').email, apiKey: 'not-the-key' }));
    const closed = await socket.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/refused the credentials \(INVALID_API_KEY\)/);
    expect(closed.reason).not.toContain('not-the-key');
  });

  test('no credentials at all: 4403 with a clear reason', async () => {
    const socket = await rawSocket(live.wsUrl);
    socket.send(init({}));
    const closed = await socket.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/credentials.*connection_init/i);
  });

  test('malformed Authorization: 4403 with a clear reason', async () => {
    const socket = await rawSocket(live.wsUrl);
    socket.send(init({ authorization: 'Bearer abc' }));
    const closed = await socket.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/Basic/);
  });

  test('both credential forms are accepted; a duplicate operation id closes with 4409', async () => {
    const user = demoUser('hamlet');
    const socket = await rawSocket(live.wsUrl);
    socket.send(init({ email: user.email, apiKey: user.apiKey }));
    await socket.waitForMessage((m) => m.type === 'connection_ack');
    const subscribe = { id: 'one', type: 'subscribe', payload: { query: 'subscription { events { __typename } }' } };
    socket.send(subscribe);
    socket.send(subscribe);
    expect((await socket.closed).code).toBe(4409);

    const other = await rawSocket(live.wsUrl);
    other.send(init({ authorization: live.auth('hamlet') }));
    await other.waitForMessage((m) => m.type === 'connection_ack');
    other.close();
  });

  test('ping is answered with pong; subscribe before the ack closes with 4401', async () => {
    const socket = await rawSocket(live.wsUrl);
    socket.send({ type: 'subscribe', id: 'early', payload: { query: 'subscription { events { __typename } }' } });
    expect((await socket.closed).code).toBe(4401);

    const pinger = await rawSocket(live.wsUrl);
    pinger.send(init({ authorization: live.auth('hamlet') }));
    await pinger.waitForMessage((m) => m.type === 'connection_ack');
    pinger.send({ type: 'ping', payload: { n: 1 } });
    expect(await pinger.waitForMessage((m) => m.type === 'pong')).toEqual({ type: 'pong', payload: { n: 1 } });
    pinger.close();
  });

  test('syntax and validation errors (an unknown event kind) are error messages; the socket stays open', async () => {
    const socket = await rawSocket(live.wsUrl);
    socket.send(init({ authorization: live.auth('hamlet') }));
    await socket.waitForMessage((m) => m.type === 'connection_ack');
    socket.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { events {' } });
    const syntax = await socket.waitForMessage((m) => m.id === 'a');
    expect(syntax.type).toBe('error');
    socket.send({ id: 'b', type: 'subscribe', payload: { query: 'subscription { events(filter: { kinds: [NOT_A_KIND] }) { __typename } }' } });
    const invalid = await socket.waitForMessage((m) => m.id === 'b');
    expect(invalid).toMatchObject({ type: 'error', payload: [{ message: expect.stringContaining('NOT_A_KIND') }] });
    socket.send({ type: 'ping' });
    await socket.waitForMessage((m) => m.type === 'pong');
    socket.close();
  });

  test('a malformed filter is refused with BAD_USER_INPUT, before any upstream call', async () => {
    const client = live.client('hamlet');
    const registersBefore = live.emulator.requests.filter((r) => r.path === '/register').length;
    const sub = collect(client, 'subscription($f: EventFilterInput) { events(filter: $f) { __typename } }', {
      f: { kinds: [] },
    });
    await sub.waitDone();
    expect(sub.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    const badCursor = collect(client, 'subscription { events(after: "nope") { __typename } }');
    await badCursor.waitDone();
    expect(badCursor.results[0]?.errors?.[0]).toMatchObject({ message: expect.stringContaining('cursor'), extensions: { code: 'BAD_USER_INPUT' } });
    const search = collect(client, 'subscription { messages(narrow: { search: "x" }) { __typename } }');
    await search.waitDone();
    expect(search.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    // Only the connection check registered (at most one queue); the refused subscriptions added none.
    expect(live.emulator.requests.filter((r) => r.path === '/register').length - registersBefore).toBeLessThanOrEqual(1);
  });

  test('identical subscriptions on two sockets share one execution; resuming ones do not', async () => {
    const shared = await startLiveGateway();
    try {
      const query = 'subscription { messages { ... on MessageEvent { message { id } } } }';
      const a = collect(shared.client('hamlet'), query);
      const b = collect(shared.client('hamlet'), query);
      const other = collect(shared.client('othello'), query);
      await until(() => shared.hub.stats().subscribers === 2); // hamlet's two share one; othello's is separate
      const resumed = collect(shared.client('hamlet'), 'subscription($after: String) { messages(after: $after) { __typename } }', {
        after: 'Y2cxOmVsc2V3aGVyZTox', // a well-formed cursor of another stream: starts with RESYNC
      });
      await until(() => shared.hub.stats().subscribers === 3);
      expect((await resumed.waitFor(1))[0]!.data).toEqual({ messages: { __typename: 'ResyncEvent' } });
      const body = new URLSearchParams({ type: 'stream', to: 'general', topic: 'shared', content: 'hi' });
      const response = await shared.emulator.fetch(
        new Request('http://emulator.local/api/v1/messages', {
          method: 'POST',
          headers: { authorization: shared.auth('othello'), 'content-type': 'application/x-www-form-urlencoded' },
          body,
        }),
      );
      const { id } = (await response.json()) as { id: number };
      for (const sub of [a, b, other]) expect((await sub.waitFor(1))[0]!.data).toEqual({ messages: { message: { id } } });
      a.dispose();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(shared.hub.stats().subscribers).toBe(3); // b still holds the shared execution
      b.dispose();
      await until(() => shared.hub.stats().subscribers === 2);
    } finally {
      await shared.close();
    }
  });

  test('keep-alive: a peer that stops answering pings is terminated', async () => {
    const quick = await startLiveGateway({ ws: { keepAliveMs: 100 } });
    try {
      const socket = await rawSocket(quick.wsUrl, { autoPong: false });
      socket.send(init({ authorization: quick.auth('hamlet') }));
      await socket.waitForMessage((m) => m.type === 'connection_ack');
      const started = Date.now();
      expect((await socket.closed).code).toBe(1006); // terminated, no close frame
      expect(Date.now() - started).toBeLessThan(2000);

      const healthy = await rawSocket(quick.wsUrl);
      healthy.send(init({ authorization: quick.auth('hamlet') }));
      await healthy.waitForMessage((m) => m.type === 'connection_ack');
      await new Promise((resolve) => setTimeout(resolve, 350)); // several ping rounds
      healthy.send({ type: 'ping' });
      await healthy.waitForMessage((m) => m.type === 'pong');
      healthy.close();
    } finally {
      await quick.close();
    }
  });
});

/** A raw graphql-transport-ws socket that keeps every text frame exactly as received. */
async function textSocket(url: string): Promise<{ socket: WebSocket; texts: string[] }> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const texts: string[] = [];
  socket.on('message', (data) => texts.push(String(data)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, texts };
}

describe('shared subscriptions: next frames written once-encoded', () => {
  test('each socket gets byte for byte the frame graphql-ws would send, with its own operation id', async () => {
    const shared = await startLiveGateway({ ws: { keepAliveMs: 0 } });
    try {
      const query = 'subscription { messages { ... on MessageEvent { message { id content } } } }';
      const ids = ['a"b\\c\u00e9', 'plain'];
      const sockets = [];
      for (const id of ids) {
        const raw = await textSocket(shared.wsUrl);
        raw.socket.send(JSON.stringify(init({ authorization: shared.auth('hamlet') })));
        await until(() => raw.texts.some((t) => t.includes('connection_ack')));
        raw.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
        sockets.push(raw);
      }
      await until(() => shared.hub.stats().subscribers === 1); // one execution for both sockets
      const content = `A long one, so that the frame needs a 16-bit length: ${'\u00fcber '.repeat(60)}`;
      const body = new URLSearchParams({ type: 'stream', to: 'general', topic: 'frames', content });
      const response = await shared.emulator.fetch(
        new Request('http://emulator.local/api/v1/messages', {
          method: 'POST',
          headers: { authorization: shared.auth('othello'), 'content-type': 'application/x-www-form-urlencoded' },
          body,
        }),
      );
      const { id: messageId } = (await response.json()) as { id: number };
      for (const [k, raw] of sockets.entries()) {
        await until(() => raw.texts.some((t) => t.includes('"next"')));
        const text = raw.texts.find((t) => t.includes('"next"'))!;
        const message = JSON.parse(text) as { id: string; type: string; payload: { data: { messages: { message: { id: number; content: string } } } } };
        expect(text).toBe(JSON.stringify({ id: ids[k], type: 'next', payload: message.payload }));
        expect(message.payload.data.messages.message).toMatchObject({ id: messageId, content: expect.stringContaining('\u00fcber') });
        expect(Buffer.byteLength(text)).toBeGreaterThan(125);
      }
      // complete on one socket ends only its operation; the other keeps the shared execution.
      sockets[0]!.socket.send(JSON.stringify({ id: ids[0], type: 'complete' }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(shared.hub.stats().subscribers).toBe(1);
      for (const raw of sockets) raw.socket.close();
      await until(() => shared.hub.stats().subscribers === 0);
    } finally {
      await shared.close();
    }
  });
});

describe('nextFrames', () => {
  /** A ws server and one connected client; `server` is the server's end of that connection. */
  async function pair(options: { perMessageDeflate?: boolean } = {}) {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: options.perMessageDeflate ?? false });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const { socket: client, texts } = await textSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const server = await serverSide;
    return {
      server,
      client,
      texts,
      close: async () => {
        client.terminate();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      },
    };
  }

  test('frames of every length class arrive whole, in order; a closing socket takes nothing', async () => {
    const { server, texts, close } = await pair();
    try {
      const frames = nextFrames(server, 'op-1');
      const payloads = [10, 1_000, 70_000].map((n) => JSON.stringify({ data: { s: 'x'.repeat(n) } }));
      for (const payload of payloads) expect(frames.write(Buffer.from(payload))).toBe(true);
      await until(() => texts.length === 3);
      expect(texts).toEqual(payloads.map((payload) => `{"id":"op-1","type":"next","payload":${payload}}`));
      server.close();
      expect(frames.write(Buffer.from('{}'))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(texts).toHaveLength(3);
    } finally {
      await close();
    }
  });

  test('reports frames the peer has not taken yet, and flushed again once it caught up', async () => {
    const { server, client, texts, close } = await pair();
    try {
      const frames = nextFrames(server, 'op');
      const payload = Buffer.from(JSON.stringify({ data: 'y'.repeat(256 * 1024) }));
      client.pause();
      let written = 0;
      let flushed = true;
      while (flushed && written < 400) (flushed = frames.write(payload)), written++;
      expect(flushed).toBe(false);
      client.resume();
      await until(() => texts.length === written, 10_000);
      expect(frames.write(Buffer.from('{}'))).toBe(true);
      await until(() => texts.length === written + 1);
    } finally {
      await close();
    }
  });

  test('with permessage-deflate negotiated, frames go through ws', async () => {
    const { server, texts, close } = await pair({ perMessageDeflate: true });
    try {
      expect(server.extensions).toContain('permessage-deflate');
      nextFrames(server, 'z').write(Buffer.from('{"data":1}'));
      await until(() => texts.length === 1);
      expect(texts).toEqual(['{"id":"z","type":"next","payload":{"data":1}}']);
    } finally {
      await close();
    }
  });
});
