/**
 * End-to-end harness: an emulator and a gateway wired through the `fetch` seam, in one process,
 * the gateway served exactly as `npm start` serves it (transport/http.ts's `createGatewayServer`)
 * on an ephemeral 127.0.0.1 port: `gql()` and `sse()` go over real HTTP through that listener.
 *
 * ```ts
 * const h = createHarness();
 * afterAll(() => h.close());
 * const { data, errors } = await h.gql('{ serverSettings { realmName } }', {}, { as: null });
 * expect(h.upstreamRequests).toHaveLength(1);
 * ```
 *
 * A test that changes the emulator's state takes a harness of its own, `setupHarness()`, which
 * closes when the test finishes.
 *
 * Each harness talks to its emulator under its own base URL, so per-server caches (the feature
 * level) never mix two harnesses of one test file.
 */
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import type { Credentials, FetchLike } from '../../src/zulip/connection.js';
import { createGatewayServer, type GatewayServer } from '../../src/gateway/transport/http.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/yoga.js';
import { closeWhenDone, storeLookups } from './emulator.js';
import { sseSubscribe, type SseStream } from './sse.js';

export interface HarnessOptions {
  /** @default 'demo' */
  seed?: 'demo' | 'empty';
  emulatorSettings?: Partial<EmulatorSettings>;
  /** Extra gateway options (zulipUrl and fetch are the harness's). @default { logging: false } */
  gateway?: Partial<Omit<GatewayOptions, 'zulipUrl' | 'fetch'>>;
  /** Serve the emulator on an ephemeral 127.0.0.1 port and use the real undici fetch. @default false */
  listen?: boolean;
}

/** One upstream call the gateway made, as seen at the fetch seam. */
export interface UpstreamRequest {
  method: string;
  /** Path relative to /api/v1, e.g. 'messages' or 'streams/7'. */
  path: string;
  /** Decoded query string. */
  query: Record<string, string>;
}

export interface GqlOptions {
  /**
   * Whose credentials: an email of a user in the emulator, explicit credentials, or null for no
   * Authorization header. @default the first demo user (the organization owner)
   */
  as?: string | Credentials | null;
  /** Extra request headers (override the defaults). */
  headers?: Record<string, string>;
}

export interface GqlResult<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  extensions?: Record<string, unknown>;
}

export interface Harness {
  emulator: Emulator;
  gateway: Gateway;
  /** The emulator's base URL as the gateway knows it. */
  zulipUrl: string;
  /** The gateway's endpoint, http://127.0.0.1:port/graphql (once the first gql() or `ready` resolved). */
  url: string;
  /** Resolves once the gateway listens. */
  ready: Promise<void>;
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: GqlOptions,
  ): Promise<GqlResult<T>>;
  /** A subscription over SSE (yoga's GraphQL over SSE) through the same listener. */
  sse<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, options?: GqlOptions): Promise<SseStream<T>>;
  /** Every upstream call since creation or the last `resetUpstreamRequests()`. */
  upstreamRequests: UpstreamRequest[];
  resetUpstreamRequests(): void;
  /** A user's ID in the emulator, by login (`'hamlet'`, as seeded) or email. */
  userId(who: string): number;
  /** A channel's ID in the emulator, by name. */
  channelId(name: string): number;
  close(): Promise<void>;
}

/** The `Authorization` header value for credentials (HTTP Basic, as Zulip expects). */
export function basicAuth(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`, 'utf8').toString('base64')}`;
}

/**
 * The whole suite runs with the live directory on (the default) or, with
 * `CHATGRAPH_TEST_LIVE_DIRECTORY=off`, with every lookup per request.
 */
export const TEST_LIVE_DIRECTORY = process.env.CHATGRAPH_TEST_LIVE_DIRECTORY !== 'off';

/**
 * The message cache (which follows the live directory's queues) is on unless
 * `CHATGRAPH_TEST_LIVE_CACHE=off` or `LIVE_CACHE=off`: then every `messages` page goes upstream.
 */
export const TEST_MESSAGE_CACHE = TEST_LIVE_DIRECTORY && process.env.CHATGRAPH_TEST_LIVE_CACHE !== 'off' && process.env.LIVE_CACHE !== 'off';

/** Queues registered with the live directory's state (`realm_user` fetched): the hub's, in the background. */
const directoryQueues = new Set<string>();

