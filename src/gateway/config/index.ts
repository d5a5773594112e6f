/**
 * The gateway's configuration: read from the environment once, at startup, and validated as a
 * whole. `loadConfig` throws a `ConfigError` listing every problem; `configOrExit` is what an entry
 * point calls (prints `--help`, or the problems, and exits non-zero at once).
 */
import type { Credentials } from '../../zulip/connection.js';
import type { TracingConfig } from '../observability/tracing.js';
import type { GatewayServerOptions } from '../transport/http.js';
import type { GatewayOptions } from '../yoga.js';
import { ConfigProblem, flag, httpUrl, integer, keyValueList, oneOf, origins, urlPath } from './parse.js';
import { helpText, reader, VARIABLES } from './variables.js';
import { DEFAULT_LOG_LEVEL, DEFAULT_NODE_ENV, DEFAULT_OTLP_TRACES_URL, DEFAULT_PERSISTED_OPERATIONS, DEFAULT_SERVICE_NAME, LOG_LEVELS, NODE_ENVS, type LogLevel } from './defaults.js';
import { DEFAULT_KEY_PREFIX } from '../cluster/keys.js';
import { DEFAULT_FAILOVER_MS } from '../cluster/redis.js';
import { DEFAULT_MESSAGE_CACHE_MAX_BYTES } from '../directory/messages/cache.js';
import { DEFAULT_DIRECTORY_IDLE_MS, DEFAULT_DIRECTORY_MAX_BYTES } from '../directory/registry.js';
import { DEFAULT_SLOW_CONSUMER_LIMIT } from '../events/hub.js';
import { DEFAULT_LIVE_QUERY_THROTTLE_MS } from '../live/queries.js';
import { DEFAULT_CREDENTIAL_RECHECK_MS } from '../revocation.js';
import { DEFAULT_SESSION_IDLE_MS, DEFAULT_SESSION_MAX_MS } from '../sessions/sessions.js';
import { DEFAULT_METRICS_PATH } from '../observability/endpoints.js';
import { DEFAULT_READINESS_CACHE_MS } from '../observability/readiness.js';
import { MAX_REQUEST_BODY_BYTES } from '../plugins/body-limit.js';
import { DEFAULT_UPSTREAM_DEADLINE_MS } from '../plugins/deadline.js';
import { DEFAULT_APQ_MAX_ENTRIES } from '../plugins/persisted-operations.js';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL } from '../plugins/share-subscriptions.js';
import { DEFAULT_COMPRESSION_MIN_BYTES } from '../plugins/compression.js';
import { DEFAULT_DRAIN_MS, DEFAULT_HOST, DEFAULT_PORT, SERVER_LIMITS } from '../transport/http.js';
import { DEFAULT_SYNC_MAX_BYTES, DEFAULT_SYNC_RETENTION_MS } from '../sync/logs.js';
import { DEFAULT_ANONYMOUS_RATE_LIMIT, DEFAULT_MAX_UPSTREAM_CALLS, DEFAULT_UPSTREAM_BUDGET_HEADROOM, parseHeadroom } from '../upstream/budget.js';

export { helpText, variablesMarkdown, VARIABLES } from './variables.js';
export { LOG_LEVELS, NODE_ENVS, type LogLevel } from './defaults.js';
export type { TracingConfig } from '../observability/tracing.js';

/**
 * What `createGateway` (yoga.ts) takes from the environment, in its own option names: the entry
 * point spreads it and adds what only it can build (the upstream URL, logger, metrics, tracing).
 */
export type GatewayEnvOptions = Required<
  Pick<
    GatewayOptions,
    | 'upstreamDeadlineMs'
    | 'maxRequestBodyBytes'
    | 'maxSubscriptionsPerCredential'
    | 'liveQueryThrottleMs'
    | 'credentialRecheckMs'
    | 'slowConsumerLimit'
    | 'corsOrigins'
    | 'subgraph'
    | 'compiledExecution'
    | 'compression'
    | 'maxUpstreamCalls'
    | 'upstreamBudgetHeadroom'
    | 'anonymousRateLimit'
    | 'trustedProxies'
    | 'sync'
  >
> & {
  defaultCredentials?: Credentials;
  /** Off by default in production outside the demo (config `graphiql`); the entry point adds the demo credential. */
  graphiql: boolean;
  persistedOperations: { mode: 'off' | 'apq' | 'trusted'; file?: string; apqMaxEntries: number };
  liveDirectory: false | { idleMs: number; maxBytes: number };
  /** The message cache (directory/messages/cache.ts); it follows the live directory's queues. */
  messageCache: false | { maxBytes: number };
  /** Unset: the gateway's default (loaders/users.ts DEFAULT_USER_IDS_BATCH_THRESHOLD). */
  userIdsBatchThreshold?: number;
  /** Session lifetimes (SESSION_IDLE, SESSION_MAX) and GATEWAY_SECRET, which keys and encrypts the session store. */
  sessions: { idleMs: number; maxMs: number; secret?: string };
};

