/**
 * The operability features as production runs them: `start()` (src/main.ts, what `npm start` and
 * `node dist/main.js` run) against the emulator on a loopback port, everything over real HTTP and
 * WebSockets. The emulator records the `x-request-id` and `traceparent` each upstream request
 * carried, so a request is followed from the client to the chat server.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';
import { start, type Started } from '../../../src/main.js';
import { rawSocket } from '../../helpers/ws-client.js';
import { until } from '../../helpers/wait.js';
import { memoryDestination } from './server.js';

const owner = DEMO_USERS[0]!;
const basic = (email: string, apiKey: string) => `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
const AUTH = basic(owner.email, owner.apiKey);
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

interface Setup {
  emulator: Emulator;
  started: Started;
  logs: ReturnType<typeof memoryDestination>;
  spans: InMemorySpanExporter;
  origin: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(env: Record<string, string> = {}): Promise<Setup> {
  const emulator = createEmulator({ seed: 'demo' });
  const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => emulator.close());
  const logs = memoryDestination();
  const spans = new InMemorySpanExporter();
  const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', LOG_LEVEL: 'debug', ...env }, () => undefined, { logDestination: logs, traceExporter: spans });
  cleanups.push(() => started.close());
  return { emulator, started, logs, spans, origin: new URL(started.url).origin };
}

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH, ...headers }, body: JSON.stringify(body) });
  return { response, body: (await response.json()) as { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> } };
}

/** Opens a graphql-ws socket and waits for the ack. */
async function wsConnect(url: string, payload: Record<string, unknown> = { authorization: AUTH }) {
  const socket = await rawSocket(url.replace(/^http/, 'ws'));
  socket.send({ type: 'connection_init', payload });
  await socket.waitForMessage((m) => m.type === 'connection_ack');
  return socket;
}

