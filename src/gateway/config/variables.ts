/**
 * The one table of environment variables. `--help` and the README's configuration table are
 * rendered from it (test/gateway/config.test.ts checks the README lists every one), and
 * `loadConfig` can read only names listed here.
 */

export interface Variable {
  name: string;
  /** As shown to operators; `(none)` when unset means "off" or "not used". */
  default: string;
  meaning: string;
  /** Never echoed in messages or logs. */
  secret?: boolean;
}

export const VARIABLES: readonly Variable[] = [
  { name: 'PORT', default: '4000', meaning: 'Port of the GraphQL endpoint (0 picks a free one).' },
  { name: 'HOST', default: '127.0.0.1', meaning: 'Interface to listen on (0.0.0.0 or :: for all).' },
  { name: 'ZULIP_URL', default: '(none)', meaning: 'Chat server origin, e.g. https://chat.example.com. Unset: demo mode with the embedded emulator.' },
  { name: 'ZULIP_EMAIL', default: '(none)', meaning: 'Default identity for requests without Authorization (with ZULIP_API_KEY; both or neither).' },
  { name: 'ZULIP_API_KEY', default: '(none)', meaning: 'API key of ZULIP_EMAIL.', secret: true },
  { name: 'NODE_ENV', default: 'production', meaning: 'graphql-js development checks unless `production`; GraphiQL defaults off in production.' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent. JSON lines on stdout.' },
  { name: 'UPSTREAM_DEADLINE_MS', default: '10000', meaning: 'Deadline shared by every call to the chat server that one query or mutation makes, retries included; past it they fail with UPSTREAM_TIMEOUT. A subscription\'s calls get this long each.' },
  { name: 'DRAIN_MS', default: '10000', meaning: 'On SIGTERM, how long requests in flight may finish before connections are cut.' },
  { name: 'HEADERS_TIMEOUT_MS', default: '10000', meaning: 'How long a request\'s headers may take to arrive (from the connection\'s start, or the previous request\'s end); past it 408 REQUEST_TIMEOUT and the connection closes. Bounds slow-drip clients.' },
  { name: 'REQUEST_TIMEOUT_MS', default: '30000', meaning: 'How long a whole request (headers and body) may take to arrive; 408 REQUEST_TIMEOUT past it. At least HEADERS_TIMEOUT_MS. Responses (SSE streams included) are not bounded by it.' },
  { name: 'KEEP_ALIVE_TIMEOUT_MS', default: '5000', meaning: 'How long a connection may stay idle between requests. Behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (e.g. 65000 for a 60 s one).' },
  { name: 'LINGER_MS', default: '5000', meaning: 'After answering a request before its body arrived whole (e.g. 413), how long the connection reads and discards the rest so the client can read the answer.' },
  { name: 'LINGER_MAX_BYTES', default: '8000000', meaning: 'The same lingering connection is cut once it has read this many bytes in all.' },
  { name: 'MAX_CONNECTIONS', default: '10000', meaning: 'Connections one instance holds at once, WebSockets included; over it a connection is answered 503 TOO_MANY_CONNECTIONS (Retry-After: 1) and closed. Keep it below the process\'s file descriptor limit.' },
  { name: 'MAX_BODY_BYTES', default: '2000000', meaning: 'Largest request body or graphql-ws message accepted, in bytes (HTTP 413, WebSocket close 1009 above).' },
  { name: 'MAX_SUBSCRIPTIONS_PER_CREDENTIAL', default: '200', meaning: 'Subscriptions and `@live` queries one credential may have open on one instance, all transports together; the next is refused with TOO_MANY_SUBSCRIPTIONS.' },
  { name: 'LIVE_QUERY_THROTTLE_MS', default: '50', meaning: 'Least time between two executions of one `@live` query, in milliseconds: changes within it are folded into one re-execution. A client\'s `@live(throttle:)` may only raise it.' },
  { name: 'SLOW_CONSUMER_LIMIT', default: '1000', meaning: 'Events or results one subscription may have waiting to be sent; a client that falls further behind gets SLOW_CONSUMER and resubscribes with its last cursor.' },
  { name: 'CORS_ORIGINS', default: '(none)', meaning: 'Comma-separated browser origins allowed cross-origin, with credentials. `*` alone: any origin, never with credentials. Unset: no cross-origin access.' },
  { name: 'GRAPHIQL', default: 'on, off when NODE_ENV=production outside demo mode', meaning: 'Serve GraphiQL on GET /graphql from a browser (on/off).' },
  { name: 'METRICS', default: 'on', meaning: 'Serve Prometheus metrics (on/off).' },
  { name: 'METRICS_PATH', default: '/metrics', meaning: 'Path of the Prometheus endpoint.' },
  { name: 'METRICS_PORT', default: '(none)', meaning: 'Serve metrics (and health) on this port instead of PORT, e.g. to keep them off the public interface.' },
  { name: 'READINESS_CACHE_MS', default: '5000', meaning: 'How long /readiness reuses the last check of the chat server (GET /server_settings).' },
  { name: 'OTEL_TRACES_EXPORTER', default: 'otlp when an endpoint is set, else none', meaning: 'otlp, console or none. Tracing is off unless this or an OTLP endpoint is set.' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', default: '(none)', meaning: 'OTLP/HTTP collector base URL; traces go to <endpoint>/v1/traces.' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', default: '(none)', meaning: 'Full OTLP/HTTP traces URL (overrides the base endpoint).' },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', default: '(none)', meaning: 'Headers for the collector, key=value pairs separated by commas.', secret: true },
  { name: 'OTEL_SERVICE_NAME', default: 'chatgraph', meaning: 'service.name of the spans.' },
  { name: 'OTEL_TRACES_SAMPLER_ARG', default: '1', meaning: 'Fraction of new traces sampled (0 to 1); a client traceparent\'s decision is kept.' },
  { name: 'SUBGRAPH', default: 'false', meaning: 'Serve the Apollo Federation subgraph schema (for a router). Refuses default credentials.' },
  { name: 'PERSISTED_OPERATIONS', default: 'apq', meaning: 'off; apq (automatic persisted queries, bounded in-memory store); or trusted (only operations of PERSISTED_OPERATIONS_FILE).' },
  { name: 'PERSISTED_OPERATIONS_FILE', default: '(none)', meaning: 'Trusted-documents manifest: graphql-codegen persisted-documents.json or a Relay persisted-queries JSON.' },
  { name: 'APQ_MAX_ENTRIES', default: '1000', meaning: 'Most automatic persisted queries kept (least recently used dropped).' },
  { name: 'REDIS_URL', default: '(none)', meaning: 'redis:// or rediss:// URL: cluster mode (several gateway instances share event queues and subscriptions).', secret: true },
  { name: 'GATEWAY_SECRET', default: '(none)', meaning: 'At least 32 characters, the same on every instance; keys shared state without revealing credentials. Required with REDIS_URL.', secret: true },
  { name: 'REDIS_KEY_PREFIX', default: 'chatgraph:', meaning: 'Prefix of every Redis key (cluster mode), to share one Redis between deployments.' },
  { name: 'CLUSTER_FAILOVER_MS', default: '10000', meaning: 'Cluster mode: how soon another instance takes over the event queue of an instance that died (100 to 600000).' },
  { name: 'LIVE_DIRECTORY', default: 'on', meaning: 'Keep users, channels and groups current from the event queue instead of fetching them per request (on/off).' },
  { name: 'LIVE_DIRECTORY_IDLE_MS', default: '300000', meaning: 'A credential\'s directory (and its event queue) is dropped after this long without requests.' },
  { name: 'LIVE_DIRECTORY_MAX_BYTES', default: '536870912', meaning: 'Estimated memory cap of all directories; the least recently used are dropped above it.' },
  { name: 'MAX_UPSTREAM_CALLS', default: '50', meaning: 'Upstream calls one query or mutation may be estimated to make (before it runs, from its fields, arguments and the live directory); over it, UPSTREAM_BUDGET_EXCEEDED before any call.' },
  { name: 'UPSTREAM_BUDGET_HEADROOM', default: '10%', meaning: 'What no operation may spend of its credential\'s remaining rate-limit budget (X-RateLimit-Remaining), so the user\'s other clients keep working: a number of calls, or a percentage of the advertised limit.' },
  { name: 'ANONYMOUS_RATE_LIMIT', default: '60', meaning: 'Upstream calls the anonymous operations of one client address may make a minute; over it, UPSTREAM_BUDGET_EXCEEDED with retryAfter before any call. Logins (each alias a password attempt) have their own 10 a minute per address, with or without credentials.' },
  { name: 'TRUSTED_PROXIES', default: '(none)', meaning: 'Comma-separated addresses of the proxies in front of the gateway: only from them is X-Forwarded-For read for the client\'s address (the anonymous limit). Empty: the peer\'s own address counts.' },
  { name: 'LIVE_CACHE', default: 'on', meaning: 'Keep the message windows queries fetched (GET /messages) current from the same event queue, so a repeated query costs no upstream call (on/off). Needs LIVE_DIRECTORY.' },
  { name: 'LIVE_CACHE_MAX_BYTES', default: '67108864', meaning: 'Estimated memory cap of all cached message windows; the least recently used are dropped above it.' },
  { name: 'COMPILED_EXECUTION', default: 'on', meaning: 'Run queries and mutations as code compiled once per document (graphql-jit) instead of graphql\'s interpreter; documents it cannot run as graphql-js would (subscriptions, @defer, @stream, @live, several operations) are interpreted anyway (on/off).' },
  { name: 'USER_IDS_BATCH_THRESHOLD', default: '5', meaning: 'Below Zulip feature level 384 (no user_ids filter), batches of at most this many users are fetched one by one, larger ones as the whole user list.' },
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

/** The table as Markdown (README "Operating chatgraph"). */
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