export interface GatewayConfig {
  port: number;
  host: string;
  /** The default server: ZULIP_URL, or the first of ZULIP_SERVERS. Unset in demo mode (the entry point starts the emulator and fills it in). */
  zulipUrl?: string;
  /** The other allowed servers (ZULIP_SERVERS but the default), for accounts of sessions. */
  zulipServers: string[];
  /** Serve the demo organization from the embedded emulator (no ZULIP_URL, and DEMO or not production). */
  demo: boolean;
  production: boolean;
  logLevel: LogLevel;
  /** `createGateway`'s options (see GatewayEnvOptions). */
  gateway: GatewayEnvOptions;
  /** `createGatewayServer`'s options (transport/http.ts): the drain on SIGTERM and the slow-client bounds. */
  server: Required<Omit<GatewayServerOptions, 'ws'>>;
  metrics: { enabled: boolean; path: string; port?: number };
  readinessCacheMs: number;
  tracing: TracingConfig;
  /** Cluster mode (REDIS_URL set); the shape of cluster/redis.ts `ClusterConfig`. */
  cluster?: { url: string; secret: string; keyPrefix: string; failoverMs: number };
  /** What is accepted but should change (an old variable name): logged once at `warn` when started. */
  warnings: string[];
  /** graphql-ws offers permessage-deflate (transport/ws.ts). */
  wsPerMessageDeflate: boolean;
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