function isDirectoryQueueCall(url: URL, init: RequestInit | undefined): boolean {
  const path = url.pathname.replace(/^\/api\/v1\//, '');
  // The whole type name: `realm_user_settings_defaults` is another fetch type.
  if (path === 'register') return /fetch_event_types=[^&]*"realm_user"/.test(decodeURIComponent(String(init?.body ?? '')));
  if (path !== 'events') return false;
  const queueId = url.searchParams.get('queue_id') ?? new URLSearchParams(String(init?.body ?? '')).get('queue_id');
  return queueId !== null && directoryQueues.has(queueId);
}

/** Notes the queue ids of directory registrations, so their polls are recognised. */
function withoutDirectoryQueues(fetch: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.pathname.endsWith('/register') && isDirectoryQueueCall(url, init) && response.ok) {
      const body = (await response.clone().json()) as { queue_id?: string };
      if (body.queue_id) directoryQueues.add(body.queue_id);
    }
    return response;
  };
}

/** Wraps a fetch so that every call is recorded before it is made (except those `skip` picks). */
export function countingFetch(
  fetch: FetchLike,
  calls: UpstreamRequest[],
  skip: (url: URL, init: RequestInit | undefined) => boolean = () => false,
): FetchLike {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (!skip(url, init)) calls.push({
      method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(),
      path: url.pathname.replace(/^\/api\/v1\//, ''),
      query: Object.fromEntries(url.searchParams),
    });
    return fetch(input, init);
  };
}

let harnessCount = 0;

export function createHarness(options: HarnessOptions = {}): Harness {
  const emulator = createEmulator({ seed: options.seed ?? 'demo', settings: options.emulatorSettings ?? {} });
  const upstreamRequests: UpstreamRequest[] = [];
  let gateway: Gateway | undefined;
  let zulipUrl = `http://zulip-${++harnessCount}.localhost`;
  let served: GatewayServer | undefined;
  let url: string | undefined;

  const { userId, channelId } = storeLookups(emulator.store);

  const viaEmulator: FetchLike = (input, init) => emulator.fetch(new Request(input, init));
  // The live directory's queue traffic runs in the background: not a request's cost, so not listed.
  const build = (url: string, fetch: FetchLike) =>
    createGateway({
      logging: false,
      liveDirectory: TEST_LIVE_DIRECTORY,
      messageCache: TEST_MESSAGE_CACHE,
      ...options.gateway,
      zulipUrl: url,
      fetch: countingFetch(withoutDirectoryQueues(fetch), upstreamRequests, isDirectoryQueueCall),
    });

  const upstreamReady = options.listen
    ? emulator.listen({ host: '127.0.0.1', port: 0 }).then(({ url: upstreamUrl }) => {
        zulipUrl = upstreamUrl;
        gateway = build(upstreamUrl, (input, init) => fetch(input, init));
      })
    : Promise.resolve(void (gateway = build(zulipUrl, viaEmulator)));
  const ready = upstreamReady.then(async () => {
    served = createGatewayServer(gateway!, { drainMs: 0 });
    url = await served.listen(0, '127.0.0.1');
  });
  ready.catch(() => undefined); // reported by the first gql()

  const harness: Harness = {
    emulator,
    get gateway() {
      if (!gateway) throw new Error('harness: with listen: true, await the first gql() before using gateway');
      return gateway;
    },
    get zulipUrl() {
      return zulipUrl;
    },
    get url() {
      if (!url) throw new Error('harness: await h.ready (or a first gql()) before using url');
      return url;
    },
    ready,
    upstreamRequests,
    resetUpstreamRequests: () => void (upstreamRequests.length = 0),
    userId,
    channelId,
    async gql(query, variables, gqlOptions = {}) {
      await ready;
      const response = await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeader(emulator, gqlOptions.as), ...gqlOptions.headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, ...(await response.json()) };
    },
    async sse(query, variables = {}, gqlOptions = {}) {
      await ready;
      return sseSubscribe(url!, query, variables, { ...authHeader(emulator, gqlOptions.as), ...gqlOptions.headers });
    },
    async close() {
      await ready.catch(() => undefined);
      await served?.close();
      await gateway?.dispose();
      await emulator.close();
    },
  };
  return harness;
}

/**
 * A harness closed when the test that set it up finishes or, set up while a describe block is
 * collected, after that block's tests: for tests that change the emulator's state.
 */
export function setupHarness(options: HarnessOptions = {}): Harness {
  const harness = createHarness(options);
  closeWhenDone(() => harness.close());
  return harness;
}

function authHeader(emulator: Emulator, as: GqlOptions['as']): Record<string, string> {
  if (as === null) return {};
  if (as === undefined) return { authorization: basicAuth(DEMO_USERS[0]!) };
  if (typeof as !== 'string') return { authorization: basicAuth(as) };
  const user = emulator.store.userByEmail(as);
  if (!user) throw new Error(`harness: no user ${as} in the emulator`);
  return { authorization: basicAuth({ email: as, apiKey: user.api_key }) };
}
