/** Prometheus metrics through real HTTP: per-instance registries, bounded labels, no secrets. */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { opsEndpoints } from '../../../src/gateway/observability/endpoints.js';
import { GatewayMetrics } from '../../../src/gateway/observability/metrics.js';
import { useMetrics } from '../../../src/gateway/plugins/metrics.js';
import { post, startTestServer, type TestServer } from './server.js';

const servers: TestServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

async function setup(metrics = new GatewayMetrics({ maxOperationNames: 3 })) {
  const server = await startTestServer({ metrics, plugins: [useMetrics(metrics, opsEndpoints({ metrics }))] });
  servers.push(server);
  const scrape = async () => {
    const response = await fetch(`${server.origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };
  return { server, metrics, scrape };
}

/** The value of one sample line, e.g. `chatgraph_operations_total{operation_name="A",operation_type="query"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('operations and errors', () => {
  it('counts operations by bounded name and type, errors by code', async () => {
    const { server, scrape } = await setup();
    await post(server.url, { query: 'query Dashboard { hello }' });
    await post(server.url, { query: 'query Dashboard { hello }' });
    await post(server.url, { query: '{ hello }' });
    await post(server.url, { query: `query ${'N'.repeat(65)} { hello }` });
    await post(server.url, { query: 'query B { hello }' });
    await post(server.url, { query: 'query C { hello }' });
    await post(server.url, { query: 'query D { hello }' }); // the fourth distinct name: over the cap of 3
    await post(server.url, { query: '{ fail }' });
    await post(server.url, { query: '{ nope }' });
    const text = await scrape();
    expect(sample(text, 'chatgraph_operations_total{operation_name="Dashboard",operation_type="query"}')).toBe(2);
    expect(sample(text, 'chatgraph_operations_total{operation_name="anonymous",operation_type="query"}')).toBe(2);
    expect(sample(text, 'chatgraph_operations_total{operation_name="invalid",operation_type="query"}')).toBe(1);
    expect(sample(text, 'chatgraph_operations_total{operation_name="other",operation_type="query"}')).toBe(1);
    expect(text).not.toContain('operation_name="D"');
    expect(sample(text, 'chatgraph_operation_duration_seconds_count{operation_name="Dashboard",operation_type="query"}')).toBe(2);
    expect(sample(text, 'chatgraph_errors_total{code="INTERNAL_SERVER_ERROR"}')).toBe(1);
    expect(sample(text, 'chatgraph_errors_total{code="GRAPHQL_VALIDATION_FAILED"}')).toBe(1);
  });

  it('counts subscriptions', async () => {
    const { server, scrape } = await setup();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription Ticker { ticks(n: 2) }' }),
    });
    expect(await response.text()).toContain('"ticks":2');
    expect(sample(await scrape(), 'chatgraph_operations_total{operation_name="Ticker",operation_type="subscription"}')).toBe(1);
  });

  it('follows subscription streams: SSE connections, active subscriptions, deliveries, slow consumers', async () => {
    const { server, scrape } = await setup();
    const subscribe = (query: string) =>
      fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query }) });
    const response = await subscribe('subscription { fallsBehind }');
    expect(await response.text()).toContain('SLOW_CONSUMER');
    expect(await (await subscribe('subscription { ticks(n: 3) }')).text()).toContain('"ticks":3');
    const text = await scrape();
    expect(sample(text, 'chatgraph_events_delivered_total')).toBe(5);
    expect(sample(text, 'chatgraph_slow_consumers_total')).toBe(1);
    expect(sample(text, 'chatgraph_active_subscriptions')).toBe(0);
    expect(sample(text, 'chatgraph_open_connections{transport="sse"}')).toBe(0);
  });
});

