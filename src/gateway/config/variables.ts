/**
 * The one table of environment variables. `--help` and docs/configuration.md's table are rendered
 * from it (test/gateway/config.test.ts checks the docs list every one), and `loadConfig` can read
 * only names listed here. A default is never spelled here: it is the exported constant of the
 * module it configures (read below), so the table, `loadConfig` and the module cannot disagree.
 */
import { DEFAULT_KEY_PREFIX } from '../cluster/keys.js';
import { DEFAULT_FAILOVER_MS } from '../cluster/redis.js';
import { DEFAULT_MESSAGE_CACHE_MAX_BYTES } from '../directory/messages/cache.js';
import { DEFAULT_DIRECTORY_IDLE_MS, DEFAULT_DIRECTORY_MAX_BYTES } from '../directory/registry.js';
import { DEFAULT_SLOW_CONSUMER_LIMIT } from '../events/hub.js';
import { DEFAULT_LIVE_QUERY_THROTTLE_MS } from '../live/queries.js';
import { DEFAULT_CREDENTIAL_RECHECK_MS } from '../revocation.js';
import { DEFAULT_SESSION_IDLE_MS, DEFAULT_SESSION_MAX_MS } from '../sessions/sessions.js';
import { DEFAULT_USER_IDS_BATCH_THRESHOLD } from '../loaders/users.js';
import { DEFAULT_METRICS_PATH } from '../observability/endpoints.js';
import { DEFAULT_READINESS_CACHE_MS } from '../observability/readiness.js';
import { MAX_REQUEST_BODY_BYTES } from '../plugins/body-limit.js';
import { DEFAULT_UPSTREAM_DEADLINE_MS } from '../plugins/deadline.js';
import { DEFAULT_APQ_MAX_ENTRIES } from '../plugins/persisted-operations.js';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL } from '../plugins/share-subscriptions.js';
import { DEFAULT_COMPRESSION_MIN_BYTES } from '../plugins/compression.js';
import { DEFAULT_SYNC_MAX_BYTES, DEFAULT_SYNC_RETENTION_MS } from '../sync/logs.js';
import { DEFAULT_DRAIN_MS, DEFAULT_HOST, DEFAULT_PORT, SERVER_LIMITS } from '../transport/http.js';
import { DEFAULT_ANONYMOUS_RATE_LIMIT, DEFAULT_MAX_UPSTREAM_CALLS, DEFAULT_UPSTREAM_BUDGET_HEADROOM, LOGIN_ATTEMPTS_PER_MINUTE } from '../upstream/budget.js';
import { DEFAULT_LOG_LEVEL, DEFAULT_PERSISTED_OPERATIONS, DEFAULT_SERVICE_NAME, NODE_ENVS } from './defaults.js';

export interface Variable {
  name: string;
  /** As shown to operators; `(none)` when unset means "off" or "not used". */
  default: string;
  meaning: string;
  /** Never echoed in messages or logs. */
  secret?: boolean;
  /** An old name still read for one release (a warning is logged): the variable that replaces it. */
  replacedBy?: string;
}

