/**
 * Counts operations (by bounded name and type), times queries and mutations, counts the error
 * codes sent to clients, and serves /health, /readiness and the Prometheus path on the GraphQL
 * port (unless METRICS_PORT moves them; then pass no endpoints). Follows each subscription's
 * stream as its client receives it (after subscription sharing, so per client): active
 * subscriptions, SSE streams (one per HTTP subscription), results delivered, and clients ended
 * as slow consumers (the SLOW_CONSUMER result plugins/share-subscriptions.ts sends last).
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { opsFetchResponse, type OpsEndpoints } from '../observability/endpoints.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { GatewayErrorCode } from '../errors.js';
import { operationInfo } from '../observability/operation.js';

const SLOW_CONSUMER: string = GatewayErrorCode.slowConsumer;

function codesOf(result: ExecutionResult): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}

export function useMetrics(metrics: GatewayMetrics | undefined, endpoints?: OpsEndpoints): Plugin<{ request?: Request }> {
  const serveEndpoints: Plugin = {
    async onRequest({ request, url, endResponse }) {
      if (!endpoints) return;
      const response = await opsFetchResponse(endpoints, request, url);
      if (response) endResponse(response);
    },
  };
  if (!metrics) return serveEndpoints; // METRICS=off: /health and /readiness only
  return {
    onRequest: serveEndpoints.onRequest!,
    onExecute({ args }) {
      const { name, type } = operationInfo(args.document, args.operationName);
      const end = metrics.operationStarted(name, type);
      // HTTP results are counted once, in onResultProcess (which also sees errors raised before
      // execution); graphql-ws results only pass here.
      const overHttp = args.contextValue.request !== undefined;
      return {
        onExecuteDone({ result }) {
          end();
          if (!overHttp && !(Symbol.asyncIterator in result)) metrics.errors(codesOf(result));
        },
      };
    },
    onSubscribe({ args }) {
      const { name } = operationInfo(args.document, args.operationName);
      metrics.operationStarted(name, 'subscription');
      const overHttp = args.contextValue.request !== undefined;
      return {
        onSubscribeResult({ result }) {
          if (!(Symbol.asyncIterator in result)) return undefined;
          metrics.subscription(1);
          if (overHttp) metrics.connection('sse', 1);
          let ended = false;
          return {
            onNext({ result: next }) {
              metrics.eventsDelivered();
              if (next.errors?.some((error) => error.extensions?.code === SLOW_CONSUMER)) metrics.slowConsumer();
            },
            onEnd() {
              if (ended) return;
              ended = true;
              metrics.subscription(-1);
              if (overHttp) metrics.connection('sse', -1);
            },
          };
        },
      };
    },
    onResultProcess({ result }) {
      if (Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) metrics.errors(codesOf(one));
    },
  };
}
