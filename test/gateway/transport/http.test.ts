/**
 * The gateway over node:http (transport/http.ts), as `npm start` serves it, on loopback ports:
 * request bodies bounded so that refused input costs about what reading it costs, CSRF refusals,
 * masking, credential isolation, and subscriptions over SSE.
 */
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { EventHub } from '../../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../../src/gateway/transport/http.js';
import { CSRF_HEADER, createGateway, MAX_REQUEST_BODY_BYTES } from '../../../src/gateway/yoga.js';
import type { FetchLike } from '../../../src/zulip/connection.js';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { until } from '../../helpers/ws-client.js';

const hamlet = demoUser('hamlet');
const othello = demoUser('othello');

const json = (auth: string | null, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  ...(auth === null ? {} : { authorization: auth }),
  ...extra,
});

interface Exchanged {
  /** Status line and headers. */
  head: string;
  status: number;
  body: string;
  /** Milliseconds from the first byte sent to the connection's close. */
  ms: number;
}

/**
 * A raw HTTP/1.1 exchange on a new connection: sends `head`, then `body` in 64 kB pieces (as far
 * as the server reads them), and resolves with what arrived once the server closed the connection.
 */
function exchange(url: string, head: string, body: Buffer = Buffer.alloc(0), withinMs = 10_000): Promise<Exchanged> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`no complete answer after ${withinMs} ms`))), withinMs);
    socket.on('data', (data) => received.push(data));
    socket.on('error', () => undefined); // a reset while we still send; what arrived is checked
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split), status: Number(text.slice(9, 12)), body: text.slice(split + 4), ms: performance.now() - started });
    });
    socket.write(head);
    let offset = 0;
    const pump = () => {
      while (offset < body.length && !socket.destroyed) {
        const piece = body.subarray(offset, offset + 65_536);
        offset += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

/**
 * A raw connection that stays open for writing after the server ends its side (`allowHalfOpen`):
 * what arrived, the server's end, the close, and the socket errors seen.
 */
function halfOpen(url: string) {
  const socket = connect({ port: Number(new URL(url).port), host: '127.0.0.1', allowHalfOpen: true });
  const received: Buffer[] = [];
  const errors: string[] = [];
  socket.on('data', (data) => received.push(data));
  socket.on('error', (error: NodeJS.ErrnoException) => errors.push(`error ${error.code}`));
  return {
    socket,
    errors,
    text: () => Buffer.concat(received).toString('utf8'),
    ended: new Promise((resolve) => socket.once('end', resolve)),
    closed: new Promise((resolve) => socket.once('close', resolve)),
  };
}

function postHead(url: string, headers: Record<string, string>): string {
  const { host, pathname } = new URL(url);
  const lines = Object.entries({ host, connection: 'close', ...headers });
  return `POST ${pathname} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

/** A chunked body sent as one chunk (and, with `last`, the terminating chunk). */
function chunked(body: Buffer, last = true): Buffer {
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(last ? '\r\n0\r\n\r\n' : '\r\n')]);
}

/** Invalid JSON of `size` bytes: an unterminated object full of short keys (the worst case for a parser that gives up late). */
function invalidJson(size: number): Buffer {
  const body = Buffer.alloc(size, '"k":1,');
  body.write('{', 0);
  return body;
}

describe('request bodies', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const tooLarge = { errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] };

  it('has a limit of a few MB by default', () => {
    expect(MAX_REQUEST_BODY_BYTES).toBeGreaterThanOrEqual(1_000_000);
    expect(MAX_REQUEST_BODY_BYTES).toBeLessThanOrEqual(5_000_000);
  });

  it('refuses big bodies at the cost of reading them: a concurrent small query answers well under a second', async () => {
    await h.ready;
    const big = invalidJson(12_000_000);
    const small = async () => {
      const started = performance.now();
      const answer = await h.gql('{ __typename }', {}, { as: null });
      expect(answer.data).toEqual({ __typename: 'Query' });
      return performance.now() - started;
    };
    // Announced: refused from Content-Length; then the same bytes chunked, refused once past the limit.
    const announced = exchange(h.url, postHead(h.url, json(null, { 'content-length': String(big.length) })), big);
    const streamed = exchange(h.url, postHead(h.url, json(null, { 'transfer-encoding': 'chunked' })), chunked(big));
    const smallMs: number[] = [];
    for (let i = 0; i < 5; i++) smallMs.push(await small());
    for (const refused of await Promise.all([announced, streamed])) {
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body)).toEqual(tooLarge);
    }
    expect(Math.max(...smallMs)).toBeLessThan(1000);
    // Invalid JSON under the limit is read and refused quickly.
    const underLimit = invalidJson(MAX_REQUEST_BODY_BYTES - 1000);
    const invalid = await exchange(h.url, postHead(h.url, json(null, { 'content-length': String(underLimit.length) })), underLimit);
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body).errors[0].message).toBe('POST body sent invalid JSON.');
    expect(invalid.ms).toBeLessThan(1000);
    expect(await small()).toBeLessThan(1000);
  });

  it.each([
    ['announced', (size: number) => ({ 'content-length': String(size) }), (body: Buffer) => body, (body: Buffer) => body],
    ['chunked', () => ({ 'transfer-encoding': 'chunked' }), (body: Buffer) => chunked(body, false), (body: Buffer) => chunked(body)],
  ])('lets a client still sending a refused %s body finish it and read the 413: the connection ends, it is not reset', async (_, headers, first, rest) => {
    await h.ready;
    const client = halfOpen(h.url);
    const size = MAX_REQUEST_BODY_BYTES * 4;
    client.socket.write(postHead(h.url, json(null, headers(size))));
    client.socket.write(first(invalidJson(MAX_REQUEST_BODY_BYTES + 65_536)));
    await client.ended; // the whole answer, then the server's end of the connection
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
    // Only now does the client send the rest: a server that closed outright answers it with a
    // reset, and one that stopped reading leaves it unsent until the connection is cut.
    await new Promise<void>((resolve) => client.socket.end(rest(invalidJson(size - MAX_REQUEST_BODY_BYTES - 65_536)), resolve));
    await client.closed;
    expect(client.errors).toEqual([]);
  });

  it('neither runs nor answers requests pipelined behind a refused body, and stays responsive', async () => {
    await h.ready;
    const sent = () => h.upstreamRequests.filter((r) => r.method === 'POST' && r.path === 'messages').length;
    const before = sent();
    const mutation = Buffer.from(JSON.stringify({ query: 'mutation { sendMessage(channelName: "general", topic: "pipelined", content: "x") { messageId } }' }));
    const pipelined = postHead(h.url, json(basicAuth(hamlet), { 'content-length': String(mutation.length), connection: 'keep-alive' }));
    const refused = invalidJson(MAX_REQUEST_BODY_BYTES + 1000);
    const head = postHead(h.url, json(null, { 'content-length': String(refused.length), connection: 'keep-alive' }));
    const behind = Buffer.concat(Array.from({ length: 200 }, () => Buffer.concat([Buffer.from(pipelined), mutation])));
    const answer = await exchange(h.url, head, Buffer.concat([refused, behind]));
    expect(answer.status).toBe(413);
    expect(`${answer.head}\r\n\r\n${answer.body}`.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(1);
    expect((await h.gql('{ __typename }', {}, { as: null })).data).toEqual({ __typename: 'Query' });
    expect(sent()).toBe(before);
  });

  it('cuts a connection whose client neither sends on nor ends after the 413, once lingerMs have passed', async () => {
    const gateway = createGateway({ zulipUrl: h.zulipUrl, fetch: () => Promise.reject(new Error('no upstream call expected')), logging: false, maxRequestBodyBytes: 1000 });
    const served = createGatewayServer(gateway, { drainMs: 0, lingerMs: 50 });
    try {
      const url = await served.listen(0, '127.0.0.1');
      const client = halfOpen(url);
      client.socket.write(postHead(url, json(null, { 'content-length': '5000' })));
      client.socket.write(invalidJson(100)); // ... and never the rest, nor an end
      await client.ended;
      expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
      const open = () => new Promise<number>((resolve, reject) => served.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
      await until(async () => (await open()) === 0, 5000, 'the server to cut the connection');
      client.socket.destroy();
    } finally {
      await served.close();
      await gateway.dispose();
    }
  });

  it('stops reading a chunked body at the limit and closes the connection after the answer', async () => {
    const gateway = createGateway({ zulipUrl: h.zulipUrl, fetch: () => Promise.reject(new Error('no upstream call expected')), logging: false, maxRequestBodyBytes: 1000 });
    const served = createGatewayServer(gateway, { drainMs: 0 });
    try {
      const url = await served.listen(0, '127.0.0.1');
      const piece = Buffer.from(`{"query":"{ __typename }","variables":{"pad":"${'x'.repeat(2000)}"}}`);
      const head = postHead(url, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', connection: 'keep-alive' });
      const answer = await exchange(url, head, chunked(piece, false)); // ... and never the last chunk
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual(tooLarge);
      const small = await fetch(url, { method: 'POST', headers: json(null), body: JSON.stringify({ query: '{ __typename }' }) });
      expect((await small.json()).data).toEqual({ __typename: 'Query' });
    } finally {
      await served.close();
      await gateway.dispose();
    }
  });
});

describe('every refusal has a JSON body with a code', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const post = (headers: Record<string, string>, body: string) => ({ method: 'POST', headers, body });
  const graphql = JSON.stringify({ query: '{ __typename }' });

  it.each<[string, string, RequestInit, number, string]>([
    ['a POST of application/xml', '', post({ 'content-type': 'application/xml' }, '<query/>'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a POST of text/plain with the CSRF header', '', post({ 'content-type': 'text/plain', [CSRF_HEADER]: '1' }, graphql), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a PUT', '', { method: 'PUT', headers: json(null), body: graphql }, 405, 'METHOD_NOT_ALLOWED'],
    ['a DELETE', '', { method: 'DELETE' }, 405, 'METHOD_NOT_ALLOWED'],
    ['malformed JSON', '', post(json(null), '{"query":'), 400, 'BAD_REQUEST'],
    ['a JSON array (batching)', '', post(json(null), `[${graphql}]`), 400, 'BAD_REQUEST'],
    ['a GET whose variables are not JSON', `?query=${encodeURIComponent('{ __typename }')}&variables=%7B`, { headers: { [CSRF_HEADER]: '1' } }, 400, 'BAD_REQUEST'],
    ['a GET whose extensions are not JSON', `?query=${encodeURIComponent('{ __typename }')}&extensions=nope`, { headers: { [CSRF_HEADER]: '1' } }, 400, 'BAD_REQUEST'],
    ['a mutation over GET', `?query=${encodeURIComponent('mutation { sendMessage(channelName: "general", topic: "t", content: "x") { messageId } }')}`, { headers: { [CSRF_HEADER]: '1' } }, 405, 'BAD_REQUEST'],
    ['an Accept header allowing nothing the gateway writes', '', post(json(null, { accept: 'application/xml' }), graphql), 406, 'NOT_ACCEPTABLE'],
    ['a path other than the endpoint', '/../elsewhere', { headers: { accept: 'application/json' } }, 404, 'ROUTE_NOT_FOUND'],
    ['a body over the limit', '', post(json(null), JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(MAX_REQUEST_BODY_BYTES) } })), 413, 'REQUEST_ENTITY_TOO_LARGE'],
    ['a form post without the CSRF header', '', post({ 'content-type': 'application/x-www-form-urlencoded' }, 'query=%7B__typename%7D'), 403, 'CSRF_REFUSED'],
  ])('%s', async (_, suffix, init, status, code) => {
    await h.ready;
    const before = h.upstreamRequests.length;
    const url = suffix.startsWith('/') ? new URL(suffix.slice(3), h.url).href : h.url + suffix;
    const answer = await fetch(url, init);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await answer.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.extensions.code).toBe(code);
    expect(body.errors[0]!.message).not.toBe('');
    if (status === 405 && code === 'METHOD_NOT_ALLOWED') expect(answer.headers.get('allow')).toBe('GET, POST');
    expect(h.upstreamRequests.length).toBe(before);
  });
});

describe('CSRF prevention', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('refuses form posts as possible cross-site requests, with CSRF_REFUSED', async () => {
    await h.ready;
    const answer = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=%7B__typename%7D' });
    expect(answer.status).toBe(403);
    expect((await answer.json()).errors[0].extensions.code).toBe('CSRF_REFUSED');
  });

  it('answers a GET with the CSRF header, and refuses one without it', async () => {
    await h.ready;
    const search = `?query=${encodeURIComponent('{ serverSettings { realmName } }')}`;
    const allowed = await fetch(h.url + search, { headers: { [CSRF_HEADER]: '1' } });
    expect((await allowed.json()).data.serverSettings.realmName).toBeTruthy();
    expect((await fetch(h.url + search)).status).toBe(403);
  });
});

describe('masking', () => {
  it('turns a bug into "Unexpected error." without the message, key or upstream URL', async () => {
    const buggy: FetchLike = async () =>
      ({
        get status(): number {
          throw new Error(`boom with ${hamlet.apiKey} at http://10.9.8.7/api/v1`);
        },
        text: async () => '{}',
        headers: new Headers(),
      }) as unknown as Response;
    const gateway = createGateway({ zulipUrl: 'http://buggy.localhost', fetch: buggy, logging: false });
    const served = createGatewayServer(gateway, { drainMs: 0 });
    try {
      const url = await served.listen(0, '127.0.0.1');
      const response = await fetch(url, { method: 'POST', headers: json(basicAuth(hamlet)), body: JSON.stringify({ query: '{ serverSettings { realmName } }' }) });
      const text = await response.text();
      expect(JSON.parse(text).errors).toEqual([
        { message: 'Unexpected error.', locations: [{ line: 1, column: 3 }], path: ['serverSettings'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ]);
      expect(text).not.toMatch(/boom|10\.9\.8\.7|buggy\.localhost/);
      expect(text).not.toContain(hamlet.apiKey);
    } finally {
      await served.close();
      await gateway.dispose();
    }
  });
});

