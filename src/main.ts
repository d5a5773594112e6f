/**
 * `npm start`: reads the environment, builds the gateway and serves it on node:http; without
 * ZULIP_URL it first starts the demo emulator. The one place outside the tests that wires the
 * emulator to the gateway (nothing under src/gateway imports src/emulator).
 *
 * | variable        | default     | meaning                                                        |
 * |-----------------|-------------|----------------------------------------------------------------|
 * | PORT            | 4000        | port to listen on (0 picks a free one)                         |
 * | HOST            | 127.0.0.1   | interface to listen on                                         |
 * | ZULIP_URL       | (none)      | chat server origin; unset starts the embedded demo emulator    |
 * | ZULIP_EMAIL     | (none)      | default identity for requests without Authorization, with...   |
 * | ZULIP_API_KEY   | (none)      | ...its API key (both or neither)                               |
 * | MAX_BODY_BYTES  | 2000000     | largest request body accepted                                  |
 * | NODE_ENV        | production  | graphql-js development checks when not `production`            |
 *
 * Without ZULIP_URL the emulator serves the demo organization on an ephemeral loopback port in
 * this process, and a ready-to-paste demo credential is printed.
 */
import { fileURLToPath } from 'node:url';
import { createEmulator } from './emulator/app.js';
import { DEMO_USERS } from './emulator/seed.js';
import type { Credentials } from './zulip/connection.js';

const isEntryPoint = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];

// `npm start` runs graphql-js in production mode unless NODE_ENV says otherwise: it then skips the
// development checks it makes on every failed type test during execution (README, Performance),
// and graphql-ws no longer puts internal error messages in close reasons. graphql reads NODE_ENV
// once, when it is loaded, so the gateway's modules (all of which load it) are imported by
// `start()`, after this line; the emulator does not load graphql.
if (isEntryPoint) process.env.NODE_ENV ??= 'production';

/** The gateway's own modules (see above). */
function loadGateway() {
  return Promise.all([import('./gateway/yoga.js'), import('./gateway/transport/http.js')]);
}

export interface Started {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql. */
  url: string;
  /** Stops accepting, lets requests in flight finish, then releases everything. */
  close(): Promise<void>;
}

function fail(message: string): never {
  throw new Error(`Configuration error: ${message}`);
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 4000;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port < 65536 ? port : fail(`PORT must be a port number, got "${value}".`);
}

function bodyLimitFrom(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const bytes = Number(value);
  return Number.isInteger(bytes) && bytes > 0 ? bytes : fail(`MAX_BODY_BYTES must be a positive integer, got "${value}".`);
}

function defaultCredentialsFrom(env: NodeJS.ProcessEnv): Credentials | undefined {
  const { ZULIP_EMAIL: email, ZULIP_API_KEY: apiKey } = env;
  if (!email && !apiKey) return undefined;
  if (!email || !apiKey) fail('set both ZULIP_EMAIL and ZULIP_API_KEY, or neither.');
  return { email, apiKey };
}

/** Starts the gateway (and, without ZULIP_URL, the demo emulator) from `env`. */
export async function start(env: NodeJS.ProcessEnv = process.env, log: (line: string) => void = console.log): Promise<Started> {
  const port = portFrom(env.PORT);
  const host = env.HOST || '127.0.0.1';
  const maxRequestBodyBytes = bodyLimitFrom(env.MAX_BODY_BYTES);
  const defaultCredentials = defaultCredentialsFrom(env);
  const [{ createGateway }, { createGatewayServer }] = await loadGateway();
  const emulator = env.ZULIP_URL ? undefined : createEmulator({ seed: 'demo' });
  const upstream = emulator ? await emulator.listen({ host: '127.0.0.1', port: 0 }) : undefined;
  const zulipUrl = upstream?.url ?? env.ZULIP_URL!;

  const gateway = createGateway({
    zulipUrl,
    ...(defaultCredentials && { defaultCredentials }),
    ...(maxRequestBodyBytes !== undefined && { maxRequestBodyBytes }),
  });
  const served = createGatewayServer(gateway);
  const url = await served.listen(port, host).catch(async (error: unknown) => {
    await gateway.dispose();
    await emulator?.close();
    throw error;
  });

  log(`chatgraph: GraphQL on ${url} (GraphiQL in a browser)`);
  if (emulator) printDemoHelp(log, url, upstream!.url);
  else log(`chatgraph: upstream chat server ${zulipUrl}${defaultCredentials ? ' (default credentials configured)' : ''}`);

  return {
    url,
    async close() {
      await served.close();
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
