/**
 * Builds the gateway: a yoga fetch handler (no listening here; transport/ serves it) with the
 * schema, per-request context and the plugins below. The plugin order and the disposal order are
 * stated here, once (see `createGateway`).
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type GraphQLParams, type YogaServerInstance } from 'graphql-yoga';
import type { Credentials, FetchLike } from '../zulip/connection.js';
import { contextFor, contextFromCredentials, createContext, type Context, type SessionRequest } from './context.js';
import type { SentCredentials } from './credentials.js';
import { LiveDirectories, type LiveDirectoryOptions } from './directory/live.js';
import type { MessageCacheOptions } from './directory/messages/cache.js';
import { useDirectoryWrites } from './plugins/directory-writes.js';
import { corsOptions } from './cors.js';
import { EventHub } from './events/hub.js';
import { graphiqlOptions, packagedGraphiQLRenderer } from './graphiql.js';
import { YOGA_HEALTH_CHECK_ENDPOINT, type OpsEndpoints } from './observability/endpoints.js';
import { collectGatewayStats } from './observability/gateway-stats.js';
import { yogaLogger, type Logger } from './observability/logger.js';
import type { GatewayMetrics } from './observability/metrics.js';
import type { GatewayTracing } from './observability/tracing.js';
import { upstreamObserver, type RequestObservation } from './observability/upstream.js';
import { EventCluster, type EventClusterOptions } from './cluster/cluster.js';
import { MAX_REQUEST_BODY_BYTES, useBodyLimit } from './plugins/body-limit.js';
import { CSRF_HEADER, useCsrfPrevention } from './plugins/csrf.js';
import { useEventHub } from './plugins/event-hub.js';
import { learnInputLimits } from './upstream/input-limits.js';
import { useCredentialCheck } from './plugins/credentials.js';
import { DEFAULT_UPSTREAM_DEADLINE_MS, useDeadline } from './plugins/deadline.js';
import { LiveQueries } from './live/queries.js';
import { useLiveQueries } from './plugins/live-queries.js';
import { useInputBounds } from './plugins/input-bounds.js';
import { useCompiledExecution } from './plugins/compiled-execution.js';
import { useOperationLimits } from './plugins/limits.js';
import { useVariablesDepthLimit } from './plugins/variables-depth.js';
import { compressAnswers, type CompressionOptions } from './plugins/compression.js';
import { useLogging } from './plugins/logging.js';
import { MASKED_ERRORS } from './masking.js';
import { useMetrics } from './plugins/metrics.js';
import { usePersistedOperations, type PersistedOperationsOptions } from './plugins/persisted-operations.js';
import { useCodedRefusals, useMethodRefusal } from './plugins/refusals.js';
import { boundedParseCache } from './plugins/parse-cache.js';
import { useRequestId } from './plugins/request-id.js';
import { useSharedSubscriptions, type GraphQLSubscriptionSharing } from './plugins/share-subscriptions.js';
import { useTracing } from './plugins/tracing.js';
import { useUploads } from './plugins/uploads.js';
import { useUpstreamBudget } from './plugins/upstream-budget.js';
import type { Headroom } from './upstream/budget.js';
import type { BucketClock } from './upstream/bucket.js';
import { UpstreamEstimates } from './upstream/estimate.js';
import { CredentialRevocations } from './revocation.js';
import { useSync } from './plugins/sync.js';
import { SyncLogs, type SyncOptions } from './sync/logs.js';
import { useUpstreamReport } from './plugins/upstream-report.js';
import { SessionCookies, useSessions } from './plugins/sessions.js';
import { DEFAULT_KEY_PREFIX } from './cluster/keys.js';
import { GatewayErrorCode } from './errors.js';
import { isLoopbackHost, originAllowed, sentSessionOf, type SentSession } from './sessions/cookie.js';
import { RedisSessionStore } from './sessions/redis-store.js';
import { DEFAULT_SESSION_MAX_MS, Sessions, type SessionsOptions } from './sessions/sessions.js';
import { buildSchema, buildSubgraphSchema } from './schema/index.js';
import { UpstreamServer } from './upstream/server.js';
import { serverAddress, UpstreamServers } from './upstream/servers.js';

export { CSRF_HEADER } from './plugins/csrf.js';
export { MAX_REQUEST_BODY_BYTES } from './plugins/body-limit.js';
export { OPERATION_LIMITS } from './plugins/limits.js';

export interface GatewayOptions {
  /**
   * The default chat server, e.g. `https://chat.example.com` (without `/api/v1`): where
   * `Authorization: Basic` and the default credentials go.
   */
  zulipUrl: string;
  /**
   * Other chat servers a session's accounts may be on (`ZULIP_SERVERS` but the first): with
   * `zulipUrl`, the allow-list no connection goes outside of (upstream/servers.ts). @default []
   */
  zulipServers?: readonly string[];
  /** Transport for upstream calls (tests inject the emulator here). @default globalThis.fetch */
  fetch?: FetchLike;
  /** Identity for requests without an Authorization header. @default none: such requests are anonymous */
  defaultCredentials?: Credentials;
  /**
   * Serve GraphiQL on GET /graphql from a browser, from the installed package (graphiql.ts); with
   * `demoAuthorization`, that header value is pre-filled. @default true
   */
  graphiql?: boolean | { demoAuthorization?: string };
  /** yoga logging: false, true, or a level; ignored when `logger` is given. @default true */
  logging?: boolean | 'debug' | 'info' | 'warn' | 'error';
  /** Structured logs (observability/logger.ts): access lines, failures by cause, yoga's own messages. */
  logger?: Logger;
  /** Prometheus metrics of this instance (observability/metrics.ts). */
  metrics?: GatewayMetrics;
  /** OpenTelemetry tracing of this instance (observability/tracing.ts). */
  tracing?: GatewayTracing;
  /** /health, /readiness and the metrics path, answered on the GraphQL port (observability/endpoints.ts). */
  endpoints?: OpsEndpoints;
  /**
   * Browser origins allowed cross-origin: a list (with credentials), `*` (any origin, never with
   * credentials) or none. @default [] (no CORS headers: browsers refuse cross-origin reads)
   */
  corsOrigins?: string[] | '*';
  /**
   * Persisted operations: `apq` (automatic persisted queries, in-memory store of `apqMaxEntries`),
   * `trusted` (only the documents of `documents` or of the manifest `file`), or `off`. @default off
   */
  persistedOperations?: PersistedOperationsOptions;
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
   * Cluster mode (when `eventHub` is not given): subscriptions share upstream queues and event logs
   * with the other instances through Redis (docs/operations.md, "Running several instances"). Throws at once
   * without a usable secret. @default none: everything stays in this process
   */
  cluster?: EventClusterOptions;
  /**
   * Largest request body accepted, in bytes; a larger one gets 413 `REQUEST_ENTITY_TOO_LARGE`,
   * from its Content-Length alone or as soon as that many bytes arrived. It bounds each graphql-ws
   * message too (a larger one closes the socket with 1009). @default MAX_REQUEST_BODY_BYTES
   */
  maxRequestBodyBytes?: number;
  /**
   * Run queries and mutations as code compiled once per document (graphql-jit,
   * plugins/compiled-execution.ts) rather than graphql's interpreter; the documents it cannot run
   * as graphql-js would, and the subgraph schema, are interpreted anyway. @default true
   */
  compiledExecution?: boolean;
  /**
   * Answers compressed (brotli or gzip, by `Accept-Encoding`; plugins/compression.ts): whole answers
   * from `minBytes`, streams always, flushed per event. false: never. @default { minBytes: 1024 }
   */
  compression?: CompressionOptions | false;
  /** Run identical subscriptions (credential, operation, variables) once, on every transport. @default true */
  shareSubscriptions?: boolean;
  /**
   * Events or results one subscription may have waiting before it ends with SLOW_CONSUMER, when
   * `eventHub` is not given (a given hub has its own `slowConsumerLimit`; giving both throws).
   * @default DEFAULT_SLOW_CONSUMER_LIMIT (1000)
   */
  slowConsumerLimit?: number;
  /**
   * Subscriptions one credential may have open on this instance, every transport together; the
   * next is refused with TOO_MANY_SUBSCRIPTIONS. @default DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL (200)
   */
  maxSubscriptionsPerCredential?: number;
  /**
   * Keep a live directory of users, channels and groups per credential, fed by its event queue, so
   * lookups cost no upstream call (directory/live.ts). false: every lookup goes upstream. @default true
   */
  liveDirectory?: boolean | LiveDirectoryOptions;
  /**
   * Least time between two executions of one `@live` query, in milliseconds (changes within it are
   * folded into one re-execution; a client's `@live(throttle:)` may only raise it).
   * @default DEFAULT_LIVE_QUERY_THROTTLE_MS (50)
   */
  liveQueryThrottleMs?: number;
  /**
   * Keep the message windows queries fetched per credential, current from the live directory's
   * event queues, so a repeated `messages` page costs no upstream call (directory/messages/cache.ts).
   * Needs the live directory. false: every page goes upstream. @default true
   */
  messageCache?: boolean | MessageCacheOptions;
  /** Below feature level 384, batches of at most this many users are fetched one by one. @default 5 */
  userIdsBatchThreshold?: number;
  /**
   * The upstream deadline, in milliseconds: every upstream call of a query or mutation (its
   * retries and follow-up calls included) must end within it, past it the operation's pending and
   * later calls fail with UPSTREAM_TIMEOUT. A call made outside an operation (a subscription's)
   * gets this long on its own, retries included. @default 10_000
   */
  upstreamDeadlineMs?: number;
  /**
   * How long an upload (`uploadFile`) may go without a byte of its file, in milliseconds; past it,
   * UPLOAD_IDLE_TIMEOUT. It replaces the upstream deadline for the upload's own call, since that
   * deadline starts before the file's bytes arrive. @default DEFAULT_UPLOAD_IDLE_MS (10_000)
   */
  uploadIdleMs?: number;
  /**
   * Longest time a credential this instance follows (live directory, subscriptions, `@live`) goes
   * without the chat server accepting it, in milliseconds: past it, it is checked upstream
   * (`GET /users/me`, within its budget), and not served from the directory until a check succeeds
   * (revocation.ts). @default DEFAULT_CREDENTIAL_RECHECK_MS (60_000)
   */
  credentialRecheckMs?: number;
  /**
   * Estimated upstream calls one query or mutation may make (plugins/upstream-budget.ts); over it,
   * UPSTREAM_BUDGET_EXCEEDED before any call. @default DEFAULT_MAX_UPSTREAM_CALLS (50)
   */
  maxUpstreamCalls?: number;
  /**
   * What no operation may spend of its credential's remaining rate-limit budget, so the user's
   * other clients keep working: calls, or a share of the limit (`'10%'`).
   * @default DEFAULT_UPSTREAM_BUDGET_HEADROOM ('10%')
   */
  upstreamBudgetHeadroom?: Headroom;
  /**
   * Server-side sessions (docs/sessions.md): lifetimes (SESSION_IDLE, SESSION_MAX), the clock, and
   * the secret the store's keys and encryption derive from (GATEWAY_SECRET; cluster mode's secret
   * when not given). In cluster mode sessions are kept in Redis. @default lifetimes 7 and 30 days
   */
  sessions?: Omit<SessionsOptions, 'store'>;
  /** The clock of the credentials' buckets (upstream/bucket.ts): tests drive the rate-limit window. @default the system clock */
  budgetClock?: BucketClock;
  /**
   * Upstream calls the anonymous operations of one client address may make a minute; over it,
   * UPSTREAM_BUDGET_EXCEEDED before any call. (Logins, each a password attempt, have their own
   * LOGIN_ATTEMPTS_PER_MINUTE per address, whatever credentials came with them.)
   * @default DEFAULT_ANONYMOUS_RATE_LIMIT (60)
   */
  anonymousRateLimit?: number;
  /** Peers (proxies, load balancers) whose `X-Forwarded-For` names the client (client-address.ts). @default none */
  trustedProxies?: readonly string[];
  /**
   * Stamps on every answer and `changes(since:)` (docs/mobile-sync.md): per credential, a change
   * log fed by its event queue (in Redis in cluster mode), retained `retentionMs` after the
   * credential last used a stamp. false: no stamps, and `changes` is refused.
   * @default {} (DEFAULT_SYNC_RETENTION_MS, DEFAULT_SYNC_MAX_BYTES)
   */
  sync?: SyncOptions | false;
}

