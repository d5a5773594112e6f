/**
 * Real-time test fixtures: a live gateway (served as `npm start` serves it, on an ephemeral loopback port) in
 * front of a live emulator (its own loopback port), a graphql-ws client that collects what a
 * subscription receives, and a raw protocol socket for close-code tests. Every wait is bounded.
 *
 * ```ts
 * const live = await startLiveGateway();
 * const client = live.client('hamlet');
 * const sub = collect(client, 'subscription { events { __typename } }');
 * await sub.waitFor(1);
 * await live.close();
 * ```
 */
import type { FormattedExecutionResult as ExecutionResult } from 'graphql';
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { demoUser } from '../../src/emulator/seed.js';
import { EventHub, type EventHubOptions } from '../../src/gateway/events/hub.js';
import { createGatewayServer } from '../../src/gateway/transport/http.js';
import type { GraphQLWsOptions } from '../../src/gateway/transport/ws.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/yoga.js';
import { basicAuth, TEST_LIVE_DIRECTORY } from './harness.js';
import { until } from './wait.js';

export { until } from './wait.js';

/** A backoff sleep that records the asked delays and waits `scale` of them (tests run in virtual time). */
export function scaledSleep(scale = 0.001) {
  const delays: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      delays.push(ms);
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, Math.max(1, ms * scale));
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  return { delays, sleep, virtualMs: () => delays.reduce((a, b) => a + b, 0) };
}

export interface LiveOptions {
  hub?: EventHubOptions;
  emulator?: Partial<EmulatorSettings>;
  ws?: GraphQLWsOptions;
  /** Extra gateway options (zulipUrl and eventHub are the fixture's). */
  gateway?: Partial<Omit<GatewayOptions, 'zulipUrl' | 'eventHub'>>;
}

export interface Live {
  emulator: Emulator;
  hub: EventHub;
  gateway: Gateway;
  /** http://127.0.0.1:port/graphql */
  url: string;
  /** ws://127.0.0.1:port/graphql */
  wsUrl: string;
  /** The emulator's origin. */
  upstreamUrl: string;
  /** Backoff delays the hub asked for (virtual time; each waited 1/1000th). */
  backoffDelays: number[];
  /** A graphql-ws client logged in as a demo user (or with explicit connection params). */
  client(login: string | Record<string, unknown>, options?: Partial<ClientOptions>): Client;
  /** `Authorization` header value of a demo user. */
  auth(login: string): string;
  userId(login: string): number;
  /** Closes the emulator's listener (dropping its connections); queues survive, as Tornado's do. */
  stopUpstream(): Promise<void>;
  /** Listens again on the same port. */
  startUpstream(): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveGateway(options: LiveOptions = {}): Promise<Live> {
  const emulator = createEmulator({ settings: options.emulator ?? {} });
  let upstream = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const upstreamPort = Number(new URL(upstream.url).port);
  const { delays, sleep } = scaledSleep();
  const hub = new EventHub({ graceMs: 300, backoff: { sleep }, unexpectedBackoff: { sleep }, ...options.hub });
  const gateway = createGateway({ logging: false, liveDirectory: TEST_LIVE_DIRECTORY, ...options.gateway, zulipUrl: upstream.url, eventHub: hub });
  const served = createGatewayServer(gateway, { ws: { keepAliveMs: 0, ...options.ws }, drainMs: 0 });
  const url = await served.listen(0, '127.0.0.1');
  const wsUrl = url.replace(/^http/, 'ws');
  const clients: Client[] = [];
  let upstreamUp = true;

  const auth = (login: string) => {
    const user = demoUser(login);
    return basicAuth({ email: user.email, apiKey: user.apiKey });
  };

  return {
    emulator,
    hub,
    gateway,
    url,
    wsUrl,
    upstreamUrl: upstream.url,
    backoffDelays: delays,
    auth,
    userId: (login) => emulator.store.userByEmail(demoUser(login).email)!.user_id,
    client(login, clientOptions = {}) {
      const connectionParams = typeof login === 'string' ? { authorization: auth(login) } : login;
      const client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        connectionParams,
        retryAttempts: 0,
        lazy: true,
        ...clientOptions,
      });
      clients.push(client);
      return client;
    },
    async stopUpstream() {
      if (!upstreamUp) return;
      upstreamUp = false;
      await upstream.close();
    },
    async startUpstream() {
      if (upstreamUp) return;
      upstream = await emulator.listen({ host: '127.0.0.1', port: upstreamPort });
      upstreamUp = true;
    },
    async close() {
      await Promise.all(clients.map((c) => c.dispose()));
      await served.close();
      await gateway.dispose();
      await emulator.close();
    },
  };
}

/** What one subscription received. */
export interface Collected<T = Record<string, unknown>> {
  results: ExecutionResult<T>[];
  /** Set when the subscription failed (graphql-ws `error` message or a socket close). */
  error: unknown;
  done: boolean;
  /** Resolves once `count` results arrived; rejects after `withinMs` naming what did. */
  waitFor(count: number, withinMs?: number): Promise<ExecutionResult<T>[]>;
  /** Resolves once the subscription completed or failed. */
  waitDone(withinMs?: number): Promise<void>;
  dispose(): void;
}

export function collect<T = Record<string, unknown>>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): Collected<T> {
  const collected: Collected<T> = {
    results: [],
    error: undefined,
    done: false,
    async waitFor(count, withinMs = 5000) {
      await until(
        () => collected.results.length >= count || (collected.done && collected.results.length < count),
        withinMs,
        `${count} results (got ${collected.results.length}: ${JSON.stringify(collected.results).slice(0, 400)})`,
      );
      if (collected.results.length < count) {
        throw new Error(`subscription ended after ${collected.results.length} of ${count} results: ${describe(collected.error)}`);
      }
      return collected.results.slice(0, count);
    },
    async waitDone(withinMs = 5000) {
      await until(() => collected.done, withinMs, 'the subscription to end');
    },
    dispose: () => unsubscribe(),
  };
  const unsubscribe = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => void collected.results.push(result as ExecutionResult<T>),
      error: (error) => {
        collected.error = error;
        collected.done = true;
      },
      complete: () => void (collected.done = true),
    },
  );
  return collected;
}

function describe(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error) return `close ${String((error as { code: unknown }).code)} ${String((error as { reason?: unknown }).reason ?? '')}`;
  return JSON.stringify(error);
}

/** A bare `graphql-transport-ws` socket, for protocol tests the client library would hide. */
export interface RawSocket {
  messages: Record<string, unknown>[];
  /** WebSocket pings received (keep-alive). */
  readonly pings: number;
  send(message: Record<string, unknown> | string): void;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  waitForMessage(predicate: (m: Record<string, unknown>) => boolean, withinMs?: number): Promise<Record<string, unknown>>;
  close(): void;
}

/** @param options `autoPong: false` makes the socket ignore WebSocket pings (a dead peer). */
export async function rawSocket(url: string, options: { autoPong?: boolean } = {}): Promise<RawSocket> {
  const socket = new WebSocket(url, 'graphql-transport-ws', options);
  const messages: Record<string, unknown>[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  let pings = 0;
  socket.on('ping', () => pings++);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    messages,
    get pings() {
      return pings;
    },
    closed,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    async waitForMessage(predicate, withinMs = 5000) {
      await until(() => messages.some(predicate), withinMs, 'a matching message');
      return messages.find(predicate)!;
    },
    close: () => socket.close(),
  };
}
