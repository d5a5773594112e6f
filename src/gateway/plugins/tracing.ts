/**
 * A span per operation, continuing the client's W3C `traceparent`. The span's context is put on
 * the GraphQL context as `traceContext` (the context object itself, not a copy, so the upstream
 * observer created with the context sees it; observability/upstream.ts).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';
import type { GatewayTracing, TraceContext } from '../observability/tracing.js';
import { operationInfo, safeOperationName } from '../observability/operation.js';

export interface TracingContext {
  traceContext?: TraceContext;
  request?: Request;
}

export function useTracing(tracing: GatewayTracing): Plugin<TracingContext> {
  if (!tracing.enabled) return {};
  const start = (context: TracingContext, document: Parameters<typeof operationInfo>[0], operationName: string | null | undefined) => {
    const { name, type } = operationInfo(document, operationName);
    const started = tracing.startOperation(context.request?.headers, safeOperationName(name), type);
    if (started) context.traceContext = started.context;
    return started?.span;
  };
  return {
    onExecute({ args }) {
      const span = start(args.contextValue, args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result) && result.errors?.length) {
            span?.setStatus({ code: SpanStatusCode.ERROR });
            span?.setAttribute('graphql.error.count', result.errors.length);
          }
          span?.end();
        },
      };
    },
    onSubscribe({ args }) {
      // The span covers setting the subscription up (and its upstream calls), not its lifetime.
      // Its context is then dropped: the event queue a subscription starts keeps polling with the
      // connection of the request that started it, and those polls must not grow the trace forever.
      const context = args.contextValue;
      const end = () => {
        span?.end();
        context.traceContext = undefined;
      };
      const span = start(context, args.document, args.operationName);
      return { onSubscribeResult: end, onSubscribeError: end };
    },
  };
}
