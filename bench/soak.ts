/**
 * `npm run soak -- --minutes 60 [--redis] [--users 20] [--rate 20] [--out soak.json]`: a long run of
 * mixed traffic against the production entry point, to see what an hour does to memory, errors,
 * upstream cost and event delivery. A script, not a test: its figures go in the README.
 *
 * Processes (all on loopback):
 * - a **child** running the emulator, seeded with the demo organization plus `--users` soak users
 *   subscribed to one `soak` channel;
 * - a **child** running the gateway through `start()` (src/main.ts: logs at warn, metrics, live
 *   directory on), optionally in cluster mode against a redis-server this script starts (`--redis`);
 * - **this process**: the load and the report.
 *
 * The load, at `--rate` operations a second (at most 32 in flight; further ticks are skipped and
 * counted): the README dashboard and smaller queries, messages sent to `soak`, reactions added and
 * removed, messages edited and marked read, and subscription churn (a graphql-ws client or an SSE
 * stream opened, held until its first event or 5 s, then closed). Every soak user also holds one
 * graphql-ws subscription to `soak` for the whole run: each sent message must reach every one of
 * them exactly once, which is how loss and duplicates are counted.
 *
 * Reports, every `--sample-s` seconds, the gateway's RSS and heap; at the end their least-squares
 * slope (MB per hour, after the first 10% of the run), operations with their errors by code,
 * latencies and upstream calls per operation (`extensions.upstreamRequests`), all upstream calls
 * (the gateway's `chatgraph_upstream_requests_total` by route, event-queue polls included), and event
 * delivery. Bounded: `--minutes` at most 24 hours, and the run stops at its end whatever is in
 * flight.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { RedisServer, redisServerFound } from '../test/helpers/redis-server.js';
import { now, sleep } from './fanout.js';
import { sseFirstEvent } from './soak/sse.js';
import { Tally } from './soak/tally.js';

interface SoakUser {
  email: string;
  apiKey: string;
}

type Ipc =
  | { type: 'ready'; url: string; users?: SoakUser[] }
  | { type: 'sample' }
  | { type: 'sampled'; rss: number; heapUsed: number; cpuUs: number }
  | { type: 'stop' };

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '1' },
    users: { type: 'string', default: '20' },
    rate: { type: 'string', default: '20' },
    'sample-s': { type: 'string' },
    redis: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
  allowPositionals: false,
});
const MINUTES = Math.min(24 * 60, Math.max(0.1, Number(args.minutes)));
const USERS = Math.min(200, Math.max(2, Number(args.users)));
const RATE = Math.min(500, Math.max(1, Number(args.rate)));
const SAMPLE_S = Number(args['sample-s'] ?? Math.min(60, Math.max(5, (MINUTES * 60) / 20)));
const MAX_IN_FLIGHT = 32;
const CHURN_HOLD_MS = 5000;

const spawn = (role: 'emulator' | 'gateway', env: NodeJS.ProcessEnv = {}): ChildProcess =>
  fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, ...env, SOAK_ROLE: role }, execArgv: process.execArgv, silent: true });

function replyOf<T extends Ipc['type']>(child: ChildProcess, type: T): Promise<Extract<Ipc, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the ${type} reply never came: a child exited (${code})`));
    const onMessage = (m: Ipc) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<Ipc, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

// ---- the emulator child ------------------------------------------------------------------------------------

async function runEmulator(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { seedDemo } = await import('../src/emulator/seed.js');
  const { addChannel, addUser, apiKeyFor, subscribe } = await import('../src/emulator/factory.js');
  const users: SoakUser[] = [];
  const emulator = createEmulator({
    seed: () => {
      const t = Date.now();
      const store = seedDemo(t);
      const channel = addChannel(store, { name: 'soak', description: 'Soak traffic', creator_id: null }, t);
      for (let i = 0; i < USERS; i++) {
        const email = `soak${i}@zulip.example.com`;
        const user = addUser(store, { full_name: `Soak ${i}`, delivery_email: email }, t);
        subscribe(store, channel.stream_id, user.user_id);
        users.push({ email, apiKey: apiKeyFor(email) });
      }
      return store;
    },
  });
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  process.on('message', async (m: Ipc) => {
    if (m.type !== 'stop') return;
    await emulator.close();
    process.exit(0);
  });
  process.send!({ type: 'ready', url, users } satisfies Ipc);
}

// ---- the gateway child -------------------------------------------------------------------------------------

async function runGateway(): Promise<void> {
  const { start } = await import('../src/main.js');
  const started = await start(process.env, () => {});
  const cpu0 = process.cpuUsage();
  process.on('message', async (m: Ipc) => {
    if (m.type === 'sample') {
      const { rss, heapUsed } = process.memoryUsage();
      const cpu = process.cpuUsage(cpu0);
      process.send!({ type: 'sampled', rss, heapUsed, cpuUs: cpu.user + cpu.system } satisfies Ipc);
    }
    if (m.type === 'stop') {
      await started.close();
      await started.flushLogs();
      process.exit(0);
    }
  });
  process.send!({ type: 'ready', url: started.url } satisfies Ipc);
}

// ---- the load ----------------------------------------------------------------------------------------------

const DASHBOARD = `query Dashboard { messages(last: 100) { edges { cursor node {
  zulipId timestamp content sender { zulipId fullName avatarUrl role } channel { zulipId name description }
  reactions { emojiName user { zulipId fullName } } } } pageInfo { hasPreviousPage startCursor } } }`;
const SOAK_SUBSCRIPTION = 'subscription { messages(narrow: { channelName: "soak" }) { __typename ... on MessageEvent { message { zulipId } } } }';

interface Load {
  url: string;
  users: SoakUser[];
  tally: Tally;
  /** Message IDs sent to `soak`, with who sent them. */
  sent: Map<number, number>;
  reacted: Set<string>;
}

