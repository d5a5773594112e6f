/**
 * `npm run bench:gateway`: what the gateway costs on top of the chat server's REST API.
 *
 * One run, one emulator (a child process on a loopback port, so its CPU is not counted as the
 * gateway's), one concurrency level (BENCH_CONCURRENCY, default 8; latency also at 1). It measures:
 * - (a) a single-endpoint query (`message(id)` → `GET /messages/{id}`) through the gateway vs the
 *   same REST call made directly with undici;
 * - (b) the dashboard query (100 newest messages with senders, channels and reaction users) vs a
 *   naive REST client (one `GET /messages`, then one call per distinct user and channel);
 * each for requests/second and p50/p99 latency (without and with 5 ms of added upstream latency),
 * upstream requests per query, and the gateway's CPU time per query (process.cpuUsage around a
 * sequential in-process run; the emulator's share is in the other process), with reference rows:
 * the same REST call through fetch, `{ __typename }` (the request pipeline alone), the same
 * queries in-process through yoga's fetch handler (`gateway.fetch`), and over loopback HTTP (this
 * process's CPU then includes the client's, about one direct REST call's worth). The gateway is
 * served as `npm start` serves it (transport/http.ts: yoga's node adapter).
 * `BENCH_PROFILE=single|dashboard|typename` runs only one CPU loop, for profiling with
 * `node --import tsx --cpu-prof bench/gateway-overhead.ts`.
 * `BENCH_MODE=transport` measures only the gateway process's CPU per query over loopback HTTP, the
 * client running in the emulator process (see compareTransports).
 *
 * Everything is bounded by a request count and a time limit, and stays on 127.0.0.1.
 * Targets: ≤ 0.3 ms gateway CPU per single-endpoint query, ≤ 3 ms per dashboard query, and with
 * 5 ms upstream latency a single-endpoint p50 within 1 ms of direct.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { cpuPerCall, median, type LoopBound } from './cpu.js';

const CHILD_FLAG = '--emulator-child';

// A production configuration: graphql-js skips its development-only checks (its `instanceOf`
// otherwise compares constructor names on every type test during execution). Set before the
// gateway (and graphql) is imported below.
process.env.NODE_ENV ??= 'production';

/** Load shape, the same for every comparison. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LATENCY_MS = 5;
const LIMITS = {
  single: { count: 3000, maxMs: 6000 },
  singleWithLatency: { count: 1500, maxMs: 8000 },
  dashboard: { count: 400, maxMs: 8000 },
  naive: { count: 150, maxMs: 8000 },
  cpuSingle: { count: 1000, maxMs: 5000 },
  cpuDashboard: { count: 150, maxMs: 5000 },
  cpuNaive: { count: 30, maxMs: 5000 },
};
/** Calls before each sequential CPU measurement, bounded in count and time. */
const WARMUP = { count: 2000, maxMs: 2000 };
/** Sequential CPU measurements are repeated; the table shows the minimum and the median. */
const CPU_ROUNDS = 3;
/** Extra organization data, so that a dashboard page has many distinct senders and channels. */
const SEED = { senders: 40, channels: 10, messages: 150 };

/** Load the emulator process drives against a gateway (BENCH_MODE=transport), so that none of the client's CPU is counted as the gateway's. */
interface Drive {
  url: string;
  query: string;
  variables: Record<string, unknown>;
  count: number;
  concurrency: number;
}

type ToChild =
  | { id: number; type: 'latency'; ms: number }
  | { id: number; type: 'cpu' }
  | { id: number; type: 'requests' }
  | { id: number; type: 'exit' }
  | ({ id: number; type: 'drive' } & Drive);
type FromChild =
  | { type: 'ready'; url: string; email: string; apiKey: string; messageId: number }
  | { id: number; type: 'ok' }
  | { id: number; type: 'cpu'; usage: NodeJS.CpuUsage }
  | { id: number; type: 'requests'; count: number }
  | { id: number; type: 'driven'; count: number };

// ---- the emulator process ----------------------------------------------------------------------------

