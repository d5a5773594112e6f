/**
 * `npm start`: reads the environment, builds the gateway and listens on node:http.
 *
 * | variable        | default     | meaning                                                        |
 * |-----------------|-------------|----------------------------------------------------------------|
 * | PORT            | 4000        | port to listen on (0 picks a free one)                         |
 * | HOST            | 127.0.0.1   | interface to listen on                                         |
 * | ZULIP_URL       | (none)      | chat server origin; unset starts the embedded demo emulator    |
 * | ZULIP_EMAIL     | (none)      | default identity for requests without Authorization, with...   |
 * | ZULIP_API_KEY   | (none)      | ...its API key (both or neither)                               |
 * | NODE_ENV        | production  | graphql-js development checks when not `production`            |
 *
 * Without ZULIP_URL the emulator (src/emulator) serves the demo organization on an ephemeral
 * loopback port in this process, and a ready-to-paste demo credential is printed. This file and
 * the tests are the only places in the gateway that know the emulator exists.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createEmulator } from '../emulator/app.js';
import { DEMO_USERS } from '../emulator/seed.js';
import type { Credentials } from '../zulip/connection.js';

const isEntryPoint = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];

// `npm start` runs graphql-js in production mode unless NODE_ENV says otherwise: it then skips the
// development checks it makes on every failed type test during execution (README, Performance),
// and graphql-ws no longer puts internal error messages in close reasons. graphql reads NODE_ENV
// once, when it is loaded, so the gateway's modules (all of which load it) are imported by
// `start()`, after this line; the emulator does not load graphql.
if (isEntryPoint) process.env.NODE_ENV ??= 'production';

/** The gateway's own modules (see above). */
function loadGateway() {
  return Promise.all([import('./yoga.js'), import('./http.js'), import('./ws.js')]);
}

export interface Started {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql. */
  url: string;
  /** Stops accepting, lets requests in flight finish (up to `drainMs`), then releases everything. */
  close(): Promise<void>;
}

/** How long shutdown waits for requests in flight before cutting connections. */
const DRAIN_MS = 10_000;

function fail(message: string): never {
  throw new Error(`Configuration error: ${message}`);
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 4000;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port < 65536 ? port : fail(`PORT must be a port number, got "${value}".`);
}

function defaultCredentialsFrom(env: NodeJS.ProcessEnv): Credentials | undefined {
  const { ZULIP_EMAIL: email, ZULIP_API_KEY: apiKey } = env;
  if (!email && !apiKey) return undefined;
  if (!email || !apiKey) fail('set both ZULIP_EMAIL and ZULIP_API_KEY, or neither.');
  return { email, apiKey };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes the listener; connections still busy after `drainMs` are cut. */
function closeServer(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => (clearTimeout(cut), resolve()));
    server.closeIdleConnections();
  });
}

/** Starts the gateway (and, without ZULIP_URL, the demo emulator) from `env`. */
export async function start(env: NodeJS.ProcessEnv = process.env, log: (line: string) => void = console.log): Promise<Started> {
  const port = portFrom(env.PORT);
  const host = env.HOST || '127.0.0.1';
  const defaultCredentials = defaultCredentialsFrom(env);
  const [{ createGateway }, { createHttpHandler }, { attachGraphQLWs }] = await loadGateway();
  const emulator = env.ZULIP_URL ? undefined : createEmulator({ seed: 'demo' });
  const upstream = emulator ? await emulator.listen({ host: '127.0.0.1', port: 0 }) : undefined;
  const zulipUrl = upstream?.url ?? env.ZULIP_URL!;

  const gateway = createGateway({ zulipUrl, ...(defaultCredentials && { defaultCredentials }) });
  // JSON POSTs take http.ts's fast path; everything else is yoga's.
  const server = createServer(createHttpHandler(gateway));
  // graphql-ws on the same /graphql path (subscriptions; SSE needs nothing more).
  const ws = attachGraphQLWs(server, gateway);
  const actualPort = await listen(server, port, host).catch(async (error: unknown) => {
    await emulator?.close();
    throw error;
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}/graphql`;

  log(`chatgraph: GraphQL on ${url} (GraphiQL in a browser)`);
  if (emulator) printDemoHelp(log, url, upstream!.url);
  else log(`chatgraph: upstream chat server ${zulipUrl}${defaultCredentials ? ' (default credentials configured)' : ''}`);

  return {
    url,
    async close() {
      await ws.close(); // 1001 Going Away to every socket, before the drain
      await closeServer(server, DRAIN_MS);
      await gateway.dispose();
      await emulator?.close();
    },
  };
}

function printDemoHelp(log: (line: string) => void, url: string, emulatorUrl: string): void {
  const demo = DEMO_USERS[0]!;
  const authorization = `Basic ${Buffer.from(`${demo.email}:${demo.apiKey}`).toString('base64')}`;
  const body = JSON.stringify({ query: '{ serverSettings { realmName featureLevel } }' });
  log(`chatgraph: no ZULIP_URL set; serving the demo organization from the embedded emulator at ${emulatorUrl}`);
  log(`chatgraph: demo credential for ${demo.fullName} (${demo.email}), the organization owner:`);
  log(`  Authorization: ${authorization}`);
  log('chatgraph: try');
  log(`  curl -s ${url} -H 'content-type: application/json' -H 'authorization: ${authorization}' -d '${body}'`);
}

/** Runs until SIGINT/SIGTERM, then drains and exits. */
async function main(): Promise<void> {
  const started = await start();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`chatgraph: ${signal}, shutting down`);
    started.close().then(
      () => process.exit(0),
      (error: unknown) => (console.error('chatgraph: shutdown failed', error), process.exit(1)),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (isEntryPoint) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
