/**
 * The gateway's configuration: read from the environment once, at startup, and validated as a
 * whole. `loadConfig` throws a `ConfigError` listing every problem; `configOrExit` is what an entry
 * point calls (prints `--help`, or the problems, and exits non-zero at once).
 */
import type { Credentials } from '../../zulip/connection.js';
import { ConfigProblem, flag, httpUrl, integer, keyValueList, oneOf, origins, urlPath } from './parse.js';
import { helpText, reader } from './variables.js';
import { DEFAULT_MAX_UPSTREAM_CALLS, DEFAULT_UPSTREAM_BUDGET_HEADROOM, parseHeadroom, type Headroom } from '../upstream-budget.js';

export { helpText, variablesMarkdown, VARIABLES } from './variables.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface TracingConfig {
  exporter: 'otlp' | 'console' | 'none';
  /** Full traces URL, when exporting over OTLP. */
  url?: string;
  headers: Record<string, string>;
  serviceName: string;
  sampleRatio: number;
}

export interface GatewayConfig {
  port: number;
  host: string;
  /** Unset in demo mode (the entry point starts the emulator and fills it in). */
  zulipUrl?: string;
  demo: boolean;
  defaultCredentials?: Credentials;
  production: boolean;
  logLevel: LogLevel;
  /** Deadline shared by the upstream calls of one query or mutation; each call's own deadline too. */
  upstreamDeadlineMs: number;
  drainMs: number;
  /** Slow and greedy clients (transport/http.ts GatewayServerOptions): timeouts, lingering, the connection cap. */
  server: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; lingerMs: number; lingerMaxBytes: number; maxConnections: number };
  maxRequestBodyBytes: number;
  maxSubscriptionsPerCredential: number;
  liveQueryThrottleMs: number;
  /** Events or results one subscription may have waiting before it ends with SLOW_CONSUMER. */
  slowConsumerLimit: number;
  /** `*`: any origin without credentials; a list: those origins with credentials; []: none. */
  corsOrigins: string[] | '*';
  graphiql: boolean;
  metrics: { enabled: boolean; path: string; port?: number };
  readinessCacheMs: number;
  tracing: TracingConfig;
  subgraph: boolean;
  persistedOperations: { mode: 'off' | 'apq' | 'trusted'; file?: string; apqMaxEntries: number };
  /** Cluster mode (REDIS_URL set); the shape of cluster/redis.ts `ClusterConfig`. */
  cluster?: { url: string; secret: string; keyPrefix: string; failoverMs: number };
  liveDirectory: { enabled: boolean; idleMs: number; maxBytes: number };
  /** The message cache (directory/messages/cache.ts); it follows the live directory's queues. */
  liveCache: { enabled: boolean; maxBytes: number };
  /** Queries and mutations run as compiled code (plugins/compiled-execution.ts). */
  compiledExecution: boolean;
  /** Unset: the gateway's default (loaders/users.ts DEFAULT_USER_IDS_BATCH_THRESHOLD). */
  userIdsBatchThreshold?: number;
  /** Estimated upstream calls one query or mutation may make (plugins/upstream-budget.ts). */
  maxUpstreamCalls: number;
  /** Kept out of every operation's reach of a credential's rate-limit budget: calls, or a share of the limit. */
  upstreamBudgetHeadroom: Headroom;
  /** Anonymous calls (logins included) one client address may make a minute. */
  anonymousRateLimit: number;
  /** Peers whose X-Forwarded-For names the client. */
  trustedProxies: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration error:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const DAY_MS = 86_400_000;