async function runEmulatorChild(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { addChannel, addUser, insertMessage, subscribe } = await import('../src/emulator/factory.js');
  const { DEMO_USERS } = await import('../src/emulator/seed.js');
  const emulator = createEmulator({ seed: 'demo' });
  const store = emulator.store;
  const viewer = DEMO_USERS[0]!;
  const viewerId = store.userByEmail(viewer.email)!.user_id;
  const now = Date.now();
  const senders = Array.from({ length: SEED.senders }, (_, i) =>
    addUser(store, { full_name: `Bench Sender ${i}`, delivery_email: `bench${i}@zulip.example.com` }, now),
  );
  const channels = Array.from({ length: SEED.channels }, (_, i) =>
    addChannel(store, { name: `bench-${i}`, description: `Bench channel **${i}**` }, now),
  );
  for (const channel of channels) {
    subscribe(store, channel.stream_id, viewerId);
    for (const sender of senders) subscribe(store, channel.stream_id, sender.user_id);
  }
  let lastId = 0;
  for (let i = 0; i < SEED.messages; i++) {
    const sender = senders[i % SEED.senders]!;
    const message = insertMessage(store, {
      sender_id: sender.user_id,
      ...(i % 10 === 3 ? { to_user_ids: [viewerId] } : { stream_id: channels[i % SEED.channels]!.stream_id, topic: `topic ${i % 5}` }),
      content: `Bench message **${i}** with a [link](https://example.com/${i}).`,
      timestamp: Math.floor(now / 1000) - SEED.messages + i,
    });
    message.reactions.push({ emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji', user_id: senders[(i * 7 + 3) % SEED.senders]!.user_id });
    lastId = message.id;
  }
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const send = (message: FromChild) => process.send!(message);
  const auth = `Basic ${Buffer.from(`${viewer.email}:${viewer.apiKey}`).toString('base64')}`;
  const driver = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const drive = async ({ url: target, query, variables, count, concurrency }: Drive): Promise<number> => {
    let issued = 0;
    const worker = async () => {
      while (issued < count) {
        issued++;
        const { statusCode, body } = await request(target, {
          method: 'POST',
          dispatcher: driver,
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ query, variables }),
        });
        checkGraphQL(statusCode, await body.json());
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return issued;
  };
  // Never outlive the parent, whatever way it ends.
  process.once('disconnect', () => void emulator.close().then(() => process.exit(0)));
  process.on('message', (message: ToChild) => {
    switch (message.type) {
      case 'latency':
        emulator.faults.clear();
        if (message.ms > 0) emulator.faults.inject('*', { latencyMs: message.ms });
        return send({ id: message.id, type: 'ok' });
      case 'cpu':
        return send({ id: message.id, type: 'cpu', usage: process.cpuUsage() });
      case 'requests':
        return send({ id: message.id, type: 'requests', count: emulator.requests.length });
      case 'drive':
        void drive(message).then((count) => send({ id: message.id, type: 'driven', count }));
        return;
      case 'exit':
        void emulator.close().then(() => process.exit(0));
    }
  });
  send({ type: 'ready', url, email: viewer.email, apiKey: viewer.apiKey, messageId: lastId });
}

/** Request/response over the IPC channel to the emulator process. */
class EmulatorProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: FromChild) => void>();

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: FromChild) => {
      if ('id' in message) {
        this.waiting.get(message.id)?.(message);
        this.waiting.delete(message.id);
      }
    });
  }

  private ask<T extends FromChild>(message: { type: ToChild['type']; ms?: number } | ({ type: 'drive' } & Drive)): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (m: FromChild) => void);
      this.child.send({ ...message, id });
    });
  }

  async setLatency(ms: number): Promise<void> {
    await this.ask({ type: 'latency', ms });
  }

  async cpuUsage(): Promise<NodeJS.CpuUsage> {
    return (await this.ask<Extract<FromChild, { type: 'cpu' }>>({ type: 'cpu' })).usage;
  }

  async requestCount(): Promise<number> {
    return (await this.ask<Extract<FromChild, { type: 'requests' }>>({ type: 'requests' })).count;
  }

  /** Has the emulator process send `drive.count` queries to `drive.url`; resolves when all are answered. */
  async drive(drive: Drive): Promise<number> {
    return (await this.ask<Extract<FromChild, { type: 'driven' }>>({ type: 'drive', ...drive })).count;
  }

  exit(): void {
    this.child.send({ id: 0, type: 'exit' });
  }
}

// ---- the clients -------------------------------------------------------------------------------------

const SINGLE_QUERY = 'query One($id: Long!) { message(id: $id) { zulipId senderFullName content timestamp } }';

