/**
 * graphql-ws on the gateway's /graphql path (transport/ws.ts), against a live gateway and emulator
 * on loopback: credentials in connection_init, close codes, keep-alive, errors that must not drop
 * the socket, and subscriptions shared with identical ones (plugins/share-subscriptions.ts).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createLogger } from '../../../src/gateway/observability/logger.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { memoryDestination } from '../observability/server.js';
import { collect, rawSocket, startLiveGateway, until, type Live } from '../../helpers/ws-client.js';

let live: Live;
beforeAll(async () => {
  live = await startLiveGateway({ ws: { connectionInitWaitTimeoutMs: 300, keepAliveMs: 0 } });
});
afterAll(() => live.close());

const init = (payload: Record<string, unknown>) => ({ type: 'connection_init', payload });

/** Sends a message to `general` as othello, straight to the emulator; returns its ID. */
/** Opens a socket as hamlet and sends one message over the body limit; the close code. */
async function sendOversized(to: Live): Promise<number> {
  const socket = await rawSocket(to.wsUrl);
  socket.send(init({ authorization: to.auth('hamlet') }));
  await socket.waitForMessage((m) => m.type === 'connection_ack');
  const pad = 'x'.repeat(to.gateway.transport.maxRequestBodyBytes);
  socket.send({ id: 'big', type: 'subscribe', payload: { query: '{ __typename }', variables: { pad } } });
  return (await socket.closed).code;
}

