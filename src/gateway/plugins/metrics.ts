/**
 * Counts operations (by bounded name and type), times queries and mutations, counts the error
 * codes sent to clients, and serves /health, /readiness and the Prometheus path on the GraphQL
 * port (unless METRICS_PORT moves them; then pass no endpoints).
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { opsFetchResponse, type OpsEndpoints } from '../observability/endpoints.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { operationInfo } from './operation.js';

function codesOf(result: ExecutionResult): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}

export function useMetrics(metrics: GatewayMetrics, endpoints?: OpsEndpoints): Plugin<{ request?: Request }> {
  return {
    async onRequest({ request, url, endResponse }) {
      if (!endpoints) return;
      const response = await opsFetchResponse(endpoints, request, url);
      if (response) endResponse(response);
    },
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
    },
    onResultProcess({ result }) {
      if (Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) metrics.errors(codesOf(one));
    },
  };
}
