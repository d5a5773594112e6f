/**
 * The entry point (`npm start`, `node dist/main.js`): reads and checks the configuration
 * (gateway/config: every variable, `--help`), builds the gateway with its logs, metrics, tracing and
 * readiness, serves it on node:http, and shuts down cleanly on SIGTERM/SIGINT. In the demo (DEMO=1,
 * which `npm start` sets, without ZULIP_URL) it first starts the emulator; in production a missing
 * ZULIP_URL is a configuration error. The one place outside the tests that wires the emulator to
 * the gateway (nothing under src/gateway imports src/emulator).
 *
 * stdout carries only the JSON log lines; the lines written for people (the URL, the demo
 * credential, shutdown) go to stderr. Each failure to start is one line on stderr, written once.
 *
 * Shutdown, in order: /readiness answers 503; WebSockets close with 1001 and the listener stops
 * accepting; every subscription ends (SSE streams with `complete`) and its upstream queue is
 * deleted; requests in flight finish within DRAIN_MS, then what is left is cut; the gateway, the
 * metrics port and the trace exporter are closed last.
 */
import './node-env.js'; // first: sets NODE_ENV before anything loads graphql
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

/** The gateway's own modules, loaded once the configuration is known good. */
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

/** Lines for people: on stderr, so that stdout holds JSON log lines only. */
const toStderr = (line: string) => void process.stderr.write(`${line}\n`);

/**
 * Starts the gateway (and, in the demo, the emulator) from `env`. A bad configuration rejects with
 * a ConfigError naming every problem, before anything is started.
 */