describe('isolation and streaming', () => {
  const hub = new EventHub({ graceMs: 100 });
  const h = createHarness({ gateway: { eventHub: hub } });
  afterAll(() => h.close());

  it('never serves one credential’s data to another, however interleaved', async () => {
    const users = [hamlet, othello];
    for (const user of users) {
      const created = await h.gql('mutation($c: String!) { createDrafts(drafts: [{ type: UNADDRESSED, content: $c }]) { ids } }', { c: `draft of ${user.email}` }, { as: user.email });
      expect(created.errors).toBeUndefined();
    }
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => users[i % 2]!).map(async (user) => ({
        user,
        body: await h.gql<{ me: { user: unknown }; drafts: { content: string }[] }>('{ me { user { email fullName } } drafts { content } }', {}, { as: user.email }),
      })),
    );
    for (const { user, body } of answers) {
      expect(body.errors).toBeUndefined();
      expect(body.data!.me.user).toEqual({ email: user.email, fullName: user.fullName });
      expect(body.data!.drafts.map((d) => d.content).filter((content) => content.startsWith('draft of '))).toEqual([`draft of ${user.email}`]);
    }
  });

  it('serves subscriptions over SSE, fed by a mutation', async () => {
    const stream = await h.sse('subscription { events { ... on MessageEvent { message { content } } } }', {}, { as: hamlet.email });
    try {
      await until(() => hub.stats().subscribers === 1, 5000, 'the SSE subscriber');
      const sent = await h.gql('mutation { sendMessage(channelName: "general", topic: "sse", content: "over SSE") { messageId } }', {}, { as: othello.email });
      expect(sent.errors).toBeUndefined();
      const [first] = await stream.waitFor(1);
      expect(stream.status).toBe(200);
      expect(first!.data).toEqual({ events: { message: { content: '<p>over SSE</p>' } } });
    } finally {
      stream.close();
    }
    await until(() => hub.stats().subscribers === 0, 5000, 'the subscription to end with the request');
  });

  it('answers a subscription POSTed with fetch’s default Accept as an event stream', async () => {
    const abort = new AbortController();
    const response = await fetch(h.url, {
      method: 'POST',
      headers: json(basicAuth(hamlet)),
      body: JSON.stringify({ query: 'subscription { events { __typename } }' }),
      signal: abort.signal,
    });
    try {
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await until(() => hub.stats().subscribers === 1, 5000, 'the subscriber');
    } finally {
      abort.abort();
    }
    await until(() => hub.stats().subscribers === 0, 5000, 'the subscription to end with the request');
  });

  it('answers 406 to a subscription asked for as plain JSON', async () => {
    const response = await fetch(h.url, { method: 'POST', headers: json(basicAuth(hamlet), { accept: 'application/json' }), body: JSON.stringify({ query: 'subscription { events { __typename } }' }) });
    expect(response.status).toBe(406);
    expect((await response.json()).errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
  });
});
