/**
 * Builds the gateway: a yoga fetch handler (no listening here; transport/ serves it) with the
 * schema, per-request context and the plugins below. The plugin order and the disposal order are
 * stated here, once (see `createGateway`).
 */
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Credentials, FetchLike } from '../zulip/connection.js';
import {
  authorizationFromConnectionParams,
  contextFromAuthorization,
  createContext,
  UpstreamServer,
  type Context,
} from './context.js';
import { LiveDirectories, type LiveDirectoryOptions } from './directory/live.js';
import { directoryWrites } from './directory/writes.js';
import { EventHub } from './events/hub.js';
import { csrfPrevention } from './plugins/csrf.js';
import { useEventHub } from './plugins/event-hub.js';
import { operationLimits } from './plugins/limits.js';
import { MASKED_ERRORS } from './plugins/masking.js';
import { shareSubscriptions, type SubscriptionSharing } from './plugins/share-subscriptions.js';
import { upstreamReport } from './plugins/upstream-report.js';
import { buildSchema, buildSubgraphSchema } from './schema/index.js';

export { CSRF_HEADER } from './plugins/csrf.js';
export { OPERATION_LIMITS } from './plugins/limits.js';

export interface GatewayOptions {
  /** Origin of the chat server, e.g. `https://chat.example.com` (without `/api/v1`). */
  zulipUrl: string;
  /** Transport for upstream calls (tests inject the emulator here). @default globalThis.fetch */
  fetch?: FetchLike;
  /** Identity for requests without an Authorization header. @default none: such requests are anonymous */
  defaultCredentials?: Credentials;
  /** Per-attempt upstream timeout in milliseconds. @default 10_000 */
  timeoutMs?: number;
  /** Serve GraphiQL on GET /graphql from a browser. @default true */
  graphiql?: boolean;
  /** yoga logging: false, true, or a level. @default true */
  logging?: boolean | 'debug' | 'info' | 'warn' | 'error';
  /**
   * Serve the Apollo Federation 2 subgraph schema instead of the plain one, on the same path: the
   * plain schema plus `_entities` and `_service` (schema/federation.ts), for a supergraph router.
   * Run it as its own instance; the plain endpoint is unchanged. @default false
   */
  subgraph?: boolean;
  /**
   * The event hub behind subscriptions (tests pass one built with a fast backoff and short grace
   * period, and observe it). @default a new EventHub with its defaults
   */
  eventHub?: EventHub;
  /**
   * Largest request body accepted, in bytes; a larger one gets 413 `REQUEST_ENTITY_TOO_LARGE`,
   * from its Content-Length alone or as soon as that many bytes arrived. @default MAX_REQUEST_BODY_BYTES
   */
  maxRequestBodyBytes?: number;
  /** Run identical subscriptions (credential, operation, variables) once, on every transport. @default true */
  shareSubscriptions?: boolean;
  /** Results a client's subscription may have waiting before it ends with SLOW_CONSUMER. @default 1000 */
  subscriptionBacklog?: number;
  /**
   * Keep a live directory of users, channels and groups per credential, fed by its event queue, so
   * lookups cost no upstream call (directory/live.ts). false: every lookup goes upstream. @default true
   */
  liveDirectory?: boolean | LiveDirectoryOptions;
  /** Below feature level 384, batches of at most this many users are fetched one by one. @default 10 */
  userIdsThreshold?: number;
}

export type Gateway = YogaServerInstance<Record<string, never>, Context> & {
  /** Subscriptions served now, for tests and metrics. */
  readonly subscriptions: SubscriptionSharing;
  /** The live directories (`stats()` for metrics); undefined when `liveDirectory: false`. */
  readonly directories: LiveDirectories | undefined;
};

/**
 * Largest request body accepted by default, in bytes. Operations are small (the dashboard query
 * is under 1 kB, a message at most 10,000 characters), and a body under this limit must be read
 * and parsed whole before it can be refused: 2 MB keeps that to milliseconds.
 */
export const MAX_REQUEST_BODY_BYTES = 2_000_000;

/**
 * HTTP requests carry credentials in their Authorization header; graphql-ws operations run through
 * `gateway.getEnveloped({ ...wsContext, ... })` (yoga's recipe, transport/ws.ts), whose context has
 * the checked `connection_init` credentials as `connectionParams` and no fetch Request.
 */
function gatewayContext(
  initial: { request?: { headers: Pick<Headers, 'get'> }; connectionParams?: unknown },
  upstream: UpstreamServer,
): Context {
  if ('connectionParams' in initial) {
    return contextFromAuthorization(upstream, authorizationFromConnectionParams(initial.connectionParams));
  }
  return createContext({ request: initial.request!, upstream });
}

export function createGateway(options: GatewayOptions): Gateway {
  const upstream = new UpstreamServer({
    baseUrl: options.zulipUrl,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.defaultCredentials && { defaultCredentials: options.defaultCredentials }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  const sharing = shareSubscriptions({
    ...(options.shareSubscriptions !== undefined && { share: options.shareSubscriptions }),
    ...(options.subscriptionBacklog !== undefined && { backlog: options.subscriptionBacklog }),
  });
  if (options.userIdsThreshold !== undefined) upstream.userIdsThreshold = options.userIdsThreshold;
  const hub = options.eventHub ?? new EventHub();
  const directories =
    options.liveDirectory === false
      ? undefined
      : new LiveDirectories(hub, upstream.connection, options.liveDirectory === true ? {} : options.liveDirectory);
  upstream.directories = directories;
  const yoga = createYoga<Record<string, never>, Context>({
    schema: options.subgraph ? buildSubgraphSchema() : buildSchema(),
    context: (initial) => gatewayContext(initial, upstream),
    graphiql: options.graphiql ?? true,
    logging: options.logging ?? true,
    landingPage: false,
    maxRequestBodySize: options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES,
    maskedErrors: MASKED_ERRORS,
    // Hooks run in this order; `gateway.dispose()` runs the disposers last-in first-out: the event
    // hub first (every subscription ends, every upstream queue is deleted), then the upstream
    // keep-alive pool, which those deletions still need.
    plugins: [
      { onDispose: () => upstream.close() },
      csrfPrevention(),
      operationLimits(),
      upstreamReport(),
      useEventHub(hub),
      // After the hub in the list, so disposed before it: directories release their queues first.
      ...(directories ? [directoryWrites(directories), { onDispose: () => directories.close() }] : []),
      // Last, so that the subscribe function it wraps is the final one.
      sharing,
    ],
  });
  return Object.assign(yoga, { subscriptions: sharing.sharing, directories });
}