export async function start(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = toStderr,
  options: StartOptions = {},
): Promise<Started> {
  const config = options.config ?? loadConfig(env);
  const [{ createGateway }, { createGatewayServer }, ops, { loadTrustedDocuments }] = await loadGateway();
  let documents;
  if (config.gateway.persistedOperations.mode === 'trusted') {
    try {
      documents = loadTrustedDocuments(config.gateway.persistedOperations.file!);
    } catch (error) {
      throw new ConfigError([`PERSISTED_OPERATIONS_FILE: ${error instanceof Error ? error.message : String(error)}`]);
    }
  }

  const logger = ops.createLogger({ level: config.logLevel, ...(options.logDestination && { destination: options.logDestination }) });
  for (const warning of config.warnings) logger.warn(warning);
  const metrics = config.metrics.enabled ? new ops.GatewayMetrics() : undefined;
  const tracing = new ops.GatewayTracing(config.tracing, options.traceExporter);
  // The demo serves two organizations on two emulators, two servers of the allow-list
  // (docs/accounts.md): one session may hold an account on each.
  const emulator = config.demo ? createEmulator({ seed: 'demo' }) : undefined;
  const second = config.demo ? createEmulator({ seed: 'demo', settings: { realmName: SECOND_DEMO_ORGANIZATION } }) : undefined;
  const upstream = emulator ? await emulator.listen({ host: '127.0.0.1', port: 0 }) : undefined;
  const secondUpstream = second ? await second.listen({ host: '127.0.0.1', port: 0 }) : undefined;
  const zulipUrl = upstream?.url ?? config.zulipUrl!;
  const zulipServers = secondUpstream ? [secondUpstream.url] : config.zulipServers;
  // Cluster mode: readiness and metrics follow the Redis connection; its changes are logged.
  let redisState: string | undefined = config.cluster ? 'connecting' : undefined;
  const onRedisState = (state: string) => {
    redisState = state;
    metrics?.redisUp(state === 'connected');
    logger[state === 'connected' ? 'info' : 'warn']({ redis: state }, 'redis connection');
  };
  const { defaultCredentials, liveDirectory, messageCache } = config.gateway;
  let gateway: Gateway | undefined; // read by readiness once built
  const readiness = new ops.Readiness({
    zulipUrl,
    otherServers: zulipServers,
    cacheMs: config.readinessCacheMs,
    degradations: () => [
      ...(gateway?.directories?.degradations() ?? []),
      ...(messageCache && !liveDirectory ? ['message cache off: MESSAGE_CACHE needs LIVE_DIRECTORY (every messages page goes upstream)'] : []),
    ],
    ...(config.cluster && { redisState: () => redisState! }),
    ...(defaultCredentials && {
      defaultAuthorization: basicAuthorization(defaultCredentials),
      onDefaultCredentialsRefused: (reason: string) => logger.error({ variable: 'ZULIP_API_KEY' }, reason),
    }),
  });
  const endpoints = ops.opsEndpoints({ ...(metrics && { metrics }), metricsPath: config.metrics.path, readiness });
  const demoAuthorization = emulator ? basicAuthorization(DEMO_USERS[0]!) : undefined;

  gateway = createGateway({
    zulipUrl,
    zulipServers,
    ...config.gateway,
    graphiql: config.gateway.graphiql && { ...(demoAuthorization && { demoAuthorization }) },
    persistedOperations: { ...config.gateway.persistedOperations, ...(documents && { documents }) },
    logger,
    ...(metrics && { metrics }),
    ...(tracing.enabled && { tracing }),
    // With METRICS_PORT, health, readiness and metrics are served there only.
    ...(config.metrics.port === undefined && { endpoints }),
    ...(config.cluster && { cluster: { ...config.cluster, onRedisState } }),
  });
  const served = createGatewayServer(gateway, { ...config.server, ws: { perMessageDeflate: config.wsPerMessageDeflate } });
  let opsServer: Server | undefined;
  const release = async () => {
    await gateway.dispose();
    if (opsServer?.listening) await new Promise((resolve) => opsServer!.close(resolve));
    await tracing.shutdown();
    await emulator?.close();
    await second?.close();
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
  // Checked once, now: refused credentials are logged (once) and keep /readiness at 503.
  void readiness.checkDefaultCredentials();
  log(`chatgraph: GraphQL on ${url}${config.gateway.graphiql ? ' (GraphiQL in a browser)' : ''}`);
  if (emulator) printDemoHelp(log, url, upstream!.url, demoAuthorization!, secondUpstream!.url);
  else log(`chatgraph: upstream chat server ${zulipUrl}${defaultCredentials ? ' (default credentials configured)' : ''}`);

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

/** The second demo organization's name (the first keeps the seed's). */
const SECOND_DEMO_ORGANIZATION = 'Elsinore Players';

function printDemoHelp(log: (line: string) => void, url: string, emulatorUrl: string, authorization: string, secondUrl: string): void {
  const demo = DEMO_USERS[0]!;
  const body = JSON.stringify({ query: '{ serverSettings { realmName featureLevel } }' });
  log(`chatgraph: no ZULIP_URL set; serving the demo organization from the embedded emulator at ${emulatorUrl}`);
  log(`chatgraph: and a second organization, "${SECOND_DEMO_ORGANIZATION}", on a second server at ${secondUrl} (same demo users and keys): a session may hold an account on each (docs/accounts.md)`);
  log(`chatgraph: demo credential for ${demo.fullName} (${demo.email}), the organization owner:`);
  log(`  Authorization: ${authorization}`);
  log('chatgraph: try');
  log(`  curl -s ${url} -H 'content-type: application/json' -H 'authorization: ${authorization}' -d '${body}'`);
}

/** Why the listener could not open, in one line (EADDRINUSE and EACCES are an operator's to fix). */
function listenFailure(error: unknown, config: GatewayConfig): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const port = (error as { port?: number } | undefined)?.port ?? config.port;
  if (code === 'EADDRINUSE') return `port ${port} on ${config.host} is already in use (EADDRINUSE): stop what holds it, or set PORT (or METRICS_PORT) to a free port`;
  if (code === 'EACCES') return `not allowed to listen on port ${port} on ${config.host} (EACCES): use a port above 1023, or grant the capability`;
  if (code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine (EADDRNOTAVAIL)`;
  return undefined;
}

/** Runs until SIGTERM/SIGINT, then shuts down and exits 0 (a second signal exits at once). */
async function main(): Promise<void> {
  const config = configOrExit(process.env, process.argv.slice(2));
  let started: Started;
  try {
    started = await start(process.env, toStderr, { config });
  } catch (error) {
    // Each failure is written here once, as one line; nothing below start() logs it too.
    if (error instanceof ConfigError) {
      process.stderr.write(`chatgraph: ${error.problems.join('; ')}\n`);
      process.exit(2);
    }
    const listening = listenFailure(error, config);
    if (listening) {
      process.stderr.write(`chatgraph: ${listening}\n`);
      process.exit(1);
    }
    throw error;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      toStderr(`chatgraph: ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    toStderr(`chatgraph: ${signal}, shutting down`);
    started.close().then(
      () => started.flushLogs().finally(() => process.exit(0)),
      (error: unknown) => (toStderr(`chatgraph: shutdown failed: ${error instanceof Error ? error.message : String(error)}`), process.exit(1)),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

if (isEntryPoint) {
  main().catch((error: unknown) => {
    process.stderr.write(`chatgraph: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