const DASHBOARD_QUERY = /* GraphQL */ `
  query Dashboard {
    messages(last: 100) {
      edges {
        node {
          zulipId content timestamp
          sender { fullName avatarUrl role }
          channel { name description }
          reactions { emojiName user { fullName } }
        }
      }
    }
  }
`;

interface Clients {
  /** Returns upstream requests made for the call. */
  singleGateway(): Promise<number>;
  singleDirect(): Promise<number>;
  dashboardGateway(): Promise<number>;
  dashboardNaive(): Promise<number>;
  /** The same as singleGateway/dashboardGateway but in-process (no HTTP hop: `gateway.fetch`), for CPU. */
  singleInProcess(): Promise<number>;
  dashboardInProcess(): Promise<number>;
  /** `{ __typename }` in-process: the request pipeline with no resolver and no upstream call. */
  typenameInProcess(): Promise<number>;
  /** The single REST call through the global fetch (for reference: the WHATWG fetch machinery's cost). */
  singleDirectFetch(): Promise<number>;
}

function makeClients(
  gatewayUrl: string,
  zulipUrl: string,
  auth: string,
  messageId: number,
  gatewayFetch: (request: Request) => Response | Promise<Response>,
  clientAgent: Agent,
): Clients {
  const graphql = async (query: string, variables: Record<string, unknown>, url = gatewayUrl): Promise<number> => {
    const { statusCode, body } = await request(`${url}/graphql`, {
      method: 'POST',
      dispatcher: clientAgent,
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ query, variables }),
    });
    return checkGraphQL(statusCode, await body.json());
  };
  const inProcess = async (query: string, variables: Record<string, unknown>): Promise<number> => {
    const response = await gatewayFetch(
      new Request('http://gateway.localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return checkGraphQL(response.status, await response.json());
  };
  const rest = async (path: string): Promise<Record<string, unknown>> => {
    const { statusCode, body } = await request(`${zulipUrl}/api/v1/${path}`, {
      dispatcher: clientAgent,
      headers: { authorization: auth, accept: 'application/json' },
    });
    const json = (await body.json()) as Record<string, unknown>;
    if (statusCode !== 200 || json.result !== 'success') throw new Error(`REST ${path}: ${statusCode} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  return {
    singleGateway: () => graphql(SINGLE_QUERY, { id: messageId }),
    singleInProcess: () => inProcess(SINGLE_QUERY, { id: messageId }),
    dashboardGateway: () => graphql(DASHBOARD_QUERY, {}),
    dashboardInProcess: () => inProcess(DASHBOARD_QUERY, {}),
    typenameInProcess: () => inProcess('{ __typename }', {}),
    async singleDirectFetch() {
      const response = await fetch(`${zulipUrl}/api/v1/messages/${messageId}`, { headers: { authorization: auth, accept: 'application/json' } });
      const json = (await response.json()) as { result?: string };
      if (json.result !== 'success') throw new Error(`REST fetch: ${response.status}`);
      return 1;
    },
    async singleDirect() {
      await rest(`messages/${messageId}`);
      return 1;
    },
    async dashboardNaive() {
      const page = await rest('messages?anchor=newest&num_before=100&num_after=0&apply_markdown=true&client_gravatar=false');
      const messages = page.messages as { sender_id: number; stream_id?: number; reactions: { user_id: number }[] }[];
      const users = new Set<number>();
      const channels = new Set<number>();
      for (const m of messages) {
        users.add(m.sender_id);
        if (m.stream_id !== undefined) channels.add(m.stream_id);
        for (const r of m.reactions) users.add(r.user_id);
      }
      await Promise.all([
        ...[...users].map((id) => rest(`users/${id}?client_gravatar=false`)),
        ...[...channels].map((id) => rest(`streams/${id}`)),
      ]);
      return 1 + users.size + channels.size;
    },
  };
}

function checkGraphQL(status: number, body: unknown): number {
  const result = body as { errors?: unknown[]; extensions?: { upstreamRequests?: number } };
  if (status !== 200 || result.errors) throw new Error(`GraphQL ${status}: ${JSON.stringify(result.errors ?? body).slice(0, 300)}`);
  return result.extensions?.upstreamRequests ?? Number.NaN;
}

// ---- measuring ---------------------------------------------------------------------------------------

interface LoadResult {
  count: number;
  rps: number;
  p50: number;
  p99: number;
  upstreamPerQuery: number;
}

/** Runs `call` with `concurrency` workers until `count` calls or `maxMs` elapse. */
async function load(call: () => Promise<number>, limits: { count: number; maxMs: number }, concurrency = CONCURRENCY): Promise<LoadResult> {
  const latencies: number[] = [];
  let upstream = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + limits.maxMs;
  const worker = async () => {
    while (issued < limits.count && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      const made = await call(); // (not `upstream += await ...`, which would read upstream before the await)
      latencies.push(performance.now() - t0);
      upstream += made;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    rps: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    upstreamPerQuery: upstream / latencies.length,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface CpuResult {
  count: number;
  /** This process, ms per call. */
  cpuMs: number;
  /** The emulator process, ms per call (context: what the upstream itself spends). */
  emulatorCpuMs: number;
}

/** Sequential calls, CPU time of this process (and of the emulator process) per call. */
async function cpuWithEmulator(call: () => Promise<number>, limits: LoopBound, emulator: EmulatorProcess): Promise<CpuResult> {
  // Warm-up (JIT, caches, keep-alive): V8 needs a few thousand queries to optimize the whole path,
  // and a short warm-up measured mostly the interpreter.
  await cpuPerCall(call, WARMUP);
  const emulatorBefore = await emulator.cpuUsage();
  const { cpuMs, count } = await cpuPerCall(call, limits);
  const emulatorUsed = diffCpu(await emulator.cpuUsage(), emulatorBefore);
  return { count, cpuMs, emulatorCpuMs: (emulatorUsed.user + emulatorUsed.system) / 1000 / count };
}

interface CpuRounds {
  min: CpuResult;
  median: CpuResult;
}

async function cpuRounds(call: () => Promise<number>, limits: LoopBound, emulator: EmulatorProcess): Promise<CpuRounds> {
  const rounds: CpuResult[] = [];
  for (let i = 0; i < CPU_ROUNDS; i++) rounds.push(await cpuWithEmulator(call, limits, emulator));
  rounds.sort((a, b) => a.cpuMs - b.cpuMs);
  return { min: rounds[0]!, median: rounds[Math.floor(rounds.length / 2)]! };
}

function diffCpu(after: NodeJS.CpuUsage, before: NodeJS.CpuUsage): NodeJS.CpuUsage {
  return { user: after.user - before.user, system: after.system - before.system };
}

// ---- the run -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const emulator = new EmulatorProcess(child);
  const ready = await new Promise<Extract<FromChild, { type: 'ready' }>>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`emulator process exited with ${code}`)));
    child.on('message', (message: FromChild) => message.type === 'ready' && resolve(message));
  });
  child.removeAllListeners('exit');

  // The gateway in this process, as `npm start` builds and serves it (default transport: undici's
  // request API; transport/http.ts).
  const { createGateway } = await import('../src/gateway/yoga.js');
  const { createGatewayServer } = await import('../src/gateway/transport/http.js');
  const gateway = createGateway({ zulipUrl: ready.url, logging: false, graphiql: false });
  const served = createGatewayServer(gateway, { drainMs: 0 });
  const gatewayUrl = (await served.listen(0, '127.0.0.1')).replace(/\/graphql$/, '');
  const clientAgent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
  const auth = `Basic ${Buffer.from(`${ready.email}:${ready.apiKey}`).toString('base64')}`;
  const c = makeClients(gatewayUrl, ready.url, auth, ready.messageId, (r) => gateway.fetch(r), clientAgent);

  try {
    // Sanity: each client works and costs what it should, counted by the emulator too.
    const before = await emulator.requestCount();
    const dashboardUpstream = await c.dashboardGateway();
    const counted = (await emulator.requestCount()) - before;
    console.log(`dashboard query: ${dashboardUpstream} upstream requests (emulator counted ${counted})`);

    // BENCH_PROFILE=<loop>: only one in-process CPU loop, for `node --cpu-prof` runs.
    const profiles: Record<string, [() => Promise<number>, LoopBound]> = {
      single: [c.singleInProcess, LIMITS.cpuSingle],
      dashboard: [c.dashboardInProcess, LIMITS.cpuDashboard],
      typename: [c.typenameInProcess, LIMITS.cpuSingle],
    };
    if (process.env.BENCH_MODE === 'transport') {
      await compareTransports(emulator, { served: `${gatewayUrl}/graphql` }, ready.messageId);
      return;
    }

    const only = process.env.BENCH_PROFILE;
    if (only !== undefined && profiles[only]) {
      const [call, limits] = profiles[only]!;
      const r = await cpuWithEmulator(call, limits, emulator);
      console.log(`${only}: ${r.cpuMs.toFixed(3)} ms CPU per query over ${r.count} queries (emulator ${r.emulatorCpuMs.toFixed(3)} ms)`);
      return;
    }

    console.log(
      `concurrency ${CONCURRENCY}; emulator in pid ${child.pid}, gateway and clients in pid ${process.pid}; ` +
        `${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, NODE_ENV=${process.env.NODE_ENV}\n`,
    );

    // CPU: several sequential rounds; the minimum is the least disturbed by other processes.
    const cpu = {
      single: await cpuRounds(c.singleInProcess, LIMITS.cpuSingle, emulator),
      singleHttp: await cpuRounds(c.singleGateway, LIMITS.cpuSingle, emulator),
      direct: await cpuRounds(c.singleDirect, LIMITS.cpuSingle, emulator),
      directFetch: await cpuRounds(c.singleDirectFetch, LIMITS.cpuSingle, emulator),
      floor: await cpuRounds(c.typenameInProcess, LIMITS.cpuSingle, emulator),
      dashboard: await cpuRounds(c.dashboardInProcess, LIMITS.cpuDashboard, emulator),
      naive: await cpuRounds(c.dashboardNaive, LIMITS.cpuNaive, emulator),
    };

    const rows: string[][] = [];
    const row = (name: string, r?: LoadResult, cpuResult?: CpuRounds) =>
      rows.push([
        name,
        r ? String(r.count) : '',
        r ? r.rps.toFixed(0) : '',
        r ? r.p50.toFixed(2) : '',
        r ? r.p99.toFixed(2) : '',
        r ? r.upstreamPerQuery.toFixed(1) : '',
        cpuResult ? `${cpuResult.min.cpuMs.toFixed(3)} / ${cpuResult.median.cpuMs.toFixed(3)}` : '',
        cpuResult ? cpuResult.min.emulatorCpuMs.toFixed(3) : '',
      ]);

    row('(a) single via gateway', await load(c.singleGateway, LIMITS.single), cpu.single);
    row('    over HTTP, gateway + client CPU', undefined, cpu.singleHttp);
    row('(a) single direct REST (undici.request)', await load(c.singleDirect, LIMITS.single), cpu.direct);
    row('    same REST call with fetch', undefined, cpu.directFetch);
    row('    gateway floor: { __typename }', undefined, cpu.floor);
    row('(b) dashboard via gateway', await load(c.dashboardGateway, LIMITS.dashboard), cpu.dashboard);
    row('(b) dashboard naive REST', await load(c.dashboardNaive, LIMITS.naive), cpu.naive);

    await emulator.setLatency(LATENCY_MS);
    const latency = {
      gateway1: await load(c.singleGateway, LIMITS.singleWithLatency, 1),
      direct1: await load(c.singleDirect, LIMITS.singleWithLatency, 1),
      gateway: await load(c.singleGateway, LIMITS.singleWithLatency),
      direct: await load(c.singleDirect, LIMITS.singleWithLatency),
    };
    row(`(a) single via gateway +${LATENCY_MS}ms, c=1`, latency.gateway1);
    row(`(a) single direct REST +${LATENCY_MS}ms, c=1`, latency.direct1);
    row(`(a) single via gateway +${LATENCY_MS}ms`, latency.gateway);
    row(`(a) single direct REST +${LATENCY_MS}ms`, latency.direct);
    row(`(b) dashboard via gateway +${LATENCY_MS}ms`, await load(c.dashboardGateway, LIMITS.dashboard));
    row(`(b) dashboard naive REST +${LATENCY_MS}ms`, await load(c.dashboardNaive, LIMITS.naive));
    await emulator.setLatency(0);

    printTable(['scenario', 'n', 'req/s', 'p50 ms', 'p99 ms', 'upstream/q', 'cpu ms/q min / median', 'emu cpu ms/q'], rows);
    console.log(
      `\nrows without "c=1" run ${CONCURRENCY} concurrent clients. cpu: this process per query, ${CPU_ROUNDS} sequential rounds ` +
        '(min / median); in-process for the gateway rows (gateway.fetch: gateway work incl. its upstream HTTP calls, no client hop), over HTTP for the REST rows (client work only) and the "over HTTP" rows ' +
        '(gateway, its node:http server and the client). emu cpu: the emulator process, per query.',
    );
    const overHttp = cpu.singleHttp.min.cpuMs - cpu.direct.min.cpuMs;
    console.log(
      `gateway CPU per single query over HTTP, estimated as (over HTTP) - (direct REST client): ${overHttp.toFixed(3)} ms`,
    );

    const gap = (g: LoadResult, d: LoadResult) => `${g.p50.toFixed(2)} vs ${d.p50.toFixed(2)} ms (+${(g.p50 - d.p50).toFixed(2)})`;
    const checks: [string, boolean, string][] = [
      ['gateway CPU per single-endpoint query ≤ 0.3 ms', cpu.single.min.cpuMs <= 0.3, `${cpu.single.min.cpuMs.toFixed(3)} ms`],
      ['gateway CPU per dashboard query ≤ 3 ms', cpu.dashboard.min.cpuMs <= 3, `${cpu.dashboard.min.cpuMs.toFixed(3)} ms`],
      [
        `single-endpoint p50 with ${LATENCY_MS} ms upstream latency within 1 ms of direct, c=1`,
        latency.gateway1.p50 - latency.direct1.p50 <= 1,
        gap(latency.gateway1, latency.direct1),
      ],
      [
        `single-endpoint p50 with ${LATENCY_MS} ms upstream latency within 1 ms of direct, c=${CONCURRENCY}`,
        latency.gateway.p50 - latency.direct.p50 <= 1,
        gap(latency.gateway, latency.direct),
      ],
      ['dashboard upstream requests per query ≤ 3', dashboardUpstream <= 3, `${dashboardUpstream}`],
    ];
    console.log('');
    for (const [name, ok, value] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${value}`);
  } finally {
    emulator.exit();
    await served.close();
    await gateway.dispose();
    await clientAgent.close();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill(), 2000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * BENCH_MODE=transport: the gateway process's CPU per query, over real HTTP on loopback, for each
 * server in `urls` (today one: the production server; two, e.g. a candidate fast path, are
 * compared side by side), the single-endpoint query and the dashboard interleaved, in BENCH_ROUNDS
 * rounds (default 3; medians reported). The client runs in the emulator process, so this process
 * does only the gateway's work.
 */
async function compareTransports(emulator: EmulatorProcess, urls: Record<string, string>, messageId: number): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
  const queries = {
    single: { query: SINGLE_QUERY, variables: { id: messageId }, count: 2000, warm: 1500 },
    dashboard: { query: DASHBOARD_QUERY, variables: {}, count: 200, warm: 150 },
  };
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [queryName, q] of Object.entries(queries)) {
      for (const [server, url] of Object.entries(urls)) {
        await emulator.drive({ url, query: q.query, variables: q.variables, count: q.warm, concurrency });
        const before = process.cpuUsage();
        const count = await emulator.drive({ url, query: q.query, variables: q.variables, count: q.count, concurrency });
        const used = process.cpuUsage(before);
        const key = `${queryName} ${server}`;
        const perQuery = (used.user + used.system) / 1000 / count;
        results.set(key, [...(results.get(key) ?? []), perQuery]);
        console.log(`round ${round + 1}: ${key}: ${perQuery.toFixed(3)} ms gateway CPU per query (${count} queries)`);
      }
    }
  }
  console.log(`\nmedians of ${rounds} rounds, concurrency ${concurrency}, ${availableParallelism()} CPUs, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}:`);
  for (const queryName of Object.keys(queries)) {
    const line = Object.keys(urls).map((server) => `${server} ${median(results.get(`${queryName} ${server}`)!).toFixed(3)} ms`);
    const [a, b] = Object.keys(urls).map((server) => median(results.get(`${queryName} ${server}`)!));
    const saving = b === undefined ? '' : `; ${Object.keys(urls)[0]} saves ${(((b - a!) / b) * 100).toFixed(1)}% of ${Object.keys(urls)[1]}`;
    console.log(`${queryName}: ${line.join(', ')}${saving}`);
  }
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

// Last, so every declaration above is initialized before either side runs.
if (process.argv.includes(CHILD_FLAG)) await runEmulatorChild();
else await main();