export type Gateway = YogaServerInstance<Record<string, never>, Context> & {
  /** GraphQL subscriptions served now (not channel subscriptions), for tests and metrics. */
  readonly graphqlSubscriptions: GraphQLSubscriptionSharing;
  /** The `@live` queries served now (`stats()`: open queries, executions, invalidations). */
  readonly liveQueries: LiveQueries;
  /** The live directories (`stats()` for metrics); undefined when `liveDirectory: false`. */
  readonly directories: LiveDirectories | undefined;
  /** The event hub: shutdown ends every subscription (and deletes the queues) before draining. */
  readonly hub: EventHub;
  /** The allowed chat servers (`ZULIP_SERVERS`), one `UpstreamServer` each (upstream/servers.ts). */
  readonly servers: UpstreamServers;
  /** The change logs behind stamps and `changes(since:)`; undefined when `sync: false`. */
  readonly sync: SyncLogs | undefined;
  /** The sessions (sessions/sessions.ts): in memory, or in Redis in cluster mode. */
  readonly sessions: Sessions;
  /** What transports outside yoga's HTTP pipeline (graphql-ws) need to behave the same. */
  readonly transport: {
    metrics: GatewayMetrics | undefined;
    logger: Logger | undefined;
    /** The persisted-operations rule (`apq`/`trusted`): the params to run, or a GraphQLError thrown. */
    resolveParams: ((params: GraphQLParams) => GraphQLParams) | undefined;
    /** The request body limit, which bounds each WebSocket message too. */
    maxRequestBodyBytes: number;
    /** Whether a browser upgrade from `origin` to `host` may be served (CORS_ORIGINS; sessions/cookie.ts). */
    originAllowed: (origin: string, host: string | undefined, withCookie: boolean) => boolean;
  };
};