describe('request ids and traces, end to end', () => {
  it('carries the client request id and trace to every upstream call, the spans and the logs', async () => {
    const { emulator, started, logs, spans } = await setup();
    const before = emulator.requests.length;
    const { response, body } = await post(started.url, { query: 'query Dash { serverSettings { realmName } messages(last: 3) { edges { node { zulipId sender { fullName } } } } }' }, {
      'x-request-id': 'req-e2e-1',
      traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01`,
    });
    expect(body.errors).toBeUndefined();
    expect(response.headers.get('x-request-id')).toBe('req-e2e-1');

    const upstream = emulator.requests.slice(before).filter((r) => r.requestId === 'req-e2e-1');
    expect(upstream.length).toBe(body.extensions!.upstreamRequests);
    const operation = spans.getFinishedSpans().find((s) => s.name === 'query Dash')!;
    expect(operation.spanContext().traceId).toBe(TRACE_ID);
    expect(operation.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    const children = spans.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === operation.spanContext().spanId);
    expect(children.length).toBe(upstream.length);
    for (const record of upstream) {
      const [, traceId, spanId] = record.traceparent!.split('-');
      expect(traceId).toBe(TRACE_ID);
      const child = children.find((s) => s.spanContext().spanId === spanId)!;
      expect(child.attributes).toMatchObject({ 'http.response.status_code': '200', 'chatgraph.upstream.retries': 0 });
      expect(child.attributes['chatgraph.upstream.route']).toMatch(/^get-/);
    }

    const access = logs.lines.find((l) => l.msg === 'request' && l.requestId === 'req-e2e-1');
    expect(access).toMatchObject({ level: 'info', method: 'POST', path: '/graphql', status: 200 });
  });

  it('generates an id when the client sends none, and counts a retry on the span', async () => {
    const { emulator, started, spans } = await setup();
    emulator.faults.inject('GET /messages', { status: 502, times: 1 });
    const { response, body } = await post(started.url, { query: 'query Retry { messages(last: 1) { edges { cursor } } }' });
    expect(body.errors).toBeUndefined();
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(emulator.requests.filter((r) => r.path === '/messages').map((r) => r.requestId)).toEqual([id, id]);
    const span = spans.getFinishedSpans().find((s) => s.attributes['chatgraph.upstream.route'] === 'get-messages')!;
    expect(span.attributes).toMatchObject({ 'chatgraph.upstream.retries': 1, 'http.response.status_code': '200' });
  });

  it('traces setting a subscription up, not the event queue polls that follow, which carry no request id', async () => {
    const { emulator, started, spans } = await setup({ LIVE_DIRECTORY: 'off' });
    // The subscription registers the credential's queue (no live directory, no other client did).
    const stream = await fetch(started.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: AUTH, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      body: JSON.stringify({ query: 'subscription Live { events { __typename } }' }),
    });
    const reader = stream.body!.getReader();
    await until(() => spans.getFinishedSpans().some((s) => s.name === 'subscription Live'), 5000, 'the subscription span');
    await post(started.url, { query: 'mutation { sendMessage(channelName: "general", topic: "trace", content: "one") { id } }' });
    await reader.read(); // the event arrived: the queue was polled again since
    const afterEvent = emulator.requests.length;
    await post(started.url, { query: 'mutation { sendMessage(channelName: "general", topic: "trace", content: "two") { id } }' });
    await until(() => emulator.requests.slice(afterEvent).some((r) => r.path === '/events' && r.method === 'GET'), 5000, 'another poll');
    const polls = emulator.requests.slice(afterEvent).filter((r) => r.path === '/events');
    expect(polls.every((r) => !r.traceparent?.includes(TRACE_ID))).toBe(true);
    expect(polls.length).toBeGreaterThan(0);
    const subscribeId = stream.headers.get('x-request-id');
    expect(subscribeId).toBeTruthy();
    expect(emulator.requests.some((r) => r.path === '/register' && r.requestId === subscribeId)).toBe(true);
    expect(polls.map((r) => r.requestId ?? null)).toEqual(polls.map(() => null));
    await reader.cancel();
  });
});

describe('logs', () => {
  it('never hold an API key, an Authorization value or its base64, and log refusals without stacks', async () => {
    const { started, logs } = await setup();
    const wrong = basic(owner.email, 'not-the-key-0123456789');
    const query = 'query Mine { messages(last: 1) { edges { cursor } } }';
    expect((await post(started.url, { query })).body.errors).toBeUndefined();
    const refused = await post(started.url, { query }, { authorization: wrong, 'x-request-id': 'refused-1' });
    expect(refused.body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    const socket = await wsConnect(started.url, { email: owner.email, apiKey: owner.apiKey });
    socket.close();
    await started.close();
    await started.flushLogs();

    const text = JSON.stringify(logs.lines);
    for (const secret of [owner.apiKey, 'not-the-key-0123456789', AUTH.slice(6), wrong.slice(6), 'Basic ']) expect(text).not.toContain(secret);
    const failure = logs.lines.find((l) => l.requestId === 'refused-1' && l.msg !== 'request')!;
    expect(failure).toBeDefined();
    expect(['debug', 'info']).toContain(failure.level);
    expect(failure.err).toBeUndefined();
    expect(logs.lines.some((l) => l.level === 'error')).toBe(false);
  });
});

/** Every sample of a scrape: name, labels, value. */
function samples(text: string) {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      expect(match, line).not.toBeNull();
      const labels: Record<string, string> = {};
      for (const [, key, value] of match[2]?.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g) ?? []) labels[key!] = value!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** What each chatgraph label may hold: closed sets and identifiers, never free text. */
const LABEL_VALUES: Record<string, RegExp> = {
  operation_name: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
  operation_type: /^(query|mutation|subscription)$/,
  code: /^[A-Z][A-Z0-9_]{0,63}$/,
  route: /^[a-z][a-z0-9-]{0,63}$/,
  status: /^([1-5]\d\d|none)$/,
  transport: /^(ws|sse)$/,
  result: /^(hit|miss)$/,
  reason: /^(idle|memory)$/,
  le: /^([0-9.]+|\+Inf)$/,
};

describe('metrics', () => {
  it('are scraped over HTTP: operations, errors, upstream calls, connections, subscriptions, queues; labels hold no secrets', async () => {
    const { started, origin } = await setup({ LIVE_DIRECTORY: 'on' });
    await post(started.url, { query: 'query Dash { messages(last: 2) { edges { node { zulipId sender { fullName } } } } }' });
    await post(started.url, { query: 'query Dash { nope }' });
    await post(started.url, { query: 'query Refused { messages(last: 1) { edges { cursor } } }' }, { authorization: basic(owner.email, 'wrong-key'), 'x-request-id': 'req-label-check' });
    const sse = await fetch(started.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: AUTH },
      body: JSON.stringify({ query: 'subscription Live { events { __typename } }' }),
    });
    const socket = await wsConnect(started.url);
    socket.send({ id: '1', type: 'subscribe', payload: { query: 'subscription Live { events { __typename } }' } });

    const scrape = async () => {
      const response = await fetch(`${origin}/metrics`);
      expect(response.headers.get('content-type')).toContain('text/plain');
      return samples(await response.text());
    };
    const value = (all: ReturnType<typeof samples>, name: string, labels: Record<string, string> = {}) =>
      all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    /** Scrapes until `ok` holds of a scrape (bounded), as a dashboard would see it settle. */
    const scrapeUntil = async (ok: (all: ReturnType<typeof samples>) => boolean) => {
      let all = await scrape();
      // Not settled in time: the last scrape goes to the assertions, which say what differs.
      await until(async () => ok(all) || ok((all = await scrape())), 2000, 'the metrics to settle', 20).catch(() => undefined);
      return all;
    };
    let all = await scrapeUntil((a) => value(a, 'chatgraph_active_subscriptions') === 2);

    // The invalid one never started.
    expect(value(all, 'chatgraph_operations_total', { operation_name: 'Dash', operation_type: 'query' })).toBe(1);
    expect(value(all, 'chatgraph_operations_total', { operation_name: 'Live', operation_type: 'subscription' })).toBe(2);
    expect(value(all, 'chatgraph_operation_duration_seconds_count', { operation_name: 'Dash', operation_type: 'query' })).toBe(1);
    expect(value(all, 'chatgraph_errors_total', { code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(value(all, 'chatgraph_errors_total', { code: 'UNAUTHENTICATED' })).toBe(1);
    expect(value(all, 'chatgraph_upstream_requests_total', { route: 'get-messages', status: '200' })).toBe(1);
    expect(value(all, 'chatgraph_upstream_requests_total', { route: 'get-messages', status: '401' })).toBe(1);
    expect(value(all, 'chatgraph_upstream_request_duration_seconds_count', { route: 'get-messages' })).toBe(2);
    expect(value(all, 'chatgraph_open_connections', { transport: 'ws' })).toBe(1);
    expect(value(all, 'chatgraph_open_connections', { transport: 'sse' })).toBe(1);
    expect(value(all, 'chatgraph_active_subscriptions')).toBe(2);
    expect(value(all, 'chatgraph_upstream_event_queues')).toBeGreaterThanOrEqual(1);
    expect(value(all, 'chatgraph_live_directory_sessions')).toBeGreaterThanOrEqual(0);
    expect(all.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);

    for (const sample of all.filter((s) => s.name.startsWith('chatgraph_'))) {
      for (const [label, v] of Object.entries(sample.labels)) {
        expect(LABEL_VALUES[label], `label ${label}`).toBeDefined();
        expect(v, `${sample.name} ${label}`).toMatch(LABEL_VALUES[label]!);
      }
    }
    const text = JSON.stringify(all);
    const userIds = owner.email.split('@')[0]!;
    for (const secret of [owner.apiKey, 'wrong-key', owner.email, userIds, AUTH.slice(6), 'req-label-check']) expect(text).not.toContain(secret);

    // An event reaches both subscribers: two deliveries.
    await post(started.url, { query: 'mutation { sendMessage(channelName: "general", topic: "metrics", content: "counted") { id } }' });
    await socket.waitForMessage((m) => m.id === '1' && m.type === 'next');
    all = await scrapeUntil((a) => value(a, 'chatgraph_events_delivered_total') === 2);
    expect(value(all, 'chatgraph_events_delivered_total')).toBe(2);

    socket.close();
    await sse.body?.cancel();
    all = await scrapeUntil((a) => value(a, 'chatgraph_active_subscriptions') === 0 && value(a, 'chatgraph_open_connections', { transport: 'sse' }) === 0);
    expect(value(all, 'chatgraph_active_subscriptions')).toBe(0);
    expect(value(all, 'chatgraph_open_connections', { transport: 'sse' })).toBe(0);
    expect(value(all, 'chatgraph_open_connections', { transport: 'ws' })).toBe(0);
  });

  it('move to METRICS_PORT with health and readiness when it is set', async () => {
    const { started } = await setup({ METRICS_PORT: '0', METRICS_PATH: '/prom' });
    expect(started.metricsOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${started.metricsOrigin}/prom`)).status).toBe(200);
    expect(await (await fetch(`${started.metricsOrigin}/readiness`)).json()).toEqual({ ready: true, upstream: 'ok' });
    expect((await fetch(`${new URL(started.url).origin}/prom`)).status).not.toBe(200);
  });
});

