/**
 * A throwaway yoga server on loopback with a small schema, for testing the observability plugins
 * through real HTTP one at a time (production.test.ts runs them wired into the gateway). Resolvers:
 * - `hello`: "world"; `fail`: a bug (plain Error); `refused`: the chat server's 400;
 * - `upstream`: one fake upstream call reported through `upstreamObserver`, returning the headers
 *   it would send (so tests see the request id and traceparent);
 * - `ticks(n)`: a subscription of n numbers; `fallsBehind`: one number, then a SLOW_CONSUMER error.
 */
import { createServer } from 'node:http';
import { GraphQLError } from 'graphql';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga, type Plugin, type YogaServerOptions } from 'graphql-yoga';
import { ZulipApiError } from '../../../src/zulip/errors.js';
import type { GatewayMetrics } from '../../../src/gateway/observability/metrics.js';
import type { GatewayTracing } from '../../../src/gateway/observability/tracing.js';
import { YOGA_HEALTH_CHECK_ENDPOINT } from '../../../src/gateway/observability/endpoints.js';
import { upstreamObserver, type RequestObservation } from '../../../src/gateway/observability/upstream.js';

export interface TestServer {
  url: string;
  origin: string;
  close(): Promise<void>;
}

export interface TestServerOptions {
  plugins?: Plugin[];
  metrics?: GatewayMetrics;
  tracing?: GatewayTracing;
  yoga?: Partial<YogaServerOptions<Record<string, never>, Record<string, unknown>>>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const schema = createSchema<RequestObservation>({
    typeDefs: /* GraphQL */ `
      type Query { hello: String, fail: String, refused: String, upstream: String }
      type Subscription { ticks(n: Int!): Int, fallsBehind: Int }
    `,
    resolvers: {
      Query: {
        hello: () => 'world',
        fail: () => {
          throw new Error('bug: undefined is not a function');
        },
        refused: () => {
          throw new ZulipApiError('get-messages', { httpStatus: 400, code: 'BAD_NARROW', msg: 'Invalid narrow operator' });
        },
        upstream: (_, __, ctx) => {
          const call = upstreamObserver({ metrics: options.metrics, tracing: options.tracing }, ctx)('get-messages', 'GET');
          call.end({ status: 200, durationMs: 12, retries: 1 });
          return JSON.stringify(call.headers);
        },
      },
      Subscription: {
        // One result, then the SLOW_CONSUMER error subscription sharing ends a lagging client with.
        fallsBehind: {
          async *subscribe() {
            yield { fallsBehind: 1 };
            yield { fallsBehind: 2 };
          },
          resolve: (payload: { fallsBehind: number }) => {
            if (payload.fallsBehind === 2) throw new GraphQLError('fell behind', { extensions: { code: 'SLOW_CONSUMER' } });
            return payload.fallsBehind;
          },
        },
        ticks: {
          async *subscribe(_, { n }: { n: number }) {
            for (let i = 1; i <= n; i++) yield { ticks: i };
          },
        },
      },
    },
  });
  // yoga's built-in /health (empty 200) would answer before our plugins: moved out of the way, as
  // the wiring does (observability/endpoints.ts YOGA_HEALTH_CHECK_ENDPOINT).
  const yoga = createYoga({ schema, logging: false, healthCheckEndpoint: YOGA_HEALTH_CHECK_ENDPOINT, plugins: options.plugins ?? [], ...options.yoga } as YogaServerOptions<Record<string, never>, Record<string, unknown>>);
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/graphql`,
    origin,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** POSTs a GraphQL request as JSON. */
export async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { response, body: (await response.json()) as { data?: Record<string, unknown>; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

/** A pino destination that keeps parsed lines. */
export function memoryDestination() {
  const lines: Record<string, unknown>[] = [];
  return { lines, write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}
