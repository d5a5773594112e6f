/**
 * The node:http handler (http.ts): the fast path for JSON POSTs answers exactly what yoga answers,
 * and everything else still reaches yoga. One gateway is served twice on loopback ports, by yoga's
 * own node adapter (`createServer(gateway)`) and by `createHttpHandler(gateway)`, and each request
 * is sent to both.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { EventHub } from '../../src/gateway/events/hub.js';
import { createHttpHandler, type HttpHandlerOptions } from '../../src/gateway/http.js';
import { CSRF_HEADER, createGateway, MAX_REQUEST_BODY_BYTES, type Gateway } from '../../src/gateway/yoga.js';
import type { FetchLike } from '../../src/zulip/connection.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { sseSubscribe } from '../helpers/sse.js';
import { until } from '../helpers/ws-client.js';

const hamlet = demoUser('hamlet');
const othello = demoUser('othello');

interface Served {
  /** http://127.0.0.1:port/graphql */
  url: string;
  port: number;
  close(): Promise<void>;
}

async function serve(listener: RequestListener): Promise<Served> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(listener);
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The same gateway behind yoga's node adapter and behind the fast-path handler. */
async function servePair(gateway: Gateway, options?: HttpHandlerOptions) {
  const yoga = await serve(gateway);
  const fast = await serve(createHttpHandler(gateway, options));
  return { yoga, fast, close: () => Promise.all([yoga.close(), fast.close()]) };
}

interface Answer {
  status: number;
  /** Every header but Date, lower-cased and sorted (fetch's view). */
  headers: [string, string][];
  body: string;
}

async function ask(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    headers: [...response.headers].filter(([name]) => name !== 'date'),
    body: await response.text(),
  };
}

/** A raw HTTP/1.1 exchange (the request sends `Connection: close`); the Date header is removed. */
function exchange(port: number, request: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`no complete answer after ${timeoutMs} ms: ${received}`))), timeoutMs);
    socket.on('data', (data) => (received += data.toString('utf8')));
    socket.on('error', () => undefined); // a reset after the answer; what arrived is checked
    socket.on('close', () => (clearTimeout(timer), resolve(received.replace(/\r\nDate: [^\r]*/i, ''))));
    socket.write(request);
  });
}

function rawPost(body: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', 'content-length': String(Buffer.byteLength(body)), ...headers });
  return `POST /graphql HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`;
}

const json = (auth: string | null, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  ...(auth === null ? {} : { authorization: auth }),
  ...extra,
});