describe('health and readiness', () => {
  it('/health is 200; /readiness is 200 when the chat server answers and 503 with a reason when it does not', async () => {
    const { origin, emulator } = await setup({ READINESS_CACHE_MS: '0' });
    expect(await (await fetch(`${origin}/health`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${origin}/readiness`);
    expect(ready.status).toBe(200);
    emulator.faults.inject('GET /server_settings', { status: 502, times: 1 });
    const down = await fetch(`${origin}/readiness`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ready: false, upstream: 'unavailable', reason: 'chat server answered GET /server_settings with HTTP 502' });
  });
});

describe('readiness in cluster mode', () => {
  it('reports the Redis connection and is 503 until it is connected', async () => {
    const { origin, started } = await setup({ REDIS_URL: 'redis://127.0.0.1:1', GATEWAY_SECRET: 's'.repeat(40), READINESS_CACHE_MS: '0' });
    const response = await fetch(`${origin}/readiness`);
    expect(response.status).toBe(503);
    const report = (await response.json()) as { ready: boolean; reason: string; redis: string };
    expect(report).toMatchObject({ ready: false, upstream: 'ok' });
    expect(['connecting', 'down']).toContain(report.redis);
    expect(report.reason).toBe(`redis ${report.redis}`);
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/^chatgraph_redis_up 0$/m);
    expect(JSON.stringify(report) + metrics).not.toContain('s'.repeat(40));
    await started.close();
  });
});

describe('shutdown', () => {
  it('turns readiness to 503, finishes requests in flight, completes SSE streams, closes WebSockets with 1001 and deletes the queues', async () => {
    const { emulator, started, origin } = await setup({ METRICS_PORT: '0', DRAIN_MS: '5000' });
    const sse = await fetch(started.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: AUTH },
      body: JSON.stringify({ query: 'subscription { events { __typename } }' }),
    });
    const sseText = sse.text();
    const socket = await wsConnect(started.url);
    socket.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { events { __typename } }' } });
    await until(() => emulator.queues.size() >= 1, 5000, 'an upstream queue');

    emulator.faults.inject('GET /messages', { latencyMs: 400, times: 1 });
    const inFlight = post(started.url, { query: '{ messages(last: 1) { edges { cursor } } }' });
    await until(() => emulator.requests.some((r) => r.path === '/messages'), 5000, 'the slow call to reach the chat server');

    const closing = started.close();
    const readiness = await fetch(`${started.metricsOrigin}/readiness`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ ready: false, reason: 'shutting down' });

    const { response, body } = await inFlight;
    expect(response.status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(await sseText).toContain('event: complete');
    expect((await socket.closed).code).toBe(1001);
    await closing;
    expect(emulator.queues.size()).toBe(0);
    expect(emulator.requests.some((r) => r.method === 'DELETE' && r.path === '/events')).toBe(true);
    await expect(fetch(`${origin}/health`)).rejects.toThrow();
  });
});

describe('persisted operations', () => {
  const query = '{ serverSettings { realmName } }';
  const sha256Hash = createHash('sha256').update(query).digest('hex');
  const apq = { persistedQuery: { version: 1, sha256Hash } };

  it('APQ by default, over HTTP and graphql-ws', async () => {
    const { started } = await setup();
    const missing = await post(started.url, { extensions: apq });
    expect(missing.body.errors![0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });

    const socket = await wsConnect(started.url);
    socket.send({ id: 'a', type: 'subscribe', payload: { query: '', extensions: apq } });
    const wsMissing = await socket.waitForMessage((m) => m.id === 'a');
    expect(wsMissing).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });

    expect((await post(started.url, { query, extensions: apq })).body.data).toEqual({ serverSettings: { realmName: expect.any(String) } });
    expect((await post(started.url, { extensions: apq })).body.data).toEqual({ serverSettings: { realmName: expect.any(String) } });
    socket.send({ id: 'b', type: 'subscribe', payload: { query: '', extensions: apq } });
    expect(await socket.waitForMessage((m) => m.id === 'b' && m.type === 'next')).toMatchObject({ payload: { data: { serverSettings: { realmName: expect.any(String) } } } });
    socket.close();
  });

  it('trusted documents only, over HTTP and graphql-ws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatgraph-trusted-'));
    const file = join(dir, 'persisted-documents.json');
    writeFileSync(file, JSON.stringify({ settings1: query }));
    const { started } = await setup({ PERSISTED_OPERATIONS: 'trusted', PERSISTED_OPERATIONS_FILE: file });
    const text = await post(started.url, { query });
    expect(text.response.status).toBe(400);
    expect(text.body.errors![0]!.extensions!.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await post(started.url, { documentId: 'nope' });
    expect(unknown.body.errors![0]!.extensions!.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post(started.url, { documentId: 'settings1' })).body.data).toEqual({ serverSettings: { realmName: expect.any(String) } });

    const socket = await wsConnect(started.url);
    socket.send({ id: 'a', type: 'subscribe', payload: { query } });
    expect(await socket.waitForMessage((m) => m.id === 'a')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'PERSISTED_QUERY_ONLY' } }] });
    socket.send({ id: 'b', type: 'subscribe', payload: { query: '', documentId: 'settings1' } });
    expect(await socket.waitForMessage((m) => m.id === 'b' && m.type === 'next')).toMatchObject({ payload: { data: { serverSettings: { realmName: expect.any(String) } } } });
    socket.close();
  });

  it('refuses a manifest that does not parse at startup', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatgraph-trusted-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ a: 'query {' }));
    await expect(start({ ZULIP_URL: 'http://127.0.0.1:9', PERSISTED_OPERATIONS: 'trusted', PERSISTED_OPERATIONS_FILE: file }, () => undefined)).rejects.toThrow(/document a does not parse/);
  });
});

describe('CORS, GraphiQL and the subgraph', () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

  it('allows no cross-origin access by default, and listed origins with credentials', async () => {
    const closed = await setup();
    const refused = await preflight(closed.started.url, 'https://evil.example.com');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
    const open = await setup({ CORS_ORIGINS: 'https://app.example.com' });
    const allowed = await preflight(open.started.url, 'https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight(open.started.url, 'https://evil.example.com')).headers.get('access-control-allow-origin')).not.toBe('https://evil.example.com');
  });

  it('serves GraphiQL from the package only when enabled (off in production with a real chat server)', async () => {
    const html = { accept: 'text/html' };
    const off = await setup();
    expect((await fetch(off.started.url, { headers: html })).headers.get('content-type') ?? '').not.toContain('text/html');
    const on = await setup({ GRAPHIQL: 'on' });
    const page = await fetch(on.started.url, { headers: html });
    const body = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(body).toContain('<title>chatgraph</title>');
    expect(body).not.toMatch(/<script[^>]+src="https?:/);
    expect(body).not.toContain('unpkg.com');
  });

  it('serves the federation subgraph with SUBGRAPH=true', async () => {
    const { started } = await setup({ SUBGRAPH: 'true' });
    const { body } = await post(started.url, { query: '{ _service { sdl } }' });
    expect(body.data!._service).toMatchObject({ sdl: expect.stringContaining('@key') });
  });
});
