/**
 * The one hook an upstream REST call reports through: metrics, the trace span and the headers to
 * send (request id, traceparent). The REST connection knows nothing of metrics or OpenTelemetry;
 * the gateway hands it `observer.start(route, method)` per request.
 */
import type { GatewayMetrics } from './metrics.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import type { GatewayTracing, TraceContext } from './tracing.js';

export interface UpstreamResult {
  /** HTTP status of the last attempt; undefined when none answered. */
  status?: number;
  durationMs: number;
  retries?: number;
  timedOut?: boolean;
}

export interface StartedUpstreamCall {
  /** Headers to add to the upstream request (x-request-id, traceparent). */
  headers: Record<string, string>;
  end(result: UpstreamResult): void;
}

export type UpstreamObserver = (route: string, method: string) => StartedUpstreamCall;

export interface RequestObservation {
  requestId?: string;
  /** The operation span's context (GraphQL context `traceContext`). */
  traceContext?: TraceContext;
}

/** The observer for the upstream calls of one request. */
export function upstreamObserver(
  parts: { metrics?: GatewayMetrics; tracing?: GatewayTracing },
  request: RequestObservation = {},
): UpstreamObserver {
  return (route, method) => {
    const span = parts.tracing?.startUpstream(request.traceContext, route, method);
    const headers: Record<string, string> = { ...span?.headers };
    if (request.requestId) headers[REQUEST_ID_HEADER] = request.requestId;
    return {
      headers,
      end(result) {
        parts.metrics?.upstreamCall({ route, ...result });
        span?.end(result);
      },
    };
  };
}
