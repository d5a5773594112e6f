/** Tracing through real HTTP with an in-memory exporter: operation spans continue the client's trace; upstream spans are children and propagate. */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/gateway/config/index.js';
import { GatewayTracing } from '../../../src/gateway/observability/tracing.js';
import { useTracing } from '../../../src/gateway/plugins/tracing.js';
import { post, startTestServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => server?.close());

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

async function setup() {
  const exporter = new InMemorySpanExporter();
  const tracing = new GatewayTracing({ exporter: 'none', headers: {}, serviceName: 'chatgraph-test', sampleRatio: 1 }, exporter);
  server = await startTestServer({ tracing, plugins: [useTracing(tracing)] });
  return { exporter, tracing, server };
}

describe('tracing', () => {
  it('continues the client traceparent; upstream calls are child spans and carry their own traceparent', async () => {
    const { exporter, server } = await setup();
    const { body } = await post(server.url, { query: 'query Feed { upstream }' }, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` });
    const spans = exporter.getFinishedSpans();
    const operation = spans.find((s) => s.name === 'query Feed')!;
    const upstream = spans.find((s) => s.name === 'GET get-messages')!;
    expect(operation.spanContext().traceId).toBe(TRACE_ID);
    expect(operation.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(operation.resource.attributes['service.name']).toBe('chatgraph-test');
    expect(upstream.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
    expect(upstream.attributes).toMatchObject({ 'chatgraph.upstream.route': 'get-messages', 'http.response.status_code': '200', 'chatgraph.upstream.retries': 1 });
    const sent = JSON.parse(body.data!.upstream as string) as Record<string, string>;
    expect(sent.traceparent).toBe(`00-${TRACE_ID}-${upstream.spanContext().spanId}-01`);
  });

  it('starts a new trace without a (valid) client traceparent, and marks failed operations', async () => {
    const { exporter, server } = await setup();
    await post(server.url, { query: 'query Broken { fail }' }, { traceparent: 'garbage' });
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('query Broken');
    expect(span!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.status.code).toBe(2); // ERROR
  });

  it('is off unless configured: no spans, no upstream headers', async () => {
    expect(loadConfig({ DEMO: '1' }).tracing.exporter).toBe('none');
    const tracing = new GatewayTracing(loadConfig({ DEMO: '1' }).tracing);
    expect(tracing.enabled).toBe(false);
    server = await startTestServer({ tracing, plugins: [useTracing(tracing)] });
    const { body } = await post(server.url, { query: '{ upstream }' }, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` });
    expect(JSON.parse(body.data!.upstream as string)).toEqual({});
  });

  it('is on with an OTLP endpoint', () => {
    const tracing = new GatewayTracing(loadConfig({ DEMO: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing);
    expect(tracing.enabled).toBe(true);
    return tracing.shutdown();
  });
});