/**
 * HTTP requests carry credentials in their Authorization header, or a session in its cookie or a
 * bearer token; graphql-ws operations run through `gateway.getEnveloped({ ...wsContext, ... })`
 * (yoga's recipe, transport/ws.ts), whose context has the socket's credentials, read once from its
 * `connection_init` payload, as `sentCredentials` (and its session as `sentSession`), and no fetch
 * Request. A request with a session resolves it first (the store may be Redis): its context is
 * that of the session's account.
 */
function gatewayContext(
  initial: {
    request?: { headers: Pick<Headers, 'get'> };
    sentCredentials?: SentCredentials;
    sentSession?: SentSession;
    req?: { headers: Record<string, string | string[] | undefined> };
  },
  servers: UpstreamServers,
  sessions: Sessions,
  cookies: SessionCookies,
): Context | Promise<Context> {
  // `initial` is the GraphQL context object itself (envelop extends it in place): upstream calls
  // read the request id and the operation's trace context from it when they are made.
  let sessionRequest: SessionRequest;
  if ('sentCredentials' in initial) {
    const headers = initial.req?.headers ?? {};
    sessionRequest = {
      sessions,
      sent: initial.sentSession,
      browser: headers.origin !== undefined || headers.cookie !== undefined,
      loopback: isLoopbackHost(typeof headers.host === 'string' ? headers.host : undefined),
      setCookie: undefined,
    };
  } else {
    const request = initial.request!;
    const headers = request.headers;
    sessionRequest = {
      sessions,
      sent: sentSessionOf({ authorization: headers.get('authorization'), cookie: headers.get('cookie') }),
      browser: headers.get('origin') !== null || headers.get('cookie') !== null,
      loopback: isLoopbackHost(headers.get('host')),
      setCookie: (value) => cookies.add(request, value),
    };
  }
  if (sessionRequest.sent) return sessionContext(servers, sessionRequest, sessionRequest.sent, initial);
  const upstream = servers.default;
  const context =
    'sentCredentials' in initial
      ? contextFor(upstream, initial.sentCredentials, initial)
      : createContext({ request: initial.request!, upstream, observation: initial });
  context.sessionRequest = sessionRequest;
  context.servers = servers;
  return context;
}

