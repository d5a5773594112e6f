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
  { name: 'UPSTREAM_TIMEOUT_MS', default: '10000', meaning: 'Per-attempt timeout of a call to the chat server.' },
  { name: 'REQUEST_DEADLINE_MS', default: '30000', meaning: 'Deadline of a whole GraphQL request (queries and mutations, retries included).' },
  { name: 'DRAIN_MS', default: '10000', meaning: 'On SIGTERM, how long requests in flight may finish before connections are cut.' },
  { name: 'MAX_REQUEST_BODY_BYTES', default: '1048576', meaning: 'Largest request body accepted (HTTP 413 above).' },
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
  { name: 'REDIS_URL', default: '(none)', meaning: 'redis:// URL: cluster mode (several gateway instances share subscriptions and the directory).', secret: true },
  { name: 'GATEWAY_SECRET', default: '(none)', meaning: 'At least 32 characters shared by all instances; keys shared state without revealing credentials. Required with REDIS_URL.', secret: true },
  { name: 'LIVE_DIRECTORY', default: 'on', meaning: 'Keep users, channels and groups current from the event queue instead of fetching them per request (on/off).' },
  { name: 'LIVE_DIRECTORY_IDLE_TTL_MS', default: '300000', meaning: 'A credential\'s directory is dropped after this long without requests.' },
  { name: 'LIVE_DIRECTORY_MAX_MB', default: '256', meaning: 'Memory cap of all directories; the least recently used are dropped above it.' },
];

const NAMES = new Set(VARIABLES.map((v) => v.name));

export function isSecret(name: string): boolean {
  return VARIABLES.some((v) => v.name === name && v.secret);
}

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