export function loadConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const get = reader(env);
  const problems: string[] = [];
  /** Runs one parser; a problem is recorded and the default used, so every problem is reported. */
  const check = <T>(parse: () => T, fallback: T): T => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      problems.push(error.message);
      return fallback;
    }
  };
  const int = <F extends number | undefined>(name: string, fallback: F, min: number, max = Number.MAX_SAFE_INTEGER) =>
    check<number | F>(() => {
      const v = get(name);
      return v === undefined ? fallback : integer(name, v, { min, max });
    }, fallback);
  const bool = (name: string, fallback: boolean) =>
    check(() => {
      const v = get(name);
      return v === undefined ? fallback : flag(name, v);
    }, fallback);

  const production = (env.NODE_ENV ?? 'production') === 'production';
  get('NODE_ENV'); // documented; read above with its own default
  const zulipUrl = check(() => {
    const v = get('ZULIP_URL');
    return v === undefined ? undefined : httpUrl('ZULIP_URL', v, { originOnly: false }).href.replace(/\/+$/, '');
  }, undefined);
  const demo = get('ZULIP_URL') === undefined;

  const email = get('ZULIP_EMAIL');
  const apiKey = get('ZULIP_API_KEY');
  if ((email === undefined) !== (apiKey === undefined)) problems.push('Set both ZULIP_EMAIL and ZULIP_API_KEY, or neither.');
  const defaultCredentials = email !== undefined && apiKey !== undefined ? { email, apiKey } : undefined;

  const subgraph = bool('SUBGRAPH', false);
  if (subgraph && defaultCredentials) {
    problems.push('SUBGRAPH=true refuses default credentials (ZULIP_EMAIL/ZULIP_API_KEY): a router would act as that account for every caller.');
  }

  const exporterName = get('OTEL_TRACES_EXPORTER');
  const tracesUrl = get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseUrl = get('OTEL_EXPORTER_OTLP_ENDPOINT');
  const exporter = check(
    () => (exporterName ? oneOf('OTEL_TRACES_EXPORTER', exporterName, ['otlp', 'console', 'none'] as const) : tracesUrl || baseUrl ? 'otlp' : 'none'),
    'none' as const,
  );
  const url = check(() => {
    if (tracesUrl) return httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesUrl).href;
    if (baseUrl) return `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', baseUrl).href.replace(/\/+$/, '')}/v1/traces`;
    return undefined;
  }, undefined);
  const sampleRatio = check(() => {
    const v = get('OTEL_TRACES_SAMPLER_ARG');
    const n = v === undefined ? 1 : Number(v);
    if (!(n >= 0 && n <= 1)) throw new ConfigProblem(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got ${JSON.stringify(v)}.`);
    return n;
  }, 1);
  const tracing: TracingConfig = {
    exporter,
    ...(exporter === 'otlp' && { url: url ?? 'http://localhost:4318/v1/traces' }),
    headers: check(() => keyValueList('OTEL_EXPORTER_OTLP_HEADERS', get('OTEL_EXPORTER_OTLP_HEADERS') ?? ''), {}),
    serviceName: get('OTEL_SERVICE_NAME') ?? 'chatgraph',
    sampleRatio,
  };

  const mode = check(() => oneOf('PERSISTED_OPERATIONS', get('PERSISTED_OPERATIONS') ?? 'apq', ['off', 'apq', 'trusted'] as const), 'apq' as const);
  const file = get('PERSISTED_OPERATIONS_FILE');
  if (mode === 'trusted' && !file) problems.push('PERSISTED_OPERATIONS=trusted needs PERSISTED_OPERATIONS_FILE (the manifest).');
  if (mode !== 'trusted' && file) problems.push('PERSISTED_OPERATIONS_FILE is set but PERSISTED_OPERATIONS is not "trusted".');

  const redisUrl = check(() => {
    const v = get('REDIS_URL');
    if (v === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(v);
    } catch {
      /* reported below */
    }
    if (!parsed || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) {
      throw new ConfigProblem('REDIS_URL must be a redis:// or rediss:// URL (value hidden).');
    }
    return v;
  }, undefined);
  const gatewaySecret = get('GATEWAY_SECRET');
  if (gatewaySecret !== undefined && gatewaySecret.length < 32) problems.push('GATEWAY_SECRET must be at least 32 characters (value hidden).');
  if (redisUrl && gatewaySecret === undefined) problems.push('REDIS_URL (cluster mode) needs GATEWAY_SECRET, the same on every instance.');
  const keyPrefix = check(() => {
    const v = get('REDIS_KEY_PREFIX') ?? 'chatgraph:';
    if (!/^[A-Za-z0-9_.:\-]{1,64}$/.test(v)) throw new ConfigProblem(`REDIS_KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 _ . : -, got ${JSON.stringify(v.slice(0, 80))}.`);
    return v;
  }, 'chatgraph:');
  const failoverMs = int('CLUSTER_FAILOVER_MS', 10_000, 100, 600_000);

  const metricsPort = int('METRICS_PORT', -1, 0, 65535);
  const port = int('PORT', 4000, 0, 65535);
  if (metricsPort > 0 && metricsPort === port) problems.push('METRICS_PORT must differ from PORT (unset it to serve metrics on PORT).');

  const config: GatewayConfig = {
    port,
    host: get('HOST') ?? '127.0.0.1',
    ...(zulipUrl !== undefined && { zulipUrl }),
    demo,
    ...(defaultCredentials && { defaultCredentials }),
    production,
    logLevel: check(() => oneOf('LOG_LEVEL', get('LOG_LEVEL') ?? 'info', LOG_LEVELS), 'info' as const),
    upstreamDeadlineMs: int('UPSTREAM_DEADLINE_MS', 10_000, 1, DAY_MS),
    drainMs: int('DRAIN_MS', 10_000, 0, DAY_MS),
    server: {
      headersTimeoutMs: int('HEADERS_TIMEOUT_MS', 10_000, 100, DAY_MS),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, DAY_MS),
      keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, DAY_MS),
      lingerMs: int('LINGER_MS', 5_000, 0, 600_000),
      lingerMaxBytes: int('LINGER_MAX_BYTES', 8_000_000, 0, 1_073_741_824),
      maxConnections: int('MAX_CONNECTIONS', 10_000, 1, 10_000_000),
    },
    maxRequestBodyBytes: int('MAX_BODY_BYTES', 2_000_000, 1024, 1_073_741_824),
    maxSubscriptionsPerCredential: int('MAX_SUBSCRIPTIONS_PER_CREDENTIAL', 200, 1, 1_000_000),
    liveQueryThrottleMs: int('LIVE_QUERY_THROTTLE_MS', 50, 0, 600_000),
    slowConsumerLimit: int('SLOW_CONSUMER_LIMIT', 1000, 1, 1_000_000),
    corsOrigins: check(() => origins('CORS_ORIGINS', get('CORS_ORIGINS') ?? ''), []),
    graphiql: bool('GRAPHIQL', !production || demo),
    metrics: {
      enabled: bool('METRICS', true),
      path: check(() => urlPath('METRICS_PATH', get('METRICS_PATH') ?? '/metrics'), '/metrics'),
      ...(metricsPort >= 0 && { port: metricsPort }),
    },
    readinessCacheMs: int('READINESS_CACHE_MS', 5000, 0, DAY_MS),
    tracing,
    subgraph,
    persistedOperations: { mode, ...(file && { file }), apqMaxEntries: int('APQ_MAX_ENTRIES', 1000, 1, 1_000_000) },
    ...(redisUrl && gatewaySecret !== undefined && { cluster: { url: redisUrl, secret: gatewaySecret, keyPrefix, failoverMs } }),
    maxUpstreamCalls: int('MAX_UPSTREAM_CALLS', DEFAULT_MAX_UPSTREAM_CALLS, 1, 1_000_000),
    anonymousRateLimit: int('ANONYMOUS_RATE_LIMIT', 60, 1, 1_000_000),
    trustedProxies: (get('TRUSTED_PROXIES') ?? '').split(',').map((a) => a.trim()).filter((a) => a !== ''),
    upstreamBudgetHeadroom: check(() => {
      const text = get('UPSTREAM_BUDGET_HEADROOM');
      if (text === undefined) return DEFAULT_UPSTREAM_BUDGET_HEADROOM;
      const headroom = parseHeadroom(text);
      if (headroom === undefined) throw new ConfigProblem(`UPSTREAM_BUDGET_HEADROOM must be a number of calls (e.g. 20) or a percentage up to 100% (e.g. 10%), got ${JSON.stringify(text.slice(0, 80))}.`);
      return headroom;
    }, DEFAULT_UPSTREAM_BUDGET_HEADROOM),
    liveDirectory: {
      enabled: bool('LIVE_DIRECTORY', true),
      idleMs: int('LIVE_DIRECTORY_IDLE_MS', 300_000, 1000, 7 * DAY_MS),
      maxBytes: int('LIVE_DIRECTORY_MAX_BYTES', 512 * 1_048_576, 1_048_576, 2 ** 40),
    },
    liveCache: {
      enabled: bool('LIVE_CACHE', true),
      maxBytes: int('LIVE_CACHE_MAX_BYTES', 64 * 1_048_576, 65_536, 2 ** 40),
    },
    compiledExecution: bool('COMPILED_EXECUTION', true),
  };
  const userIdsBatchThreshold = int('USER_IDS_BATCH_THRESHOLD', undefined, 0, 10_000);
  if (userIdsBatchThreshold !== undefined) config.userIdsBatchThreshold = userIdsBatchThreshold;
  if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (the whole request includes its headers).');
  }
  if (config.metrics.path === '/graphql' || config.metrics.path === '/health' || config.metrics.path === '/readiness') {
    problems.push(`METRICS_PATH must not be ${config.metrics.path}, which the gateway serves itself.`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

export interface ExitIO {
  out: (text: string) => void;
  err: (text: string) => void;
  exit: (code: number) => never;
}

const processIO: ExitIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * For the entry point: `--help` prints the table and exits 0; a bad configuration prints every
 * problem and exits 2 before anything is started.
 */
export function configOrExit(env: NodeJS.ProcessEnv, argv: readonly string[], io: ExitIO = processIO): GatewayConfig {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(helpText());
    return io.exit(0);
  }
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`chatgraph: ${error.message}\nRun with --help for the list of variables.\n`);
    return io.exit(2);
  }
}

/**
 * yoga's `cors` option for CORS_ORIGINS: unset ⇒ no CORS headers at all (browsers refuse
 * cross-origin reads); a list ⇒ exactly those origins, with credentials; `*` ⇒ any origin, but
 * never with credentials.
 */
export function corsOptions(config: Pick<GatewayConfig, 'corsOrigins'>): false | { origin: string | string[]; credentials: boolean; allowedHeaders: string[]; methods: string[] } {
  const { corsOrigins } = config;
  if (corsOrigins !== '*' && corsOrigins.length === 0) return false;
  return {
    origin: corsOrigins,
    credentials: corsOrigins !== '*',
    allowedHeaders: ['authorization', 'content-type', 'x-graphql-yoga-csrf', 'x-request-id', 'traceparent', 'tracestate'],
    methods: ['GET', 'POST'],
  };
}