describe('the fast path answers exactly as yoga', () => {
  const h = createHarness();
  let pair: Awaited<ReturnType<typeof servePair>>;
  const owner = basicAuth(hamlet);
  afterAll(async () => {
    await pair?.close();
    await h.close();
  });

  /** POSTs one body to both servers and returns both answers (after checking they are equal). */
  async function both(body: string, headers: Record<string, string>): Promise<Answer> {
    pair ??= await servePair(h.gateway);
    const init = { method: 'POST', headers, body };
    const [viaYoga, viaFast] = [await ask(pair.yoga.url, init), await ask(pair.fast.url, init)];
    expect(viaFast).toEqual(viaYoga);
    return viaFast;
  }

  const op = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
    JSON.stringify({ query, ...(variables && { variables }), ...(operationName && { operationName }) });

  it('byte for byte on the wire for a query, with the upstream report in extensions', async () => {
    pair ??= await servePair(h.gateway);
    const id = [...h.emulator.store.messages.values()][0]!.id;
    const request = rawPost(op('query One($id: Long!) { message(id: $id) { id content sender { fullName } } }', { id }), json(owner));
    const [viaYoga, viaFast] = [await exchange(pair.yoga.port, request), await exchange(pair.fast.port, request)];
    expect(viaFast).toBe(viaYoga);
    expect(viaFast).toMatch(/^HTTP\/1\.1 200 OK\r\nContent-Type: application\/json; charset=utf-8\r\ncontent-length: \d+\r\n/);
    const body = JSON.parse(viaFast.slice(viaFast.indexOf('\r\n\r\n') + 4));
    expect(body.data.message.id).toBe(id);
    expect(body.extensions).toEqual({ upstreamRequests: 2 }); // the message and its sender
  });

  it('maps an upstream error with its extensions.code, for both JSON media types', async () => {
    const query = op('{ message(id: 999999) { id } }');
    const answer = await both(query, json(owner));
    expect(JSON.parse(answer.body).errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    await both(query, json(owner, { accept: 'application/graphql-response+json' }));
    await both(query, json(owner, { accept: 'application/graphql-response+json, application/json;q=0.9' }));
  });

  it.each([
    ['a validation error', op('{ nope }')],
    ['a syntax error', op('{ serverSettings { ')],
    ['a variables error', op('query($id: Long!) { message(id: $id) { id } }', { id: 'seven' })],
    ['a missing variable', op('query($id: Long!) { message(id: $id) { id } }')],
    ['an operation over the limits', op(`{ ${Array.from({ length: 25 }, (_, i) => `a${i}: serverSettings { realmName }`).join(' ')} }`)],
    ['no operationName among several', op('query A { __typename } query B { __typename }')],
    ['an unknown operationName', op('query A { __typename }', undefined, 'C')],
    ['invalid JSON', '{"query": '],
    ['an empty body', ''],
    ['a batch', JSON.stringify([{ query: '{ __typename }' }])],
    ['an unexpected parameter', JSON.stringify({ query: '{ __typename }', queryId: 'x' })],
    ['a non-string query', JSON.stringify({ query: 7 })],
  ])('%s (handed to yoga)', async (_name, body) => {
    const answer = await both(body, json(owner));
    expect(JSON.parse(answer.body).errors.length).toBeGreaterThan(0);
    await both(body, json(owner, { accept: 'application/graphql-response+json' }));
  });

  it('hands a subscription to yoga, which cannot stream it as JSON', async () => {
    const answer = await both(op('subscription { events { __typename } }'), json(owner, { accept: 'application/json' }));
    expect(answer.status).toBe(406);
  });

  it('selects the operation named by operationName', async () => {
    const answer = await both(op('query A { __typename } query B { serverSettings { realmName } }', undefined, 'B'), json(null));
    expect(JSON.parse(answer.body).data).toEqual({ serverSettings: { realmName: expect.any(String) } });
  });

  it('refuses missing and unusable credentials the same way', async () => {
    const query = op('{ me { user { fullName } } }');
    const missing = await both(query, json(null));
    expect(JSON.parse(missing.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    for (const authorization of ['Bearer abc', 'Basic !!!', basicAuth({ email: hamlet.email, apiKey: 'wrong-key' })]) {
      const refused = await both(query, json(authorization));
      expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('adds the same CORS headers for a browser request', async () => {
    const answer = await both(op('{ __typename }'), json(owner, { origin: 'http://app.example', 'access-control-request-headers': 'authorization' }));
    expect(Object.fromEntries(answer.headers)).toMatchObject({ 'access-control-allow-origin': 'http://app.example', 'access-control-allow-credentials': 'true' });
  });

  it('answers 406 to an Accept it cannot satisfy', async () => {
    const answer = await both(op('{ __typename }'), json(owner, { accept: 'application/xml' }));
    expect(answer.status).toBe(406);
  });

  it('runs a mutation, and answers a repeated one as yoga does', async () => {
    pair ??= await servePair(h.gateway);
    const mutation = (zone: string) => op(`mutation { updateSettings(input: { timezone: "${zone}" }) { settings { timezone } } }`);
    const changed = await ask(pair.fast.url, { method: 'POST', headers: json(owner), body: mutation('Europe/Paris') });
    expect(JSON.parse(changed.body).data.updateSettings.settings.timezone).toBe('Europe/Paris');
    const settings = await ask(pair.yoga.url, { method: 'POST', headers: json(owner), body: op('{ me { settings { timezone } } }') });
    expect(JSON.parse(settings.body).data.me.settings.timezone).toBe('Europe/Paris');
    // Setting the same value again gives the same answer (the server reports it as ignored) on both.
    await both(mutation('Europe/Paris'), json(owner));
  });

  it('leaves form posts to yoga, which refuses them as possible CSRF', async () => {
    const answer = await both('query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('CSRF_REFUSED');
  });

  it('leaves GET to yoga: it answers with the CSRF header', async () => {
    pair ??= await servePair(h.gateway);
    const search = `?query=${encodeURIComponent('{ serverSettings { realmName } }')}`;
    const init = { headers: { [CSRF_HEADER]: '1' } };
    const [viaYoga, viaFast] = [await ask(pair.yoga.url + search, init), await ask(pair.fast.url + search, init)];
    expect(viaFast).toEqual(viaYoga);
    expect(JSON.parse(viaFast.body).data.serverSettings.realmName).toBeTruthy();
    expect((await ask(pair.fast.url + search, {})).status).toBe(403);
  });
});

describe('the body size limit', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const tooLarge = { errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] };

  it('refuses an announced oversized body with yoga’s 413, without reading it', async () => {
    const pair = await servePair(h.gateway);
    try {
      // Only the headers and a few bytes are sent: both answer from Content-Length alone.
      const request = rawPost('{"query":"{ __typename }"', json(null, { 'content-length': String(MAX_REQUEST_BODY_BYTES + 1) }));
      const [viaYoga, viaFast] = [await exchange(pair.yoga.port, request), await exchange(pair.fast.port, request)];
      expect(viaYoga).toMatch(/^HTTP\/1\.1 413 /);
      // The one deliberate difference: the fast path closes the connection instead of reading on.
      expect(viaFast.replace('\r\nConnection: close', '')).toBe(viaYoga.replace('\r\nConnection: close', ''));
      expect(JSON.parse(viaFast.slice(viaFast.indexOf('\r\n\r\n') + 4))).toEqual(tooLarge);
    } finally {
      await pair.close();
    }
  });

  it('stops reading a chunked body at the limit and closes the connection', async () => {
    const served = await serve(createHttpHandler(h.gateway, { maxBodyBytes: 1000 }));
    try {
      const chunk = `{"query":"{ __typename }","variables":{"pad":"${'x'.repeat(2000)}"}}`;
      const request =
        'POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n' +
        `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`; // ... and never the last chunk
      const answer = await exchange(served.port, request);
      expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(tooLarge);

      const small = await ask(served.url, { method: 'POST', headers: json(null), body: JSON.stringify({ query: '{ __typename }' }) });
      expect(JSON.parse(small.body).data).toEqual({ __typename: 'Query' });
    } finally {
      await served.close();
    }
  });
});

describe('masking', () => {
  it('turns a bug into "Unexpected error." exactly as yoga does', async () => {
    const owner = basicAuth(hamlet);
    const buggy: FetchLike = async () =>
      ({
        get status(): number {
          throw new Error(`boom with ${hamlet.apiKey} at http://10.9.8.7/api/v1`);
        },
        text: async () => '{}',
        headers: new Headers(),
      }) as unknown as Response;
    const gateway = createGateway({ zulipUrl: 'http://buggy.localhost', fetch: buggy, logging: false });
    const pair = await servePair(gateway);
    try {
      const init = { method: 'POST', headers: json(owner), body: JSON.stringify({ query: '{ serverSettings { realmName } }' }) };
      const [viaYoga, viaFast] = [await ask(pair.yoga.url, init), await ask(pair.fast.url, init)];
      expect(viaFast).toEqual(viaYoga);
      expect(JSON.parse(viaFast.body).errors).toEqual([
        { message: 'Unexpected error.', locations: [{ line: 1, column: 3 }], path: ['serverSettings'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ]);
      expect(viaFast.body).not.toMatch(/boom|10\.9\.8\.7|buggy\.localhost/);
      expect(viaFast.body).not.toContain(hamlet.apiKey);
    } finally {
      await pair.close();
      await gateway.dispose();
    }
  });
});

describe('isolation and streaming through the fast-path server', () => {
  const hub = new EventHub({ graceMs: 100 });
  const h = createHarness({ gateway: { eventHub: hub } });
  let served: Served;
  afterAll(async () => {
    await served?.close();
    await h.close();
  });

  async function post(auth: string, query: string, variables?: Record<string, unknown>) {
    const answer = await ask(served.url, { method: 'POST', headers: json(auth), body: JSON.stringify({ query, variables }) });
    return JSON.parse(answer.body) as { data?: Record<string, any>; errors?: unknown[]; extensions?: Record<string, unknown> };
  }

  it('never serves one credential’s data to another, however interleaved', async () => {
    served ??= await serve(createHttpHandler(h.gateway));
    const users = [hamlet, othello];
    for (const user of users) {
      const created = await post(basicAuth(user), 'mutation($c: String!) { createDrafts(drafts: [{ type: UNADDRESSED, content: $c }]) { ids } }', {
        c: `draft of ${user.email}`,
      });
      expect(created.errors).toBeUndefined();
    }
    const query = '{ me { user { email fullName } } drafts { content } }';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => users[i % 2]!).map(async (user) => ({ user, body: await post(basicAuth(user), query) })),
    );
    for (const { user, body } of answers) {
      expect(body.errors).toBeUndefined();
      expect(body.data!.me.user).toEqual({ email: user.email, fullName: user.fullName });
      const drafts = body.data!.drafts.map((d: { content: string }) => d.content);
      expect(drafts).toContain(`draft of ${user.email}`);
      expect(drafts.filter((content: string) => content.startsWith('draft of '))).toEqual([`draft of ${user.email}`]);
    }
  });

  it('still serves subscriptions over SSE (handed to yoga), fed by a mutation on the fast path', async () => {
    served ??= await serve(createHttpHandler(h.gateway));
    const stream = sseSubscribe(served.url, 'subscription { events { ... on MessageEvent { message { content } } } }', {}, { authorization: basicAuth(hamlet) });
    try {
      await until(() => hub.stats().subscribers === 1, 5000, 'the SSE subscriber');
      const sent = await post(basicAuth(othello), 'mutation { sendMessage(channelName: "general", topic: "fast path", content: "over SSE") { id } }');
      expect(sent.errors).toBeUndefined();
      const [first] = await stream.waitFor(1);
      expect(stream.status).toBe(200);
      expect(first!.data).toEqual({ events: { message: { content: '<p>over SSE</p>' } } });
    } finally {
      stream.close();
    }
  });

  it('streams a subscription POSTed without an SSE Accept (read by the fast path, then handed over)', async () => {
    served ??= await serve(createHttpHandler(h.gateway));
    await until(() => hub.stats().subscribers === 0, 5000, 'the earlier subscribers to leave');
    const abort = new AbortController();
    const response = await fetch(served.url, {
      method: 'POST',
      headers: json(basicAuth(hamlet)), // fetch's default Accept, */*: yoga picks SSE for a stream
      body: JSON.stringify({ query: 'subscription { events { ... on MessageEvent { message { content } } } }' }),
      signal: abort.signal,
    });
    try {
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await until(() => hub.stats().subscribers === 1, 5000, 'the subscriber');
      await post(basicAuth(othello), 'mutation { sendMessage(channelName: "general", topic: "fast path", content: "handed over") { id } }');
      const reader = response.body!.getReader();
      let text = '';
      const deadline = Date.now() + 5000;
      while (!text.includes('handed over') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
      expect(text).toContain('"content":"<p>handed over</p>"');
    } finally {
      abort.abort();
    }
    await until(() => hub.stats().subscribers === 0, 5000, 'the subscription to end with the request');
  });
});
