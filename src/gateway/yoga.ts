/**
 * Builds the gateway: a yoga fetch handler (no listening here; see main.ts) with the schema,
 * per-request context, error mapping, operation limits and CSRF prevention. Tests call
 * `gateway.fetch(...)` directly; main.ts wraps it in node:http.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { type Plugin, createGraphQLError, createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import type { Credentials, FetchLike } from '../zulip/connection.js';
import {
  authorizationFromConnectionParams,
  contextFromAuthorization,
  createContext,
  upstreamConnection,
  type Context,
  type UpstreamConfig,
} from './context.js';
import { toGraphQLError, UNEXPECTED_ERROR_MESSAGE } from './errors.js';
import { EventHub } from './events/hub.js';
import { useEventHub } from './events/plugin.js';
import { buildSchema, buildSubgraphSchema } from './schema/index.js';

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
}

export type Gateway = YogaServerInstance<Record<string, never>, Context>;

/**
 * Operation limits, applied before any resolver runs (so before any upstream call). They admit
 * GraphiQL's introspection query and the dashboard query (100 newest messages with each sender,
 * channel and reaction user), and reject alias bombs, deep nesting and oversized documents.
 * Note the cost limit multiplies a selection by its `first`/`last` argument.
 */
export const OPERATION_LIMITS = {
  maxTokens: { n: 2000 },
  maxDepth: { n: 10 },
  maxAliases: { n: 20 },
  maxDirectives: { n: 20 },
  costLimit: { maxCost: 50_000 },
  blockFieldSuggestion: { enabled: true },
} as const;

/**
 * Largest request body accepted, in bytes (yoga's own default, stated so that http.ts's fast path
 * refuses exactly the bodies yoga refuses, with the same 413 `REQUEST_ENTITY_TOO_LARGE`).
 */
export const MAX_REQUEST_BODY_BYTES = 25_000_000;

/** Header that marks a request as sent by a script or app, not by a cross-site HTML form. */
export const CSRF_HEADER = 'x-graphql-yoga-csrf';

/** Content types a browser may send cross-site without a CORS preflight. */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * Refuses requests a browser could send from another site without a preflight: those without a
 * non-simple content type (e.g. application/json) and without the CSRF header. The same rule as
 * @graphql-yoga/plugin-csrf-prevention, kept here because that plugin's refusal carries no error
 * code and clients need a stable one (CSRF_REFUSED) to tell it from other 403s.
 */
function csrfPrevention(): Plugin {
  return {
    onRequestParse({ request }) {
      if (request.headers.has(CSRF_HEADER)) return;
      const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
      if (mediaType && !SIMPLE_CONTENT_TYPES.has(mediaType)) return;
      throw createGraphQLError(
        `Refused as a possible cross-site request: send Content-Type: application/json, or the ${CSRF_HEADER} header.`,
        { extensions: { code: 'CSRF_REFUSED', http: { status: 403 } } },
      );
    },
  };
}

/** Reports what the request cost upstream in the response `extensions`. */
function upstreamReport(): Plugin<Context> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return; // streams report nothing
          setResult(withUpstreamExtensions(result, ctx));
        },
      };
    },
  };
}

function withUpstreamExtensions(result: ExecutionResult, ctx: Context): ExecutionResult {
  // Copied, then extended: `{ ...a, key }` costs V8 about a microsecond more than `{ ...a }` alone.
  const extensions: Record<string, unknown> = { ...result.extensions };
  extensions.upstreamRequests = ctx.upstream.requests;
  if (ctx.ignoredParameters.size > 0) extensions.ignoredParametersUnsupported = [...ctx.ignoredParameters];
  const reported: ExecutionResult = { ...result };
  reported.extensions = extensions;
  return reported;
}

/**
 * HTTP requests carry credentials in their Authorization header (a fetch Request from yoga, or the
 * request-like object of http.ts's fast path); graphql-ws operations run through
 * `gateway.getEnveloped({ ...wsContext, ... })` (yoga's recipe), whose graphql-ws context has the
 * `connection_init` payload as `connectionParams` and no fetch Request.
 */
function gatewayContext(
  initial: { request?: { headers: Pick<Headers, 'get'> }; connectionParams?: unknown },
  upstream: UpstreamConfig,
): Context {
  if ('connectionParams' in initial) {
    return contextFromAuthorization(upstream, authorizationFromConnectionParams(initial.connectionParams));
  }
  return createContext({ request: initial.request!, upstream });
}

export function createGateway(options: GatewayOptions): Gateway {
  const upstream: UpstreamConfig = {
    baseUrl: options.zulipUrl,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.defaultCredentials && { defaultCredentials: options.defaultCredentials }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  };
  return createYoga<Record<string, never>, Context>({
    schema: options.subgraph ? buildSubgraphSchema() : buildSchema(),
    context: (initial) => gatewayContext(initial, upstream),
    graphiql: options.graphiql ?? true,
    logging: options.logging ?? true,
    landingPage: false,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    maskedErrors: {
      errorMessage: UNEXPECTED_ERROR_MESSAGE,
      maskError: (error) => toGraphQLError(error),
    },
    plugins: [
      // `gateway.dispose()` closes the upstream keep-alive pool. Disposers run last-in first-out, so
      // being first this one runs after the event hub's has deleted the upstream queues.
      { onDispose: () => upstreamConnection(upstream).close() },
      csrfPrevention(),
      EnvelopArmorPlugin(OPERATION_LIMITS),
      upstreamReport(),
      useEventHub(options.eventHub ?? new EventHub()),
    ],
  });
}