/**
 * The context of a request on a session: its first account's credentials on that account's own
 * server (the other accounts' fields get theirs: accounts.ts), or why there are none.
 */
async function sessionContext(servers: UpstreamServers, sessionRequest: SessionRequest, sent: SentSession, observation: object): Promise<Context> {
  const upstream = servers.default;
  const session = await sessionRequest.sessions.resolve(sent.token).catch((error: unknown) => error as Error);
  let context: Context;
  if (session instanceof Error) {
    context = contextFromCredentials(upstream, undefined, 'Redis (cluster mode) is unreachable; the session could not be read. Retry shortly.', observation);
    context.credentialsProblemCode = GatewayErrorCode.redisUnavailable;
  } else if (!session) {
    context = contextFromCredentials(upstream, undefined, 'The session is not valid (unknown, expired or signed out): sign in again.', observation);
    context.credentialsProblemCode = GatewayErrorCode.sessionInvalid;
  } else {
    // An account whose server has left ZULIP_SERVERS is skipped: no connection goes outside the list.
    const account = session.accounts.find((a) => servers.get(a.server));
    if (account) {
      context = contextFromCredentials(servers.get(account.server)!, account.credentials(), undefined, observation);
    } else if (session.accounts.length > 0) {
      context = contextFromCredentials(upstream, undefined, 'None of the session\'s accounts is on a chat server this gateway serves (ZULIP_SERVERS): sign in again.', observation);
      context.credentialsProblemCode = GatewayErrorCode.serverNotAllowed;
    } else {
      const revoked = session.revoked.at(-1);
      context = contextFromCredentials(upstream, undefined, 'The chat server no longer accepts the session\'s account (a regenerated API key or a deactivated user): sign in again.', observation);
      context.credentialsProblemCode = revoked ? GatewayErrorCode.accountRevoked : GatewayErrorCode.sessionInvalid;
    }
    context.session = session;
  }
  context.sessionRequest = sessionRequest;
  context.servers = servers;
  return context;
}

