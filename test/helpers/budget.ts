/**
 * The budget's load shapes (issue 26): the emulator limits each user like Zulip (200 calls in any
 * 60 s by default, a sliding log), on a manual clock the gateway's buckets share, and every
 * upstream answer is recorded (who, status, when), so a test proves that the chat server never saw
 * more than the gateway's share of a user's rate, nor answered 429.
 */
import { ManualClock } from '../../src/emulator/clock.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { createGatewayServer, type GatewayServer } from '../../src/gateway/transport/http.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/yoga.js';
import type { FetchLike } from '../../src/zulip/connection.js';
import { closeWhenDone, storeLookups } from './emulator.js';
import { basicAuth, type GqlResult } from './harness.js';

/** One upstream answer, as the fetch seam saw it. */
export interface Answered {
  method: string;
  path: string;
  /** The caller's email (none: anonymous). */
  email: string | undefined;
  status: number;
  /** The manual clock when it was sent (ms). */
  at: number;
  /** The query string (its `queue_id`, `dont_block`…). */
  query: URLSearchParams;
}

export interface BudgetSetup {
  clock: ManualClock;
  emulator: Emulator;
  gateway: Gateway;
  answered: Answered[];
  /** The calls of `email` (all of them, polls included). */
  callsOf(email: string): Answered[];
  /** The most calls of `email` in any window of `windowMs` (the rate-limit window). */
  peakOf(email: string, windowMs?: number): number;
  /** Answers 429, of anyone. */
  rateLimited(): Answered[];
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, options?: { as?: string | null; headers?: Record<string, string> }): Promise<GqlResult<T>>;
  channelId(name: string): number;
  userId(email: string): number;
  /** The Authorization header of a user. */
  authorization(email: string): string;
  /** Serves the gateway on a loopback port (for SSE and WebSocket clients): its /graphql URL. */
  listen(): Promise<string>;
}

export const OWNER = DEMO_USERS[0]!.email;

export function setupBudget(options: { emulatorSettings?: Partial<EmulatorSettings>; gateway?: Partial<GatewayOptions> } = {}): BudgetSetup {
  const clock = new ManualClock(Date.now());
  const emulator = createEmulator({ clock, settings: { rateLimit: { limit: 200, windowSeconds: 60 }, ...options.emulatorSettings } });
  const answered: Answered[] = [];
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    const at = clock.now();
    const url = new URL(request.url);
    const authorization = request.headers.get('authorization');
    const email = authorization ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0] : undefined;
    const query = new URLSearchParams(url.search);
    if (request.method !== 'GET') for (const [k, v] of new URLSearchParams(await request.clone().text())) query.set(k, v);
    const response = await emulator.fetch(request);
    answered.push({ method: request.method, path: url.pathname.replace(/^\/api\/v1\//, ''), email, status: response.status, at, query });
    return response;
  };
  const gateway = createGateway({ logging: false, graphiql: false, ...options.gateway, zulipUrl: 'http://zulip.budget.localhost', fetch, budgetClock: clock });
  let server: GatewayServer | undefined;
  closeWhenDone(async () => {
    await server?.close();
    await gateway.dispose();
    await emulator.close();
  });
  const { userId, channelId } = storeLookups(emulator.store);
  const callsOf = (email: string) => answered.filter((a) => a.email === email);
  return {
    clock,
    emulator,
    gateway,
    answered,
    callsOf,
    peakOf(email, windowMs = 60_000) {
      const times = callsOf(email)
        .filter((a) => a.status !== 429)
        .map((a) => a.at)
        .sort((a, b) => a - b);
      let peak = 0;
      for (let i = 0, j = 0; j < times.length; j++) {
        while (times[j]! - times[i]! >= windowMs) i++;
        peak = Math.max(peak, j - i + 1);
      }
      return peak;
    },
    rateLimited: () => answered.filter((a) => a.status === 429),
    async gql(query, variables = {}, gqlOptions = {}) {
      const as = gqlOptions.as === undefined ? OWNER : gqlOptions.as;
      const user = as === null ? undefined : emulator.store.userByEmail(as);
      if (as !== null && !user) throw new Error(`no user ${as}`);
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...gqlOptions.headers };
      if (user) headers.authorization = basicAuth({ email: user.delivery_email, apiKey: user.api_key });
      const response = await gateway.fetch('http://gateway.localhost/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return { status: response.status, ...((await response.json()) as object) } as GqlResult<never>;
    },
    channelId,
    userId,
    authorization(email) {
      const user = emulator.store.userByEmail(email)!;
      return basicAuth({ email: user.delivery_email, apiKey: user.api_key });
    },
    async listen() {
      server ??= createGatewayServer(gateway, { drainMs: 0 });
      return server.listen(0, '127.0.0.1');
    },
  };
}