export const VARIABLES: readonly Variable[] = [
  { name: 'PORT', default: String(DEFAULT_PORT), meaning: 'Port of the GraphQL endpoint (0 picks a free one).' },
  { name: 'HOST', default: DEFAULT_HOST, meaning: 'Interface to listen on (0.0.0.0 or :: for all).' },
  { name: 'ZULIP_URL', default: '(none)', meaning: 'The default chat server, e.g. https://chat.example.com (without /api/v1): where Authorization: Basic goes. Required unless ZULIP_SERVERS is set, DEMO is on or NODE_ENV is not production.' },
  { name: 'ZULIP_SERVERS', default: '(none: ZULIP_URL alone)', meaning: 'Comma-separated allow-list of chat server addresses a session\'s accounts may be on (docs/accounts.md); no connection is made to any other. The first is the default server unless ZULIP_URL names one of them.' },
  { name: 'DEMO', default: 'off (`npm start` sets it on)', meaning: 'Without ZULIP_URL, serve the demo organization from the embedded emulator and print its owner\'s credential (on/off). Ignored when ZULIP_URL is set.' },
  { name: 'ZULIP_EMAIL', default: '(none)', meaning: 'Default identity for requests without Authorization (with ZULIP_API_KEY; both or neither).' },
  { name: 'ZULIP_API_KEY', default: '(none)', meaning: 'API key of ZULIP_EMAIL.', secret: true },
  { name: 'NODE_ENV', default: 'production', meaning: `${NODE_ENVS.join(', ')}. Outside production: graphql-js development checks, GraphiQL on, and the demo without DEMO when ZULIP_URL is unset.` },
  { name: 'LOG_LEVEL', default: DEFAULT_LOG_LEVEL, meaning: 'fatal, error, warn, info, debug, trace or silent. JSON lines on stdout.' },
  { name: 'UPSTREAM_DEADLINE_MS', default: String(DEFAULT_UPSTREAM_DEADLINE_MS), meaning: 'Deadline shared by every call to the chat server that one query or mutation makes, retries included; past it they fail with UPSTREAM_TIMEOUT. A subscription\'s calls get this long each.' },
  { name: 'DRAIN_MS', default: String(DEFAULT_DRAIN_MS), meaning: 'On SIGTERM, how long requests in flight may finish before connections are cut.' },
  { name: 'HEADERS_TIMEOUT_MS', default: String(SERVER_LIMITS.headersTimeoutMs), meaning: 'How long a request\'s headers may take to arrive (from the connection\'s start, or the previous request\'s end); past it 408 REQUEST_TIMEOUT and the connection closes. Bounds slow-drip clients.' },
  { name: 'REQUEST_TIMEOUT_MS', default: String(SERVER_LIMITS.requestTimeoutMs), meaning: 'How long a whole request (headers and body) may take to arrive; 408 REQUEST_TIMEOUT past it. At least HEADERS_TIMEOUT_MS. Responses (SSE streams included) are not bounded by it.' },
  { name: 'KEEP_ALIVE_TIMEOUT_MS', default: String(SERVER_LIMITS.keepAliveTimeoutMs), meaning: 'How long a connection may stay idle between requests. Behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (e.g. 65000 for a 60 s one).' },
  { name: 'LINGER_MS', default: String(SERVER_LIMITS.lingerMs), meaning: 'After answering a request before its body arrived whole (e.g. 413), how long the connection reads and discards the rest so the client can read the answer.' },
  { name: 'LINGER_MAX_BYTES', default: String(SERVER_LIMITS.lingerMaxBytes), meaning: 'The same lingering connection is cut once it has read this many bytes in all.' },
  { name: 'MAX_CONNECTIONS', default: String(SERVER_LIMITS.maxConnections), meaning: 'Connections one instance holds at once, WebSockets included; over it a connection is answered 503 TOO_MANY_CONNECTIONS (Retry-After: 1) and closed. Keep it below the process\'s file descriptor limit.' },
  { name: 'MAX_BODY_BYTES', default: String(MAX_REQUEST_BODY_BYTES), meaning: 'Largest request body or graphql-ws message accepted, in bytes (HTTP 413, WebSocket close 1009 above).' },
  { name: 'MAX_SUBSCRIPTIONS_PER_CREDENTIAL', default: String(DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL), meaning: 'Subscriptions and `@live` queries one credential may have open on one instance, all transports together; the next is refused with TOO_MANY_SUBSCRIPTIONS.' },
  { name: 'CREDENTIAL_RECHECK_S', default: String(DEFAULT_CREDENTIAL_RECHECK_MS / 1000), meaning: 'Longest time, in seconds, a credential the gateway follows (live directory, subscriptions, `@live`) goes without the chat server accepting it: then it is checked upstream (GET /users/me, within its budget), and not served from the directory until a check succeeds. Bounds how long a key regenerated outside chatgraph (Zulip sends no event for it) is still served.' },
  { name: 'LIVE_QUERY_THROTTLE_MS', default: String(DEFAULT_LIVE_QUERY_THROTTLE_MS), meaning: 'Least time between two executions of one `@live` query, in milliseconds: changes within it are folded into one re-execution. A client\'s `@live(throttle:)` may only raise it.' },
  { name: 'SLOW_CONSUMER_LIMIT', default: String(DEFAULT_SLOW_CONSUMER_LIMIT), meaning: 'Events or results one subscription may have waiting to be sent; a client that falls further behind gets SLOW_CONSUMER and resubscribes with its last cursor.' },
  { name: 'CORS_ORIGINS', default: '(none)', meaning: 'Comma-separated browser origins allowed cross-origin, with credentials. `*` alone: any origin, never with credentials. Unset: no cross-origin access.' },
  { name: 'GRAPHIQL', default: 'off in production, on in the demo and outside production', meaning: 'Serve GraphiQL on GET /graphql from a browser (on/off).' },
  { name: 'METRICS', default: 'on', meaning: 'Serve Prometheus metrics (on/off).' },
  { name: 'METRICS_PATH', default: DEFAULT_METRICS_PATH, meaning: 'Path of the Prometheus endpoint.' },
  { name: 'METRICS_PORT', default: '(none)', meaning: 'Serve metrics (and health) on this port instead of PORT, e.g. to keep them off the public interface.' },
  { name: 'READINESS_CACHE_MS', default: String(DEFAULT_READINESS_CACHE_MS), meaning: 'How long /readiness reuses the last check of the chat server (GET /server_settings).' },
  { name: 'OTEL_TRACES_EXPORTER', default: 'otlp when an endpoint is set, else none', meaning: 'otlp, console or none. Tracing is off unless this or an OTLP endpoint is set.' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', default: '(none)', meaning: 'OTLP/HTTP collector base URL; traces go to <endpoint>/v1/traces.' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', default: '(none)', meaning: 'Full OTLP/HTTP traces URL (overrides the base endpoint).' },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', default: '(none)', meaning: 'Headers for the collector, key=value pairs separated by commas.', secret: true },
  { name: 'OTEL_SERVICE_NAME', default: DEFAULT_SERVICE_NAME, meaning: 'service.name of the spans.' },
  { name: 'OTEL_TRACES_SAMPLER_ARG', default: '1', meaning: 'Fraction of new traces sampled (0 to 1); a client traceparent\'s decision is kept.' },
  { name: 'SUBGRAPH', default: 'false', meaning: 'Serve the Apollo Federation subgraph schema (for a router). Refuses default credentials.' },
  { name: 'PERSISTED_OPERATIONS', default: DEFAULT_PERSISTED_OPERATIONS, meaning: 'off; apq (automatic persisted queries, bounded in-memory store); or trusted (only operations of PERSISTED_OPERATIONS_FILE).' },
  { name: 'PERSISTED_OPERATIONS_FILE', default: '(none)', meaning: 'Trusted-documents manifest: graphql-codegen persisted-documents.json or a Relay persisted-queries JSON.' },
  { name: 'APQ_MAX_ENTRIES', default: String(DEFAULT_APQ_MAX_ENTRIES), meaning: 'Most automatic persisted queries kept (least recently used dropped).' },
  { name: 'REDIS_URL', default: '(none)', meaning: 'redis:// or rediss:// URL: cluster mode (several gateway instances share event queues and subscriptions).', secret: true },
  { name: 'GATEWAY_SECRET', default: '(none)', meaning: 'At least 32 characters, the same on every instance; keys shared state without revealing credentials, and encrypts the sessions\' credentials (unset with one instance: a random key, sessions end with the process). Required with REDIS_URL.', secret: true },
  { name: 'SESSION_IDLE', default: `${DEFAULT_SESSION_IDLE_MS / 86_400_000}d`, meaning: 'A session (signIn, docs/sessions.md) ends after this long without use: a duration such as 7d, 12h, 30m, or seconds.' },
  { name: 'SESSION_MAX', default: `${DEFAULT_SESSION_MAX_MS / 86_400_000}d`, meaning: 'A session ends this long after sign-in, however used (at least SESSION_IDLE).' },
  { name: 'REDIS_KEY_PREFIX', default: DEFAULT_KEY_PREFIX, meaning: 'Prefix of every Redis key (cluster mode), to share one Redis between deployments.' },
  { name: 'CLUSTER_FAILOVER_MS', default: String(DEFAULT_FAILOVER_MS), meaning: 'Cluster mode: how soon another instance takes over the event queue of an instance that died (100 to 600000).' },
  { name: 'LIVE_DIRECTORY', default: 'on', meaning: 'Keep users, channels and groups current from the event queue instead of fetching them per request (on/off).' },
  { name: 'LIVE_DIRECTORY_IDLE_MS', default: String(DEFAULT_DIRECTORY_IDLE_MS), meaning: 'A credential\'s directory (and its event queue) is dropped after this long without requests.' },
  { name: 'LIVE_DIRECTORY_MAX_BYTES', default: String(DEFAULT_DIRECTORY_MAX_BYTES), meaning: 'Estimated memory cap of all directories; the least recently used are dropped above it.' },
  { name: 'MAX_UPSTREAM_CALLS', default: String(DEFAULT_MAX_UPSTREAM_CALLS), meaning: 'Upstream calls one query or mutation may be estimated to make (before it runs, from its fields, arguments and the live directory); over it, UPSTREAM_BUDGET_EXCEEDED before any call.' },
  { name: 'UPSTREAM_BUDGET_HEADROOM', default: String(DEFAULT_UPSTREAM_BUDGET_HEADROOM), meaning: 'What no operation may spend of its credential\'s remaining rate-limit budget (X-RateLimit-Remaining), so the user\'s other clients keep working: a number of calls, or a percentage of the advertised limit.' },
  { name: 'ANONYMOUS_RATE_LIMIT', default: String(DEFAULT_ANONYMOUS_RATE_LIMIT), meaning: 'Upstream calls the anonymous operations of one client address may make a minute; over it, UPSTREAM_BUDGET_EXCEEDED with retryAfter before any call. Logins (each alias a password attempt) have their own ' + LOGIN_ATTEMPTS_PER_MINUTE + ' a minute per address, with or without credentials.' },
  { name: 'TRUSTED_PROXIES', default: '(none)', meaning: 'Comma-separated addresses of the proxies in front of the gateway: only from them is X-Forwarded-For read for the client\'s address (the anonymous limit). Empty: the peer\'s own address counts.' },
  { name: 'MESSAGE_CACHE', default: 'on', meaning: 'Keep the message windows queries fetched (GET /messages) current from the same event queue, so a repeated query costs no upstream call (on/off). Needs LIVE_DIRECTORY.' },
  { name: 'MESSAGE_CACHE_MAX_BYTES', default: String(DEFAULT_MESSAGE_CACHE_MAX_BYTES), meaning: 'Estimated memory cap of all cached message windows; the least recently used are dropped above it.' },
  { name: 'LIVE_CACHE', default: '(none)', meaning: 'Old name of MESSAGE_CACHE, read for one release (a warning is logged).', replacedBy: 'MESSAGE_CACHE' },
  { name: 'LIVE_CACHE_MAX_BYTES', default: '(none)', meaning: 'Old name of MESSAGE_CACHE_MAX_BYTES, read for one release (a warning is logged).', replacedBy: 'MESSAGE_CACHE_MAX_BYTES' },
  { name: 'SYNC_RETENTION_MS', default: String(DEFAULT_SYNC_RETENTION_MS), meaning: 'How long a credential that used a stamp keeps its event queue, live directory and change log, so that `changes(since:)` answers with no upstream call (docs/mobile-sync.md); past it, `resyncRequired`.' },
  { name: 'SYNC_MAX_BYTES', default: String(DEFAULT_SYNC_MAX_BYTES), meaning: 'Estimated memory cap of all change logs; the least recently used are dropped above it (their stamps then need a resync).' },
  { name: 'COMPILED_EXECUTION', default: 'on', meaning: 'Run queries and mutations as code compiled once per document (graphql-jit) instead of graphql\'s interpreter; documents it cannot run as graphql-js would (subscriptions, @defer, @stream, @live, several operations) are interpreted anyway (on/off).' },
  { name: 'COMPRESSION', default: 'on', meaning: 'Compress answers with brotli or gzip, as the client\'s Accept-Encoding asks: whole answers from COMPRESSION_MIN_BYTES, SSE and multipart streams always, flushed per event (on/off).' },
  { name: 'COMPRESSION_MIN_BYTES', default: String(DEFAULT_COMPRESSION_MIN_BYTES), meaning: 'Shortest whole answer that is compressed; shorter ones are sent as they are.' },
  { name: 'WS_PERMESSAGE_DEFLATE', default: 'off', meaning: 'Offer WebSocket permessage-deflate to graphql-ws clients; it costs memory per connection (docs/clients.md, "Compression") (on/off).' },
  { name: 'USER_IDS_BATCH_THRESHOLD', default: String(DEFAULT_USER_IDS_BATCH_THRESHOLD), meaning: 'Below Zulip feature level 384 (no user_ids filter), batches of at most this many users are fetched one by one, larger ones as the whole user list.' },
];

const NAMES = new Set(VARIABLES.map((v) => v.name));

/**
 * Reads a documented variable: empty counts as unset. Reading an undocumented name is a bug in
 * this module, caught by the config test.
 */
export function reader(env: NodeJS.ProcessEnv): (name: string) => string | undefined {
  return (name) => {
    if (!NAMES.has(name)) throw new Error(`undocumented configuration variable ${name}`);
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  };
}

/** The table as Markdown (docs/configuration.md). */
export function variablesMarkdown(): string {
  const rows = VARIABLES.map((v) => `| \`${v.name}\` | ${v.default} | ${v.meaning} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `--help` output. */
export function helpText(): string {
  const width = Math.max(...VARIABLES.map((v) => v.name.length));
  const lines = VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning} [default: ${v.default}]`);
  return [
    'chatgraph: a GraphQL gateway for chat servers that speak the Zulip REST API.',
    '',
    'Usage: node dist/main.js [--help]   (or npm start)',
    '',
    'Configuration is read from the environment and checked at startup:',
    ...lines,
    '',
  ].join('\n');
}