  const nodeEnv = check(() => {
    // Exact: graphql-js compares NODE_ENV to 'production' as written, so 'Production' is a typo too.
    const v = get('NODE_ENV') ?? DEFAULT_NODE_ENV;
    if (!(NODE_ENVS as readonly string[]).includes(v)) throw new ConfigProblem(`NODE_ENV must be one of ${NODE_ENVS.join(', ')}, got ${JSON.stringify(v.slice(0, 80))}.`);
    return v;
  }, DEFAULT_NODE_ENV);
  const production = nodeEnv === 'production';
  /** One server address: ZULIP_URL's rules (no API path), without a trailing slash. */
  const serverUrl = (name: string, v: string): string => {
    const url = httpUrl(name, v, { originOnly: false });
    // Every route appends /api/v1 itself: a URL that already ends in it would call /api/v1/api/v1/….
    const apiPath = /\/api(?:\/v\d+)?\/*$/.exec(url.pathname);
    if (apiPath) {
      const base = `${url.origin}${url.pathname.slice(0, apiPath.index)}`;
      throw new ConfigProblem(`${name} must be the server's address without the API path: set it to ${JSON.stringify(base)}, not ${JSON.stringify(v.trim())}.`);
    }
    return url.href.replace(/\/+$/, '');
  };
  const listedServers = check(() => {
    const v = get('ZULIP_SERVERS');
    if (v === undefined) return [];
    const servers = [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean).map((s) => serverUrl('ZULIP_SERVERS', s)))];
    if (servers.length === 0) throw new ConfigProblem('ZULIP_SERVERS must list at least one server address (comma-separated), or be unset.');
    return servers;
  }, []);
  const zulipUrl = check(() => {
    const v = get('ZULIP_URL');
    if (v === undefined) return listedServers[0];
    const url = serverUrl('ZULIP_URL', v);
    if (listedServers.length > 0 && !listedServers.includes(url)) throw new ConfigProblem(`ZULIP_URL (${JSON.stringify(url)}) must be one of ZULIP_SERVERS, or be unset (the first of them is then the default).`);
    return url;
  }, undefined);
  const zulipServers = listedServers.filter((server) => server !== zulipUrl);
  const demoFlag = bool('DEMO', false);
  // Whether a server is named at all: a malformed one is its own problem, not a missing one.
  const named = get('ZULIP_URL') !== undefined || get('ZULIP_SERVERS') !== undefined;
  const demo = !named && (demoFlag || !production);
  if (!named && !demo) {
    problems.push('ZULIP_URL is not set: set it to your Zulip server (e.g. https://chat.example.com), or run the demo organization with DEMO=1 (npm start sets it).');
  }

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
    ...(exporter === 'otlp' && { url: url ?? DEFAULT_OTLP_TRACES_URL }),
    headers: check(() => keyValueList('OTEL_EXPORTER_OTLP_HEADERS', get('OTEL_EXPORTER_OTLP_HEADERS') ?? ''), {}),
    serviceName: get('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
    sampleRatio,
  };

  const mode = check(() => oneOf('PERSISTED_OPERATIONS', get('PERSISTED_OPERATIONS') ?? DEFAULT_PERSISTED_OPERATIONS, ['off', 'apq', 'trusted'] as const), DEFAULT_PERSISTED_OPERATIONS);
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
    const v = get('REDIS_KEY_PREFIX') ?? DEFAULT_KEY_PREFIX;
    if (!/^[A-Za-z0-9_.:\-]{1,64}$/.test(v)) throw new ConfigProblem(`REDIS_KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 _ . : -, got ${JSON.stringify(v.slice(0, 80))}.`);
    return v;
  }, DEFAULT_KEY_PREFIX);
  const failoverMs = int('CLUSTER_FAILOVER_MS', DEFAULT_FAILOVER_MS, 100, 600_000);
  const duration = (name: string, fallback: number): number =>
    check(() => {
      const text = get(name);
      if (text === undefined) return fallback;
      const ms = parseDuration(text);
      if (ms === undefined || ms < 60_000 || ms > 366 * DAY_MS) throw new ConfigProblem(`${name} must be a duration between 1m and 366d (e.g. 7d, 12h, 30m, or seconds), got ${JSON.stringify(text.slice(0, 80))}.`);
      return ms;
    }, fallback);
  const sessionIdleMs = duration('SESSION_IDLE', DEFAULT_SESSION_IDLE_MS);
  const sessionMaxMs = duration('SESSION_MAX', DEFAULT_SESSION_MAX_MS);
  if (sessionIdleMs > sessionMaxMs) problems.push('SESSION_IDLE must not exceed SESSION_MAX.');

  const metricsPort = int('METRICS_PORT', -1, 0, 65535);
  const port = int('PORT', DEFAULT_PORT, 0, 65535);
  if (metricsPort > 0 && metricsPort === port) problems.push('METRICS_PORT must differ from PORT (unset it to serve metrics on PORT).');

  // MESSAGE_CACHE was LIVE_CACHE until 0.4.0: the old names are read for one release, with a warning.
  const warnings: string[] = [];
  const renamed = (name: string) => {
    const old = VARIABLES.find((v) => v.replacedBy === name)!.name;
    if (get(old) === undefined) return name;
    if (get(name) !== undefined) {
      warnings.push(`${old} is ignored: ${name}, its new name, is set.`);
      return name;
    }
    warnings.push(`${old} is deprecated and will be removed in the next release: rename it ${name}.`);
    return old;
  };
  const liveDirectory = bool('LIVE_DIRECTORY', true);
  const messageCache = bool(renamed('MESSAGE_CACHE'), true);
  const messageCacheMaxBytes = int(renamed('MESSAGE_CACHE_MAX_BYTES'), DEFAULT_MESSAGE_CACHE_MAX_BYTES, 65_536, 2 ** 40);

  const config: GatewayConfig = {
    port,
    host: get('HOST') ?? DEFAULT_HOST,
    ...(zulipUrl !== undefined && { zulipUrl }),
    zulipServers,
    demo,
    production,
    logLevel: check(() => oneOf('LOG_LEVEL', get('LOG_LEVEL') ?? DEFAULT_LOG_LEVEL, LOG_LEVELS), DEFAULT_LOG_LEVEL),
    gateway: {
      ...(defaultCredentials && { defaultCredentials }),
      upstreamDeadlineMs: int('UPSTREAM_DEADLINE_MS', DEFAULT_UPSTREAM_DEADLINE_MS, 1, DAY_MS),
      maxRequestBodyBytes: int('MAX_BODY_BYTES', MAX_REQUEST_BODY_BYTES, 1024, 1_073_741_824),
      maxSubscriptionsPerCredential: int('MAX_SUBSCRIPTIONS_PER_CREDENTIAL', DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL, 1, 1_000_000),
      liveQueryThrottleMs: int('LIVE_QUERY_THROTTLE_MS', DEFAULT_LIVE_QUERY_THROTTLE_MS, 0, 600_000),
      credentialRecheckMs: int('CREDENTIAL_RECHECK_S', DEFAULT_CREDENTIAL_RECHECK_MS / 1000, 1, 86_400) * 1000,
      slowConsumerLimit: int('SLOW_CONSUMER_LIMIT', DEFAULT_SLOW_CONSUMER_LIMIT, 1, 1_000_000),
      corsOrigins: check(() => origins('CORS_ORIGINS', get('CORS_ORIGINS') ?? ''), []),
      // A production deployment has no GraphiQL unless asked for: a browser GET would get a page
      // that every visitor can use against the default credentials, if any.
      graphiql: bool('GRAPHIQL', !production || demo),
      subgraph,
      persistedOperations: { mode, ...(file && { file }), apqMaxEntries: int('APQ_MAX_ENTRIES', DEFAULT_APQ_MAX_ENTRIES, 1, 1_000_000) },
      liveDirectory: liveDirectory && {
        idleMs: int('LIVE_DIRECTORY_IDLE_MS', DEFAULT_DIRECTORY_IDLE_MS, 1000, 7 * DAY_MS),
        maxBytes: int('LIVE_DIRECTORY_MAX_BYTES', DEFAULT_DIRECTORY_MAX_BYTES, 1_048_576, 2 ** 40),
      },
      messageCache: messageCache && { maxBytes: messageCacheMaxBytes },
      maxUpstreamCalls: int('MAX_UPSTREAM_CALLS', DEFAULT_MAX_UPSTREAM_CALLS, 1, 1_000_000),
      upstreamBudgetHeadroom: check(() => {
        const text = get('UPSTREAM_BUDGET_HEADROOM');
        if (text === undefined) return DEFAULT_UPSTREAM_BUDGET_HEADROOM;
        const headroom = parseHeadroom(text);
        if (headroom === undefined) throw new ConfigProblem(`UPSTREAM_BUDGET_HEADROOM must be a number of calls (e.g. 20) or a percentage up to 100% (e.g. 10%), got ${JSON.stringify(text.slice(0, 80))}.`);
        return headroom;
      }, DEFAULT_UPSTREAM_BUDGET_HEADROOM),
      anonymousRateLimit: int('ANONYMOUS_RATE_LIMIT', DEFAULT_ANONYMOUS_RATE_LIMIT, 1, 1_000_000),
      trustedProxies: (get('TRUSTED_PROXIES') ?? '').split(',').map((a) => a.trim()).filter((a) => a !== ''),
      compiledExecution: bool('COMPILED_EXECUTION', true),
      sync: {
        retentionMs: int('SYNC_RETENTION_MS', DEFAULT_SYNC_RETENTION_MS, 60_000, 30 * DAY_MS),
        maxBytes: int('SYNC_MAX_BYTES', DEFAULT_SYNC_MAX_BYTES, 65_536, 2 ** 40),
      },
      compression: bool('COMPRESSION', true) && { minBytes: int('COMPRESSION_MIN_BYTES', DEFAULT_COMPRESSION_MIN_BYTES, 0, 1_073_741_824) },
      sessions: { idleMs: sessionIdleMs, maxMs: sessionMaxMs, ...(gatewaySecret !== undefined && { secret: gatewaySecret }) },
    },
    server: {
      drainMs: int('DRAIN_MS', DEFAULT_DRAIN_MS, 0, DAY_MS),
      headersTimeoutMs: int('HEADERS_TIMEOUT_MS', SERVER_LIMITS.headersTimeoutMs, 100, DAY_MS),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS', SERVER_LIMITS.requestTimeoutMs, 100, DAY_MS),
      keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', SERVER_LIMITS.keepAliveTimeoutMs, 1, DAY_MS),
      lingerMs: int('LINGER_MS', SERVER_LIMITS.lingerMs, 0, 600_000),
      lingerMaxBytes: int('LINGER_MAX_BYTES', SERVER_LIMITS.lingerMaxBytes, 0, 1_073_741_824),
      maxConnections: int('MAX_CONNECTIONS', SERVER_LIMITS.maxConnections, 1, 10_000_000),
    },
    metrics: {
      enabled: bool('METRICS', true),
      path: check(() => urlPath('METRICS_PATH', get('METRICS_PATH') ?? DEFAULT_METRICS_PATH), DEFAULT_METRICS_PATH),
      ...(metricsPort >= 0 && { port: metricsPort }),
    },
    readinessCacheMs: int('READINESS_CACHE_MS', DEFAULT_READINESS_CACHE_MS, 0, DAY_MS),
    tracing,
    ...(redisUrl && gatewaySecret !== undefined && { cluster: { url: redisUrl, secret: gatewaySecret, keyPrefix, failoverMs } }),
    warnings,
    wsPerMessageDeflate: bool('WS_PERMESSAGE_DEFLATE', false),
  };
  const userIdsBatchThreshold = int('USER_IDS_BATCH_THRESHOLD', undefined, 0, 10_000);
  if (userIdsBatchThreshold !== undefined) config.gateway.userIdsBatchThreshold = userIdsBatchThreshold;
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
    // One problem, one line (the usual case: a forgotten or mistyped variable); several, a list.
    if (error.problems.length === 1) io.err(`chatgraph: ${error.problems[0]} (--help lists every variable)\n`);
    else io.err(`chatgraph: ${error.message}\nRun with --help for the list of variables.\n`);
    return io.exit(2);
  }
}

/** `7d`, `12h`, `30m`, `90s` or a number of seconds, in milliseconds; undefined when it is none of these. */
function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
