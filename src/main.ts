/**
 * The entry point (`npm start`, `node dist/main.js`): reads and checks the configuration
 * (gateway/config: every variable, `--help`), builds the gateway with its logs, metrics, tracing and
 * readiness, serves it on node:http, and shuts down cleanly on SIGTERM/SIGINT. Without ZULIP_URL it
 * first starts the demo emulator. The one place outside the tests that wires the emulator to the
 * gateway (nothing under src/gateway imports src/emulator).
 *
 * Shutdown, in order: /readiness answers 503; WebSockets close with 1001 and the listener stops
 * accepting; every subscription ends (SSE streams with `complete`) and its upstream queue is
 * deleted; requests in flight finish within DRAIN_MS, then what is left is cut; the gateway, the
 * metrics port and the trace exporter are closed last.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { DestinationStream } from 'pino';
import { createEmulator } from './emulator/app.js';
import { DEMO_USERS } from './emulator/seed.js';
import { ConfigError, configOrExit, loadConfig, type GatewayConfig } from './gateway/config/index.js';
import type { Gateway } from './gateway/yoga.js';
import { basicAuthorization } from './zulip/credentials.js';

const isEntryPoint = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];

// `npm start` runs graphql-js in production mode unless NODE_ENV says otherwise: it then skips the
// development checks it makes on every failed type test during execution (README, Performance),
// and graphql-ws no longer puts internal error messages in close reasons. graphql reads NODE_ENV
// once, when it is loaded, so the gateway's modules (all of which load it) are imported by
// `start()`, after this line; neither the emulator nor the configuration loads graphql.
if (isEntryPoint) process.env.NODE_ENV ??= 'production';

/** The gateway's own modules (see above). */
function loadGateway() {
  return Promise.all([
    import('./gateway/yoga.js'),
    import('./gateway/transport/http.js'),
    import('./gateway/observability/index.js'),
    import('./gateway/plugins/persisted-operations.js'),
  ]);
}

export interface Started {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql. */
  url: string;
  /** The metrics port's origin, when METRICS_PORT is set. */
  metricsOrigin?: string;
  /**
   * Shuts down as on SIGTERM: readiness 503, stop accepting, end subscriptions, drain requests in
   * flight (DRAIN_MS), then release everything. Idempotent.
   */
  close(): Promise<void>;
  /** Flushes the structured logs (before the process exits). */
  flushLogs(): Promise<void>;
}

export interface StartOptions {
  /** The configuration, when the caller already loaded it. @default loadConfig(env) */
  config?: GatewayConfig;
  /** Where the JSON logs go (tests capture them). @default stdout */
  logDestination?: DestinationStream;
  /** Replaces the configured trace exporter (tests pass an InMemorySpanExporter). */
  traceExporter?: SpanExporter;
}

/**
 * Starts the gateway (and, without ZULIP_URL, the demo emulator) from `env`. A bad configuration
 * rejects with a ConfigError naming every problem, before anything is started.
 */