async function sendAsOthello(live: Live, topic: string, content: string): Promise<number> {
  const body = new URLSearchParams({ type: 'stream', to: 'general', topic, content });
  const response = await live.emulator.fetch(
    new Request('http://emulator.local/api/v1/messages', {
      method: 'POST',
      headers: { authorization: live.auth('othello'), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );
  return ((await response.json()) as { id: number }).id;
}

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

  test('a message over the body limit: 1009 before it is parsed, and other sockets carry on', async () => {
    expect(await sendOversized(live)).toBe(1009);
    // Just under the limit is read, parsed and answered.
    const other = await rawSocket(live.wsUrl);
    other.send(init({ authorization: live.auth('hamlet') }));
    await other.waitForMessage((m) => m.type === 'connection_ack');
    const pad = 'x'.repeat(live.gateway.transport.maxRequestBodyBytes - 200);
    other.send({ id: 'under', type: 'subscribe', payload: { query: '{ __typename }', variables: { pad } } });
    const answer = await other.waitForMessage((m) => m.type === 'next');
    expect(answer).toMatchObject({ id: 'under', type: 'next', payload: { data: { __typename: 'Query' } } });
    other.close();
  });

  test('a client protocol violation is one debug line in the gateway log, not a stack on stderr', async () => {
    const destination = memoryDestination();
    const logged = await startLiveGateway({ gateway: { logger: createLogger({ level: 'debug', destination }) } });
    const consoleError = vi.spyOn(console, 'error');
    try {
      expect(await sendOversized(logged)).toBe(1009);
      await until(() => destination.lines.some((l) => l.wsError !== undefined), 5000, 'the protocol error to be logged');
      expect(destination.lines.filter((l) => l.wsError !== undefined)).toEqual([
        expect.objectContaining({ level: 'debug', wsError: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', msg: 'WebSocket closed on a client protocol error' }),
      ]);
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
      await logged.close();
    }
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
      const query = 'subscription { messages { ... on MessageEvent { message { zulipId } } } }';
      const a = collect(shared.client('hamlet'), query);
      const b = collect(shared.client('hamlet'), query);
      const other = collect(shared.client('othello'), query);
      await until(() => shared.hub.stats().subscribers === 2); // hamlet's two share one; othello's is separate
      const resumed = collect(shared.client('hamlet'), 'subscription($after: String) { messages(after: $after) { __typename } }', {
        after: 'Y2cxOmVsc2V3aGVyZTox', // a well-formed cursor of another stream: starts with RESYNC
      });
      await until(() => shared.hub.stats().subscribers === 3);
      expect((await resumed.waitFor(1))[0]!.data).toEqual({ messages: { __typename: 'ResyncEvent' } });
      const id = await sendAsOthello(shared, 'shared', 'hi');
      for (const sub of [a, b, other]) expect((await sub.waitFor(1))[0]!.data).toEqual({ messages: { message: { zulipId: id } } });
      expect(shared.gateway.graphqlSubscriptions.clients).toBe(4);
      a.dispose();
      await until(() => shared.gateway.graphqlSubscriptions.clients === 3, 5000, 'a to leave');
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
      await until(() => healthy.pings >= 3, 5000, 'several ping rounds'); // each answered with a pong
      healthy.send({ type: 'ping' });
      await healthy.waitForMessage((m) => m.type === 'pong');
      healthy.close();
    } finally {
      await quick.close();
    }
  });
});

describe('identity with default credentials configured', () => {
  let withDefault: Live;
  beforeAll(async () => {
    const { email, apiKey } = demoUser('iago');
    withDefault = await startLiveGateway({ gateway: { defaultCredentials: { email, apiKey } } });
  });
  afterAll(() => withDefault.close());

  test('a connection_init without any credential field uses the default identity', async () => {
    for (const payload of [undefined, {}, { unrelated: true }]) {
      const socket = await rawSocket(withDefault.wsUrl);
      socket.send(payload === undefined ? { type: 'connection_init' } : init(payload));
      await socket.waitForMessage((m) => m.type === 'connection_ack');
      socket.send({ id: 'me', type: 'subscribe', payload: { query: '{ me { user { email } } }' } });
      const answer = await socket.waitForMessage((m) => m.id === 'me');
      expect(answer).toMatchObject({ type: 'next', payload: { data: { me: { user: { email: demoUser('iago').email } } } } });
      socket.close();
    }
  });

  test.each([
    ['authorization: null', { authorization: null }],
    ['Authorization: null', { Authorization: null }],
    ['an empty authorization', { authorization: '' }],
    ['a non-string authorization', { authorization: 42 }],
    ['an email without its key', { email: demoUser('hamlet').email }],
    ['a key without its email', { apiKey: demoUser('hamlet').apiKey }],
    ['a non-string key', { email: demoUser('hamlet').email, apiKey: 42 }],
    ['a null key', { email: demoUser('hamlet').email, apiKey: null }],
    ['both forms at once', { authorization: 'Basic eDp5', email: demoUser('hamlet').email, apiKey: demoUser('hamlet').apiKey }],
  ])('%s is refused with 4403, never taken as the default identity', async (_name, payload) => {
    const socket = await rawSocket(withDefault.wsUrl);
    socket.send(init(payload));
    const closed = await socket.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/credentials/i);
    expect(socket.messages.some((m) => m.type === 'connection_ack')).toBe(false);
  });
});

describe('sharing across transports', () => {
  test('an SSE stream and a WebSocket subscription of one user share one execution', async () => {
    const shared = await startLiveGateway();
    try {
      const query = 'subscription { messages { ... on MessageEvent { message { zulipId } } } }';
      const ws = collect(shared.client('hamlet'), query);
      const sse = sseSubscribe(shared.url, query, {}, { authorization: shared.auth('hamlet') });
      await until(() => shared.gateway.graphqlSubscriptions.clients === 2, 5000, 'both subscriptions');
      expect(shared.hub.stats().subscribers).toBe(1);
      const id = await sendAsOthello(shared, 'shared', 'to both');
      expect((await ws.waitFor(1))[0]!.data).toEqual({ messages: { message: { zulipId: id } } });
      expect((await sse.waitFor(1))[0]!.data).toEqual({ messages: { message: { zulipId: id } } });
      sse.close();
      ws.dispose();
      await until(() => shared.hub.stats().subscribers === 0, 5000, 'the shared execution to end');
    } finally {
      await shared.close();
    }
  });
});