const authorization = (u: SoakUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}`;
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

async function graphql(load: Load, kind: string, user: SoakUser, query: string, variables: Record<string, unknown> = {}) {
  const started = now();
  try {
    const response = await fetch(load.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: authorization(user) },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[]; extensions?: { upstreamRequests?: number } };
    load.tally.record(kind, now() - started, body.extensions?.upstreamRequests ?? 0, body.errors?.[0]?.extensions?.code ?? (response.ok ? undefined : `HTTP_${response.status}`));
    return body.data;
  } catch (error) {
    load.tally.record(kind, now() - started, 0, `CLIENT_${(error as Error).name}`);
    return undefined;
  }
}

function recentMessage(load: Load): number | undefined {
  const ids = [...load.sent.keys()].slice(-50);
  return ids.length ? pick(ids) : undefined;
}

/** One operation of the mix, picked by weight. */
async function operate(load: Load): Promise<void> {
  const i = Math.floor(Math.random() * load.users.length);
  const user = load.users[i]!;
  const roll = Math.random();
  if (roll < 0.35) return void (await graphql(load, 'dashboard', user, DASHBOARD));
  if (roll < 0.45) return void (await graphql(load, 'me', user, '{ me { zulipId user { fullName } } serverSettings { featureLevel } }'));
  if (roll < 0.52) return void (await graphql(load, 'channels', user, '{ channels { zulipId name } }'));
  if (roll < 0.7) {
    const data = await graphql(load, 'sendMessage', user, 'mutation($m: String!, $t: String!) { sendMessage(channelName: "soak", topic: $t, content: $m) { messageId } }', {
      m: `soak ${now()}`,
      t: `topic ${i % 5}`,
    });
    const id = (data?.sendMessage as { id?: number } | undefined)?.id;
    if (id !== undefined) load.sent.set(id, i);
    return;
  }
  const messageId = recentMessage(load);
  if (messageId === undefined) return;
  if (roll < 0.8) {
    const key = `${i}:${messageId}`;
    const remove = load.reacted.has(key);
    const field = remove ? 'removeReaction' : 'addReaction';
    if (remove) load.reacted.delete(key);
    else load.reacted.add(key);
    return void (await graphql(load, field, user, `mutation($id: Long!) { ${field}(messageId: $id, emojiName: "octopus") { __typename } }`, { id: messageId }));
  }
  if (roll < 0.87) {
    return void (await graphql(load, 'markRead', user, 'mutation($ids: [Long!]!) { updateMessageFlags(messageIds: $ids, flag: READ, op: ADD) { __typename } }', { ids: [messageId] }));
  }
  if (roll < 0.92) {
    const own = [...load.sent].filter(([, sender]) => sender === i).slice(-5);
    if (own.length === 0) return;
    const [id] = pick(own);
    return void (await graphql(load, 'editMessage', user, 'mutation($id: Long!, $c: String!) { editMessage(messageId: $id, content: $c) { __typename } }', { id, c: `edited ${now()}` }));
  }
  if (roll < 0.96) return churnWebSocket(load, user);
  return churnSse(load, user);
}

async function churnWebSocket(load: Load, user: SoakUser): Promise<void> {
  const started = now();
  const client = createClient({ url: load.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization: authorization(user) }, retryAttempts: 0, lazy: true });
  let code: string | undefined;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CHURN_HOLD_MS);
    const stop = client.subscribe(
      { query: SOAK_SUBSCRIPTION },
      {
        next: () => (clearTimeout(timer), resolve()),
        error: (error) => ((code = `WS_${(error as { code?: number }).code ?? 'ERROR'}`), clearTimeout(timer), resolve()),
        complete: () => (clearTimeout(timer), resolve()),
      },
    );
    void stop;
  });
  await client.dispose();
  load.tally.record('churnWebSocket', now() - started, 0, code);
}

async function churnSse(load: Load, user: SoakUser): Promise<void> {
  const started = now();
  const code = await sseFirstEvent(load.url, SOAK_SUBSCRIPTION, { authorization: authorization(user) }, CHURN_HOLD_MS);
  load.tally.record('churnSse', now() - started, 0, code);
}

/** One graphql-ws subscription per user for the whole run: received message IDs, per user. */
function holdSubscriptions(load: Load): { clients: Client[]; received: Map<number, number>[]; resyncs: { count: number }; errors: string[] } {
  const received = load.users.map(() => new Map<number, number>());
  const resyncs = { count: 0 };
  const errors: string[] = [];
  const clients = load.users.map((user, i) => {
    const client = createClient({ url: load.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization: authorization(user) }, retryAttempts: 0 });
    client.subscribe<{ messages: { __typename: string; message?: { zulipId: number } } }>(
      { query: SOAK_SUBSCRIPTION },
      {
        next: ({ data }) => {
          const event = data?.messages;
          if (event?.__typename === 'ResyncEvent') resyncs.count++;
          const id = event?.message?.zulipId;
          if (id !== undefined) received[i]!.set(id, (received[i]!.get(id) ?? 0) + 1);
        },
        error: (error) => errors.push(String((error as Error).message ?? error)),
        complete: () => errors.push(`subscription of user ${i} completed early`),
      },
    );
    return client;
  });
  return { clients, received, resyncs, errors };
}

/**
 * Subscriptions have no acknowledgement: a probe message is sent to `soak` every half second until
 * every held subscription has received one, so that loss is counted only over messages sent after
 * all of them were live. Probes are not counted as sent.
 */
async function untilSubscribed(load: Load, received: Map<number, number>[]): Promise<void> {
  const deadline = now() + 60_000;
  while (received.some((m) => m.size === 0)) {
    if (now() > deadline) throw new Error('the held subscriptions did not all receive a probe within 60 s');
    await graphql(load, 'probe', load.users[0]!, 'mutation { sendMessage(channelName: "soak", topic: "probe", content: "probe") { messageId } }');
    await sleep(500);
  }
}

/** Least-squares slope of (seconds, MB) points, in MB per hour. */
function slopePerHour(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return (sxy / sxx) * 3600;
}

/** The gateway's upstream calls by route (event-queue polls included), from its Prometheus counter. */
async function upstreamCallsByRoute(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const byRoute: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('chatgraph_upstream_requests_total{')) continue;
    const route = /route="([^"]*)"/.exec(line)?.[1] ?? '?';
    byRoute[route] = (byRoute[route] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return byRoute;
}

async function main(): Promise<void> {
  const redis = args.redis ? await startRedis() : undefined;
  const emulator = spawn('emulator');
  const upstream = await replyOf(emulator, 'ready');
  const gatewayEnv: NodeJS.ProcessEnv = {
    ZULIP_URL: upstream.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...(redis && { REDIS_URL: redis.url, GATEWAY_SECRET: 'soak-secret-soak-secret-soak-secret-0123' }),
  };
  const gateway = spawn('gateway', gatewayEnv);
  let warnings = 0;
  gateway.stdout!.on('data', (chunk: Buffer) => (warnings += chunk.toString().split('\n').filter(Boolean).length));
  gateway.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { url } = await replyOf(gateway, 'ready');
  const load: Load = { url, users: upstream.users!, tally: new Tally(), sent: new Map(), reacted: new Set() };
  // A client library rejecting a promise nobody holds (graphql-ws on a refused socket) is counted,
  // not fatal: the soak reports it with the other client-side errors.
  process.on('unhandledRejection', (reason) => load.tally.record('unhandledClientRejection', 0, 0, `CLIENT_${(reason as { type?: string })?.type ?? (reason as Error)?.name ?? 'UNKNOWN'}`));
  const held = holdSubscriptions(load);
  await untilSubscribed(load, held.received);
  console.log(`soak: ${MINUTES} min, ${USERS} users, ${RATE} ops/s, ${args.redis ? 'Redis mode' : 'one instance'}; gateway ${url}`);

  const samples: { s: number; rss: number; heap: number; cpuUs: number }[] = [];
  const t0 = now();
  const endAt = t0 + MINUTES * 60_000;
  let inFlight = 0;
  let skipped = 0;
  let nextSample = t0;
  for (let tick = 0; now() < endAt; tick++) {
    if (now() >= nextSample) {
      const s = await sample(gateway);
      samples.push({ s: (now() - t0) / 1000, rss: s.rss / 2 ** 20, heap: s.heapUsed / 2 ** 20, cpuUs: s.cpuUs });
      console.log(`  ${(samples.at(-1)!.s / 60).toFixed(1)} min: RSS ${samples.at(-1)!.rss.toFixed(0)} MB, heap ${samples.at(-1)!.heap.toFixed(0)} MB, ${load.tally.total()} ops, ${load.tally.errors()} errors`);
      nextSample += SAMPLE_S * 1000;
    }
    if (inFlight >= MAX_IN_FLIGHT) skipped++;
    else {
      inFlight++;
      void operate(load).finally(() => inFlight--);
    }
    await sleep(Math.max(0, t0 + ((tick + 1) * 1000) / RATE - now()));
  }
  const drainUntil = now() + 30_000;
  while (inFlight > 0 && now() < drainUntil) await sleep(50);
  const expected = load.sent.size;
  while (held.received.some((m) => m.size < expected) && now() < drainUntil) await sleep(100);
  const final = await sample(gateway);
  samples.push({ s: (now() - t0) / 1000, rss: final.rss / 2 ** 20, heap: final.heapUsed / 2 ** 20, cpuUs: final.cpuUs });
  const byRoute = await upstreamCallsByRoute(url);
  const upstreamCalls = Object.values(byRoute).reduce((a, b) => a + b, 0);

  let lost = 0;
  let duplicates = 0;
  for (const got of held.received) {
    for (const id of load.sent.keys()) if (!got.has(id)) lost++;
    for (const count of got.values()) duplicates += count - 1;
  }
  const steady = samples.filter((s) => s.s >= MINUTES * 6);
  const report = {
    date: new Date().toISOString(),
    minutes: MINUTES,
    users: USERS,
    rate: RATE,
    redis: args.redis,
    operations: load.tally.summary(),
    skippedTicks: skipped,
    upstreamCallsTotal: upstreamCalls,
    upstreamCallsPerOperation: +(upstreamCalls / Math.max(1, load.tally.total())).toFixed(2),
    upstreamCallsByRoute: Object.fromEntries(Object.entries(byRoute).sort(([, a], [, b]) => b - a)),
    memory: {
      rssMbFirst: +samples[0]!.rss.toFixed(1),
      rssMbLast: +samples.at(-1)!.rss.toFixed(1),
      rssMbMax: +Math.max(...samples.map((s) => s.rss)).toFixed(1),
      heapMbLast: +samples.at(-1)!.heap.toFixed(1),
      rssSlopeMbPerHour: +slopePerHour(steady.map((s) => [s.s, s.rss])).toFixed(1),
      heapSlopeMbPerHour: +slopePerHour(steady.map((s) => [s.s, s.heap])).toFixed(1),
    },
    gatewayCpuMsPerOperation: +(final.cpuUs / 1000 / Math.max(1, load.tally.total())).toFixed(3),
    events: { sent: expected, subscribers: USERS, expectedDeliveries: expected * USERS, lost, duplicates, resyncs: held.resyncs.count, subscriptionErrors: held.errors.length },
    gatewayLogLinesAtWarnOrAbove: warnings,
    samples,
  };
  printReport(report);
  if (args.out) await writeFile(args.out, JSON.stringify(report, null, 2));

  await Promise.all(held.clients.map((c) => c.dispose()));
  gateway.send({ type: 'stop' } satisfies Ipc);
  await new Promise((resolve) => gateway.once('exit', resolve));
  emulator.send({ type: 'stop' } satisfies Ipc);
  await new Promise((resolve) => emulator.once('exit', resolve));
  await redis?.stop();
}

function sample(gateway: ChildProcess) {
  const reply = replyOf(gateway, 'sampled');
  gateway.send({ type: 'sample' } satisfies Ipc);
  return reply;
}

async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (!redisServerFound) throw new Error('--redis needs redis-server on the PATH (apt-get install -y redis-server)');
  const server = new RedisServer();
  await server.start();
  return { url: server.url, stop: () => server.dispose() };
}

function printReport(report: { operations: ReturnType<Tally['summary']> } & Record<string, unknown>): void {
  console.log('\n| operation | count | errors (by code) | upstream calls each | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const op of report.operations) {
    const codes = Object.entries(op.errorsByCode).map(([code, n]) => `${code} ${n}`).join(', ') || '0';
    console.log(`| ${op.kind} | ${op.count} | ${codes} | ${op.upstreamPerOperation} | ${op.p50Ms} | ${op.p99Ms} |`);
  }
  const { operations: _, samples: __, ...rest } = report;
  console.log('\n' + JSON.stringify(rest, null, 2));
}

const role = process.env.SOAK_ROLE;
const run = role === 'emulator' ? runEmulator : role === 'gateway' ? runGateway : main;
run().catch((error) => {
  console.error(error);
  process.exit(1);
});