export async function start(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = console.log,
  options: StartOptions = {},
): Promise<Started> {
  const config = options.config ?? loadConfig(env);
  const [{ createGateway }, { createGatewayServer }, ops, { loadTrustedDocuments }] = await loadGateway();
  let documents;
  if (config.persistedOperations.mode === 'trusted') {
    try {
      documents = loadTrustedDocuments(config.persistedOperations.file!);
    } catch (error) {
      throw new ConfigError([`PERSISTED_OPERATIONS_FILE: ${error instanceof Error ? error.message : String(error)}`]);
    }
  }

  const logger = ops.createLogger({ level: config.logLevel, ...(options.logDestination && { destination: options.logDestination }) });
  const metrics = config.metrics.enabled ? new ops.GatewayMetrics() : undefined;
  const tracing = new ops.GatewayTracing(config.tracing, options.traceExporter);
  const emulator = config.zulipUrl ? undefined : createEmulator({ seed: 'demo' });
  const upstream = emulator ? await emulator.listen({ host: '127.0.0.1', port: 0 }) : undefined;
  const zulipUrl = upstream?.url ?? config.zulipUrl!;
  // Cluster mode: readiness and metrics follow the Redis connection; its changes are logged.
  let redisState: string | undefined = config.cluster ? 'connecting' : undefined;
  const onRedisState = (state: string) => {
    redisState = state;
    metrics?.redisUp(state === 'connected');
    logger[state === 'connected' ? 'info' : 'warn']({ redis: state }, 'redis connection');
  };
  let gateway: Gateway | undefined; // read by readiness once built
  const readiness = new ops.Readiness({
    zulipUrl,
    cacheMs: config.readinessCacheMs,
    degradations: () => [
      ...(gateway?.directories?.degradations() ?? []),
      ...(config.liveCache.enabled && !config.liveDirectory.enabled ? ['message cache off: LIVE_CACHE needs LIVE_DIRECTORY (every messages page goes upstream)'] : []),
    ],
    ...(config.cluster && { redisState: () => redisState! }),
  });
  const endpoints = ops.opsEndpoints({ ...(metrics && { metrics }), metricsPath: config.metrics.path, readiness });
  const demoAuthorization = emulator ? basicAuthorization(DEMO_USERS[0]!) : undefined;

  gateway = createGateway({
    zulipUrl,
    ...(config.defaultCredentials && { defaultCredentials: config.defaultCredentials }),
    upstreamDeadlineMs: config.upstreamDeadlineMs,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    maxSubscriptionsPerCredential: config.maxSubscriptionsPerCredential,
    liveQueryThrottleMs: config.liveQueryThrottleMs,
    slowConsumerLimit: config.slowConsumerLimit,
    graphiql: config.graphiql && { ...(demoAuthorization && { demoAuthorization }) },
    logger,
    ...(metrics && { metrics }),
    ...(tracing.enabled && { tracing }),
    // With METRICS_PORT, health, readiness and metrics are served there only.
    ...(config.metrics.port === undefined && { endpoints }),
    corsOrigins: config.corsOrigins,
    subgraph: config.subgraph,
    persistedOperations: { ...config.persistedOperations, ...(documents && { documents }) },
    liveDirectory: config.liveDirectory.enabled && { idleMs: config.liveDirectory.idleMs, maxBytes: config.liveDirectory.maxBytes },
    liveCache: config.liveCache.enabled && { maxBytes: config.liveCache.maxBytes },
    ...(config.userIdsBatchThreshold !== undefined && { userIdsBatchThreshold: config.userIdsBatchThreshold }),
    maxUpstreamCalls: config.maxUpstreamCalls,
    upstreamBudgetHeadroom: config.upstreamBudgetHeadroom,
    anonymousRateLimit: config.anonymousRateLimit,
    trustedProxies: config.trustedProxies,
    compiledExecution: config.compiledExecution,
    ...(config.cluster && { cluster: { ...config.cluster, onRedisState } }),
  });
  const served = createGatewayServer(gateway, { drainMs: config.drainMs, ...config.server });
  let opsServer: Server | undefined;
  const release = async () => {
    await gateway.dispose();
    if (opsServer?.listening) await new Promise((resolve) => opsServer!.close(resolve));
    await tracing.shutdown();
    await emulator?.close();
  };

  let url: string;
  let metricsOrigin: string | undefined;
  try {
    url = await served.listen(config.port, config.host);
    if (config.metrics.port !== undefined) {
      opsServer = createServer(ops.nodeHandler(endpoints));
      metricsOrigin = await listen(opsServer, config.metrics.port, config.host);
    }
  } catch (error) {
    await served.close();
    await release();
    throw error;
  }

  logger.info({ url, upstream: emulator ? 'demo emulator' : zulipUrl, ...(metricsOrigin && { metrics: metricsOrigin }) }, 'listening');
  log(`chatgraph: GraphQL on ${url}${config.graphiql ? ' (GraphiQL in a browser)' : ''}`);
  if (emulator) printDemoHelp(log, url, upstream!.url, demoAuthorization!);
  else log(`chatgraph: upstream chat server ${zulipUrl}${config.defaultCredentials ? ' (default credentials configured)' : ''}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    ...(metricsOrigin && { metricsOrigin }),
    close() {
      closing ??= (async () => {
        readiness.shutdown();
        // Ending subscriptions lets their SSE responses complete, so the drain is not held by them.
        await Promise.all([served.close(), gateway.hub.close()]);
        await release();
      })();
      return closing;
    },
    flushLogs: () => new Promise((resolve) => logger.flush(() => resolve())),
  };
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: actual } = server.address() as AddressInfo;
      resolve(`http://${host.includes(':') ? `[${host}]` : host}:${actual}`);
    });
  });
}

function printDemoHelp(log: (line: string) => void, url: string, emulatorUrl: string, authorization: string): void {
  const demo = DEMO_USERS[0]!;
  const body = JSON.stringify({ query: '{ serverSettings { realmName featureLevel } }' });
  log(`chatgraph: no ZULIP_URL set; serving the demo organization from the embedded emulator at ${emulatorUrl}`);
  log(`chatgraph: demo credential for ${demo.fullName} (${demo.email}), the organization owner:`);
  log(`  Authorization: ${authorization}`);
  log('chatgraph: try');
  log(`  curl -s ${url} -H 'content-type: application/json' -H 'authorization: ${authorization}' -d '${body}'`);
}

/** Runs until SIGTERM/SIGINT, then shuts down and exits 0 (a second signal exits at once). */
async function main(): Promise<void> {
  const config = configOrExit(process.env, process.argv.slice(2));
  let started: Started;
  try {
    started = await start(process.env, console.log, { config });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`chatgraph: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.error(`chatgraph: ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    console.log(`chatgraph: ${signal}, shutting down`);
    started.close().then(
      () => started.flushLogs().finally(() => process.exit(0)),
      (error: unknown) => (console.error('chatgraph: shutdown failed', error), process.exit(1)),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

if (isEntryPoint) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  });
}
