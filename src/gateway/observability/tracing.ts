/**
 * OpenTelemetry tracing of one gateway instance: a span per GraphQL operation (continuing a W3C
 * `traceparent` sent by the client), and a child span per upstream call whose `traceparent` the
 * REST client sends on, so the chat server's traces (if any) join ours.
 *
 * Off unless configured (config/index.ts: OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_*). The provider
 * is never registered globally: contexts are passed explicitly (the operation's context hangs off
 * the GraphQL context), so two gateways in a process, or a host application, do not interfere.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { routeLabel, statusLabel } from './labels.js';

export type { Context as TraceContext } from '@opentelemetry/api';

/** Tracing as configured (OTEL_* variables, config/index.ts). */
export interface TracingConfig {
  exporter: 'otlp' | 'console' | 'none';
  /** Full traces URL, when exporting over OTLP. */
  url?: string;
  headers: Record<string, string>;
  serviceName: string;
  sampleRatio: number;
}

/** Headers as both fetch `Headers` and node's plain objects can provide them. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

export interface UpstreamSpanEnd {
  status?: number;
  retries?: number;
  timedOut?: boolean;
}

/** A started upstream call: headers to send with it, and how to end its span. */
export interface UpstreamTrace {
  /** `traceparent` (and `tracestate`) to add to the upstream request; empty when tracing is off. */
  headers: Record<string, string>;
  end(result: UpstreamSpanEnd): void;
}

const propagator = new W3CTraceContextPropagator();
const NOOP_UPSTREAM: UpstreamTrace = { headers: {}, end: () => {} };

export class GatewayTracing {
  readonly enabled: boolean;
  readonly #provider: NodeTracerProvider | undefined;
  readonly #tracer: Tracer | undefined;

  /**
   * @param exporter replaces the configured exporter (tests pass an InMemorySpanExporter; spans
   *   are then exported one by one, synchronously).
   */
  constructor(config: TracingConfig, exporter?: SpanExporter) {
    const processor = spanProcessor(config, exporter);
    this.enabled = processor !== undefined;
    if (!processor) return;
    this.#provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
      spanProcessors: [processor],
    });
    this.#tracer = this.#provider.getTracer('chatgraph');
  }

  /**
   * Starts the span of an operation; its parent is the client's `traceparent`, when valid.
   * Returns the context to pass to `startUpstream`, or undefined when tracing is off.
   */
  startOperation(headers: HeaderSource | undefined, name: string, type: string): { span: Span; context: Context } | undefined {
    if (!this.#tracer) return undefined;
    const parent = headers ? propagator.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
    const span = this.#tracer.startSpan(
      `${type} ${name}`,
      { kind: SpanKind.SERVER, attributes: { 'graphql.operation.type': type, 'graphql.operation.name': name } },
      parent,
    );
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Starts the span of one upstream call (a child of `parent`, the operation's context). */
  startUpstream(parent: Context | undefined, route: string, method: string): UpstreamTrace {
    if (!this.#tracer || !parent) return NOOP_UPSTREAM;
    const span = this.#tracer.startSpan(
      `${method} ${routeLabel(route)}`,
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'chatgraph.upstream.route': routeLabel(route) } },
      parent,
    );
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(parent, span), headers, { set: (carrier, key, value) => void (carrier[key] = value) });
    return {
      headers,
      end({ status, retries = 0, timedOut = false }) {
        span.setAttributes({ 'http.response.status_code': statusLabel(status), 'chatgraph.upstream.retries': retries, 'chatgraph.upstream.timed_out': timedOut });
        if (timedOut || status === undefined || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /** Flushes and stops exporting (on shutdown). */
  async shutdown(): Promise<void> {
    await this.#provider?.shutdown();
  }
}

const headerGetter = {
  get: (carrier: HeaderSource, key: string) => carrier.get(key) ?? undefined,
  keys: () => [],
};

function spanProcessor(config: TracingConfig, exporter: SpanExporter | undefined): SpanProcessor | undefined {
  if (exporter) return new SimpleSpanProcessor(exporter);
  if (config.exporter === 'console') return new SimpleSpanProcessor(new ConsoleSpanExporter());
  if (config.exporter === 'otlp') return new BatchSpanProcessor(new OTLPTraceExporter({ url: config.url, headers: config.headers }));
  return undefined;
}