describe('upstream, subscriptions, directory, process', () => {
  it('records upstream calls by route and status, retries and timeouts', async () => {
    const { server, metrics, scrape } = await setup();
    await post(server.url, { query: '{ upstream }' });
    metrics.upstreamCall({ route: 'get-messages', durationMs: 10_000, timedOut: true });
    metrics.upstreamCall({ route: 'bad route with spaces', status: 200, durationMs: 1 });
    const text = await scrape();
    expect(sample(text, 'chatgraph_upstream_requests_total{route="get-messages",status="200"}')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_requests_total{route="get-messages",status="none"}')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_requests_total{route="other",status="200"}')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_retries_total{route="get-messages"}')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_timeouts_total{route="get-messages"}')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_request_duration_seconds_count{route="get-messages"}')).toBe(2);
  });

  it('exposes the gauges and counters the hub, transports and directory report', async () => {
    const { metrics, scrape } = await setup();
    metrics.connection('ws', 1);
    metrics.connection('ws', 1);
    metrics.connection('sse', 1);
    metrics.connection('ws', -1);
    metrics.subscription(1);
    metrics.eventQueues(3);
    metrics.eventsDelivered(5);
    metrics.slowConsumer();
    metrics.directorySize(2, 4096);
    metrics.directoryLookup(true);
    metrics.directoryLookup(false);
    metrics.directoryLoad();
    metrics.directoryEviction('idle');
    metrics.redisUp(true);
    const text = await scrape();
    expect(sample(text, 'chatgraph_open_connections{transport="ws"}')).toBe(1);
    expect(sample(text, 'chatgraph_open_connections{transport="sse"}')).toBe(1);
    expect(sample(text, 'chatgraph_active_subscriptions')).toBe(1);
    expect(sample(text, 'chatgraph_upstream_event_queues')).toBe(3);
    expect(sample(text, 'chatgraph_events_delivered_total')).toBe(5);
    expect(sample(text, 'chatgraph_slow_consumers_total')).toBe(1);
    expect(sample(text, 'chatgraph_live_directory_sessions')).toBe(2);
    expect(sample(text, 'chatgraph_live_directory_bytes')).toBe(4096);
    expect(sample(text, 'chatgraph_live_directory_lookups_total{result="hit"}')).toBe(1);
    expect(sample(text, 'chatgraph_live_directory_lookups_total{result="miss"}')).toBe(1);
    expect(sample(text, 'chatgraph_live_directory_loads_total')).toBe(1);
    expect(sample(text, 'chatgraph_live_directory_evictions_total{reason="idle"}')).toBe(1);
    expect(sample(text, 'chatgraph_redis_up')).toBe(1);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('keeps each instance\'s counts in its own registry, never in prom-client\'s global one', async () => {
    const a = await setup(new GatewayMetrics({ processMetrics: false }));
    const b = await setup(new GatewayMetrics({ processMetrics: false }));
    await post(a.server.url, { query: 'query OnlyA { hello }' });
    expect(await a.scrape()).toContain('operation_name="OnlyA"');
    expect(await b.scrape()).not.toContain('OnlyA');
    const { register } = await import('prom-client');
    expect(await register.metrics()).not.toContain('chatgraph_');
  });

  it('never puts credentials or request ids in labels', async () => {
    const { server, scrape } = await setup();
    await post(server.url, { query: 'query Q { hello }' }, { authorization: 'Basic c2VjcmV0OmtleQ==', 'x-request-id': 'req-secret-id' });
    const text = await scrape();
    expect(text).not.toContain('c2VjcmV0');
    expect(text).not.toContain('req-secret-id');
  });
});

describe('a separate metrics port', () => {
  it('serves metrics, health and readiness, and nothing else', async () => {
    const { createServer } = await import('node:http');
    const { nodeHandler } = await import('../../../src/gateway/observability/endpoints.js');
    const metrics = new GatewayMetrics({ processMetrics: false });
    metrics.slowConsumer();
    const server = createServer(nodeHandler(opsEndpoints({ metrics, metricsPath: '/prom' })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(sample(await (await fetch(`${origin}/prom`)).text(), 'chatgraph_slow_consumers_total')).toBe(1);
      expect(await (await fetch(`${origin}/health`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${origin}/graphql`)).status).toBe(404);
      expect((await fetch(`${origin}/prom`, { method: 'POST' })).status).toBe(405);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