export function createGateway(options: GatewayOptions): Gateway {
  if (options.eventHub && options.slowConsumerLimit !== undefined) {
    throw new Error('slowConsumerLimit is the event hub\'s: give it to the EventHub passed as eventHub.');
  }
  const hub =
    options.eventHub ??
    new EventHub({
      ...(options.slowConsumerLimit !== undefined && { slowConsumerLimit: options.slowConsumerLimit }),
      ...(options.cluster && { cluster: new EventCluster(options.cluster) }),
    });
  const sharing = useSharedSubscriptions({
    ...(options.shareSubscriptions !== undefined && { share: options.shareSubscriptions }),
    slowConsumerLimit: hub.slowConsumerLimit,
    ...(options.maxSubscriptionsPerCredential !== undefined && { maxPerCredential: options.maxSubscriptionsPerCredential }),
  });
  const { logger, metrics, tracing, liveDirectory, messageCache = true } = options;
  // One UpstreamServer per allowed server (upstream/servers.ts), all built alike: the default one
  // now, the others when an account on them is first used.
  const sessions = createSessions(options, hub);
  const makeServer = ({ baseUrl, defaultCredentials }: { baseUrl: string; defaultCredentials?: Credentials }): UpstreamServer => {
    const server: UpstreamServer = new UpstreamServer({
      baseUrl,
      ...(options.fetch && { fetch: options.fetch }),
      ...(defaultCredentials && { defaultCredentials }),
      ...(options.upstreamDeadlineMs !== undefined && { deadlineMs: options.upstreamDeadlineMs }),
      ...(options.uploadIdleMs !== undefined && { uploadIdleMs: options.uploadIdleMs }),
      ...(options.userIdsBatchThreshold !== undefined && { userIdsBatchThreshold: options.userIdsBatchThreshold }),
      ...(options.upstreamBudgetHeadroom !== undefined && { headroom: options.upstreamBudgetHeadroom }),
      ...(options.budgetClock && { budgetClock: options.budgetClock }),
      ...(options.anonymousRateLimit !== undefined && { anonymousRateLimit: options.anonymousRateLimit }),
      ...(options.trustedProxies && { trustedProxies: options.trustedProxies }),
      ...(liveDirectory !== false && {
        directories: (connection, inputLimits) => {
          const directories = new LiveDirectories(hub, connection, {
            ...(liveDirectory === true ? {} : liveDirectory),
            messageCache: messageCache !== false && {
              ...(messageCache === true ? {} : messageCache),
              onUnusable: (reason) => metrics?.cacheUnusable(reason),
              onDrop: (reason, count) => metrics?.cacheDrops(reason, count),
            },
            onLoadFailure: (failure) => {
              metrics?.directoryLoadFailure(failure.reason);
              if (failure.first) logger?.warn({ credential: failure.credential, reason: failure.reason, missingKeys: failure.missingKeys }, 'live directory not loaded: lookups of this credential go upstream');
            },
          });
          directories.onRegistered = (response) => learnInputLimits(inputLimits, response);
          return directories;
        },
      }),
      revocations: (connection, directories): CredentialRevocations => {
        const revocations: CredentialRevocations = new CredentialRevocations({
          hub,
          directories,
          connection,
          ...(options.credentialRecheckMs !== undefined && { recheckMs: options.credentialRecheckMs }),
          // A check spends a token of the credential's bucket, and waits while it holds none.
          spendCall: (key, anyway): boolean => {
            const bucket = server.buckets.for(key);
            const token = bucket.reserve(1);
            if (!('spend' in token)) {
              if (anyway) bucket.record();
              return anyway;
            }
            token.spend();
            token.release();
            return true;
          },
        });
        if (directories) directories.trusted = (key) => revocations.trusted(key);
        return revocations;
      },
      observe: (observation, route, method) => upstreamObserver({ metrics, tracing }, observation as RequestObservation)(route, method),
    });
    // A credential the chat server refused leaves every session holding it (revocation.ts).
    server.revocations?.onPurged(({ baseUrl, credentials }) => {
      if (credentials) void sessions.revokeCredential(serverAddress(baseUrl) ?? baseUrl, credentials).catch(() => undefined);
    });
    return server;
  };
  const upstream = makeServer({ baseUrl: options.zulipUrl, ...(options.defaultCredentials && { defaultCredentials: options.defaultCredentials }) });
  const servers = new UpstreamServers(upstream, options.zulipServers ?? [], makeServer);
  const directories = upstream.directories;
  const cookies = new SessionCookies();
  const corsOrigins = options.corsOrigins ?? [];
  const estimates = new UpstreamEstimates();
  // The queues' polls and registrations (the live directories' loads) spend the credential's bucket.
  hub.gate = (connection) => (servers.get(connection.baseUrl) ?? upstream).buckets.for(connection.credentialKey);
  const sync = options.sync === false ? undefined : new SyncLogs(hub, upstream.connection, directories, options.sync);
  // A refused credential's change log goes with everything else held for it (revocation.ts).
  if (sync) upstream.revocations?.onPurged((connection) => sync.purge(connection));
  const live = new LiveQueries(hub, { ...(options.liveQueryThrottleMs !== undefined && { throttleMs: options.liveQueryThrottleMs }) });
  if (metrics) collectGatewayStats(metrics, { hub, directories });
  const persisted = usePersistedOperations(options.persistedOperations);
  const maxRequestBodyBytes = options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const graphiql = options.graphiql ?? true;
  const yoga = createYoga<Record<string, never>, Context>({
    schema: options.subgraph ? buildSubgraphSchema() : buildSchema(),
    context: (initial) => gatewayContext(initial, servers, sessions, cookies),
    graphiql: graphiql && graphiqlOptions({ csrfHeader: CSRF_HEADER, ...(typeof graphiql === 'object' && graphiql) }),
    renderGraphiQL: packagedGraphiQLRenderer(),
    logging: logger ? yogaLogger(logger) : (options.logging ?? true),
    cors: corsOptions(options.corsOrigins ?? []),
    // yoga would answer /health itself (an empty 200) before any plugin: ours is observability/endpoints.ts.
    healthCheckEndpoint: YOGA_HEALTH_CHECK_ENDPOINT,
    landingPage: false,
    // Bodies are bounded by our own plugin below (plugins/body-limit.ts says why).
    maxRequestBodySize: false,
    maskedErrors: MASKED_ERRORS,
    // Bounded in bytes, large documents never cached (plugins/parse-cache.ts says why).
    parserAndValidationCache: boundedParseCache(),
    // Hooks run in this order; `gateway.dispose()` runs the disposers last-in first-out: the event
    // hub first (every subscription ends, every upstream queue is deleted), then the upstream
    // keep-alive pool, which those deletions still need.
    plugins: [
      { onDispose: () => upstream.close() },
      // After the default server's pool in the list, so disposed before it; after the hub's, which
      // still deletes those servers' queues.
      { onDispose: () => servers.closeOthers() },
      { onDispose: () => upstream.revocations?.close() },
      // First: every later hook (and every log line) has the request id.
      useRequestId(logger),
      // Before yoga's masking (added after these plugins): bugs are logged with their stacks.
      ...(logger ? [useLogging(logger)] : []),
      ...(metrics || options.endpoints ? [useMetrics(metrics, options.endpoints)] : []),
      // Off (no exporter configured): not in the chain at all.
      ...(tracing?.enabled ? [useTracing(tracing)] : []),
      ...(persisted ? [persisted.plugin] : []),
      // Every refusal coded (plugins/refusals.ts): a method first, then the body and CSRF checks,
      // then a content type yoga does not read.
      useMethodRefusal(),
      useBodyLimit(maxRequestBodyBytes),
      useCsrfPrevention(),
      useSessions({ sessions, cookies, corsOrigins }),
      useCodedRefusals(),
      // GraphQL multipart requests (file uploads), streamed instead of read whole: after yoga's own parsers.
      useUploads(maxRequestBodyBytes),
      // Before anything walks the variables (graphql's coercion recurses), then the document limits,
      // then what refuses an operation before it runs: nothing upstream for any of them.
      useVariablesDepthLimit(),
      // `@defer` and `@stream`: incremental delivery over multipart HTTP and SSE.
      useDeferStream(),
      useOperationLimits(),
      useCredentialCheck(),
      useInputBounds(),
      useUpstreamBudget({
        ...(options.maxUpstreamCalls !== undefined && { maxCalls: options.maxUpstreamCalls }),
        directories,
        estimates,
      }),
      useDeadline(options.upstreamDeadlineMs),
      useUpstreamReport(),
      useEventHub(hub),
      // After the hub in the list, so disposed before it: retained sessions are released first.
      ...(sync ? [useSync(sync)] : []),
      // After the hub in the list, so disposed before it: directories release their queues first.
      ...(directories ? [useDirectoryWrites(directories, hub.cluster, options.upstreamDeadlineMs ?? DEFAULT_UPSTREAM_DEADLINE_MS), { onDispose: () => directories.close() }] : []),
      // Queries and mutations compiled once per document; not the subgraph's, whose `_entities`
      // fails entries one by one (plugins/compiled-execution.ts says why that matters).
      ...(options.subgraph || options.compiledExecution === false ? [] : [useCompiledExecution()]),
      // `@live` queries: they follow the hub's sessions and count toward the subscription limit.
      useLiveQueries({ live, admit: sharing.admit, estimates, directories, deadlineMs: options.upstreamDeadlineMs ?? DEFAULT_UPSTREAM_DEADLINE_MS }),
      // Last, so that the subscribe function it wraps is the final one.
      sharing,
      // After every plugin that answers or rewrites a response: it compresses the final one.
      ...(options.compression === false ? [] : [compressAnswers(options.compression)]),
    ],
  });
  return Object.assign(yoga, {
    graphqlSubscriptions: sharing.sharing,
    liveQueries: live,
    directories,
    hub,
    servers,
    sync,
    sessions,
    transport: {
      metrics,
      logger,
      resolveParams: persisted?.resolve,
      maxRequestBodyBytes,
      originAllowed: (origin: string, host: string | undefined, withCookie: boolean) => originAllowed(origin, host, corsOrigins, withCookie),
    },
  });
}

/** The sessions: in Redis when the hub is in cluster mode (any instance serves any session), else in memory. */
function createSessions(options: GatewayOptions, hub: EventHub): Sessions {
  const cluster = hub.cluster;
  const secret = options.sessions?.secret ?? options.cluster?.secret ?? cluster?.secret;
  if (!cluster) return new Sessions({ ...options.sessions, ...(secret !== undefined && { secret }) });
  const prefix = options.cluster?.keyPrefix ?? cluster.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const store = new RedisSessionStore(cluster.redis, prefix, options.sessions?.maxMs ?? DEFAULT_SESSION_MAX_MS);
  return new Sessions({ ...options.sessions, ...(secret !== undefined && { secret }), store });
}
