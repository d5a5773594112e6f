/**
 * `npm run bench:subscriptions`: fan-out of real-time events to many WebSocket subscribers.
 *
 * Processes (all on loopback):
 * - **this process**: the gateway alone (node:http + graphql-ws, one EventHub);
 * - a **child** running the emulator, with BENCH_USERS extra users all subscribed to one `bench`
 *   channel;
 * - a **child** running the BENCH_SUBSCRIBERS WebSocket clients (raw `graphql-transport-ws` over
 *   `ws`), spread evenly over the users, each with one
 *   `messages(narrow: { channelName: "bench" })` subscription. BENCH_CLIENTS=same runs them in
 *   this process instead (then RSS and CPU include the clients).
 *
 * The parent asks the emulator child (IPC) to send BENCH_MESSAGES messages to `bench`, one every
 * BENCH_INTERVAL_MS, and the child stamps each when the emulator has accepted it (its
 * `POST /messages` returned: stored and pushed to every queue). Each client stamps each arrival.
 * Fan-out latency = arrival − acceptance (one host clock; `performance.timeOrigin + now()`).
 *
 * Memory: before any subscriber connects, a warm-up (one subscriber per user receives one message,
 * then leaves) runs the whole path once; this process's RSS after it is the idle baseline. RSS is
 * then sampled every 20 ms until the end, and the cost of a subscriber is (peak RSS − baseline) /
 * subscribers.
 *
 * Reports upstream queues (live queues in the emulator; target = users), deliveries, fan-out latency
 * p50/p99/max (target p99 < 50 ms), RSS above the idle baseline per subscriber (target ≤ 40 KB), the
 * CPU time per delivery of the gateway (target ≤ 15 µs) and of the clients child over the sending
 * phase (from the first message until the last arrival; the arrival lists are fetched after it), and
 * the host's 1-minute load average: the clients share the host, so their CPU competes with the
 * gateway's. With BENCH_REPORT, writes the headline rows for bench:all (bench/report.ts). Bounded:
 * the run aborts after BENCH_DEADLINE_S.
 *
 * The floor (BENCH_FLOOR=off skips it): after the gateway, in the same run, a bare `ws` server in a
 * child of its own (bench/subscriptions-floor.ts) holds the same subscribers and sends each message
 * again as the very bytes the gateway sent, one `send` per socket; its CPU per delivery (user and
 * kernel), p50/p99 and RSS per subscriber are reported beside the gateway's, with the ratios
 * (target ≤ 1.3×). BENCH_SHAPE=mix: 2,000 users by default, the subscribers' documents in turn a
 * channel, a topic, the channel with the caller's flags, and DMs (see queryFor); BENCH_RATE: events
 * per second (instead of BENCH_INTERVAL_MS).
 *
 * Environment: BENCH_USERS (50; mix 2000), BENCH_SUBSCRIBERS (10000; at most 200 per user, the gateway's
 * default subscriptions per credential), BENCH_MESSAGES (40), BENCH_INTERVAL_MS (250),
 * BENCH_CLIENTS (child | same), BENCH_DEADLINE_S (360: both phases), and, to find where time and memory go
 * (their runs' figures do not count):
 * - BENCH_CPU_PROFILE (a file name): a V8 CPU profile of this process over the sending phase;
 * - BENCH_HEAP_PROFILE (a file name): a sampled allocation profile of the sending phase, garbage included;
 * - BENCH_HEAP_SNAPSHOT (a path prefix): heap snapshots at the idle baseline (`-idle.heapsnapshot`)
 *   and with every subscriber connected (`-connected.heapsnapshot`), to diff by constructor.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import WebSocket from 'ws';
import { ask, deliveries, latencySummary, now, ready, sendMessages, sleep, type BenchUser, type Message } from './fanout.js';
import { writeReport, type ReportRow } from './report.js';
import { runFloor, type FloorMessage } from './subscriptions-floor.js';
import { until } from '../test/helpers/wait.js';

/** `base` (one document for all) or `mix` (four documents over 2,000 credentials; see queryFor). */
const SHAPE = process.env.BENCH_SHAPE === 'mix' ? 'mix' : 'base';
const USERS = Number(process.env.BENCH_USERS ?? (SHAPE === 'mix' ? 2000 : 50));
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 40);
const INTERVAL_MS = process.env.BENCH_RATE ? 1000 / Number(process.env.BENCH_RATE) : Number(process.env.BENCH_INTERVAL_MS ?? 250);
/** Measure the raw-broadcast floor after the gateway, in the same run (BENCH_FLOOR=off: the gateway alone). */
const FLOOR = process.env.BENCH_FLOOR !== 'off';
const CLIENTS_IN_CHILD = (process.env.BENCH_CLIENTS ?? 'child') !== 'same';
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 360);
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
const HEAP_PROFILE = process.env.BENCH_HEAP_PROFILE;
const HEAP_SNAPSHOT = process.env.BENCH_HEAP_SNAPSHOT;
const TARGETS = { p99Ms: 50, kbPerSubscriber: 40, cpuPerDeliveryUs: 15, floorRatio: 1.3, floorKbPerSubscriber: 10 };
const MB = 1024 * 1024;

function spawn(role: 'emulator' | 'clients' | 'floor'): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, BENCH_ROLE: role }, execArgv: process.execArgv });
}

// ---- the emulator child ----------------------------------------------------------------------------------

async function runEmulator(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { seedDemo } = await import('../src/emulator/seed.js');
  const { addChannel, addUser, apiKeyFor, subscribe } = await import('../src/emulator/factory.js');
  const users: BenchUser[] = [];
  const emulator = createEmulator({
    seed: () => {
      const t = Date.now();
      const store = seedDemo(t);
      const channel = addChannel(store, { name: 'bench', description: 'Benchmark traffic', creator_id: null }, t);
      for (let i = 0; i < USERS; i++) {
        const email = `bench${i}@zulip.example.com`;
        const user = addUser(store, { full_name: `Bench ${i}`, delivery_email: email }, t);
        subscribe(store, channel.stream_id, user.user_id);
        users.push({ email, apiKey: apiKeyFor(email), userId: user.user_id });
      }
      return store;
    },
  });
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const sender = users[0]!;
  const authorization = `Basic ${Buffer.from(`${sender.email}:${sender.apiKey}`).toString('base64')}`;
  process.on('message', async (message: Message) => {
    if (message.type === 'stop') {
      await emulator.close();
      process.exit(0);
    }
    if (message.type === 'queues') process.send!({ type: 'queueCount', count: emulator.queues.size() } satisfies Message);
    if (message.type !== 'send') return;
    const body = new URLSearchParams({ type: 'stream', to: 'bench', topic: 'load', content: `message ${message.n}` });
    const response = await emulator.fetch(
      new Request(`${url}/api/v1/messages`, { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body }),
    );
    const acceptedAt = now();
    const { id } = (await response.json()) as { id: number };
    process.send!({ type: 'sent', n: message.n, id, acceptedAt } satisfies Message);
  });
  process.send!({ type: 'ready', url, users } satisfies Message);
}

// ---- the subscribers (a child, or this process) ---------------------------------------------------------

const QUERY = 'subscription { messages(narrow: { channelName: "bench" }) { ... on MessageEvent { message { zulipId } } } }';

/**
 * The document subscriber `i` sends. The base shape: {@link QUERY} for all. The mix: in turn the
 * channel, the channel and its topic, the channel with the caller's own flags in every payload, and
 * the DMs with the sender (which the bench's channel messages never match: they cost the filter
 * and the memory, and receive nothing).
 */
function queryFor(i: number, users: BenchUser[]): string {
  if (SHAPE !== 'mix') return QUERY;
  const selection = '{ ... on MessageEvent { message { zulipId } } }';
  switch (i % 4) {
    case 0:
      return QUERY;
    case 1:
      return `subscription { messages(narrow: { channelName: "bench", topic: "load" }) ${selection} }`;
    case 2:
      return 'subscription { messages(narrow: { channelName: "bench" }) { ... on MessageEvent { message { zulipId flags } } } }';
    default:
      return `subscription { messages(narrow: { dmIncluding: ${users[0]!.userId} }) ${selection} }`;
  }
}

/** Subscribers (of `count`) whose document receives the bench's channel messages. */
const receiving = (count: number) => (SHAPE === 'mix' ? count - Math.floor(count / 4) : count);

class Subscribers {
  readonly arrivals = new Map<number, number[]>();
  readonly errors: string[] = [];
  /** The first `next` message each document received, as text (the floor sends the same bytes). */
  readonly samples: Record<string, string> = {};
  received = 0;
  private readonly sockets: WebSocket[] = [];

  /** Connects `count` subscribers, 250 at a time, each resolved once its subscription is sent. */
  async connect(wsUrl: string, users: BenchUser[], count: number): Promise<void> {
    for (let i = 0; i < count; i += 250) {
      const batch = Array.from({ length: Math.min(250, count - i) }, (_, k) => this.one(wsUrl, users[(i + k) % users.length]!, queryFor(i + k, users)));
      this.sockets.push(...(await Promise.all(batch)));
    }
  }

  close(): void {
    for (const socket of this.sockets) socket.close(1000);
  }

  private one(wsUrl: string, user: BenchUser, query: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { email: user.email, apiKey: user.apiKey } })));
      socket.on('message', (data) => {
        const at = now();
        const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { messages?: { message?: { zulipId: number } } } } };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
          resolve(socket);
        } else if (message.type === 'next') {
          this.samples[query] ??= String(data);
          const id = message.payload?.data?.messages?.message?.zulipId;
          if (id === undefined) this.errors.push(JSON.stringify(message.payload).slice(0, 200));
          else {
            (this.arrivals.get(id) ?? this.arrivals.set(id, []).get(id)!).push(at);
            this.received++;
          }
        } else if (message.type === 'error') {
          this.errors.push(JSON.stringify(message.payload).slice(0, 200));
        }
      });
      socket.on('error', reject);
      socket.on('close', (code) => {
        if (code !== 1000 && code !== 1001 && code !== 1005) this.errors.push(`socket closed ${code}`);
      });
    });
  }
}

async function runClients(): Promise<void> {
  const subscribers = new Subscribers();
  let cpuConnected = process.cpuUsage();
  process.on('message', async (message: Message) => {
    if (message.type === 'connect') {
      await subscribers.connect(message.wsUrl, message.users, message.count);
      cpuConnected = process.cpuUsage();
      process.send!({ type: 'connected' } satisfies Message);
    } else if (message.type === 'progress') {
      const cpu = process.cpuUsage(cpuConnected);
      process.send!({ type: 'progressed', received: subscribers.received, cpuUs: cpu.user + cpu.system } satisfies Message);
    } else if (message.type === 'report') {
      process.send!({ type: 'arrivals', arrivals: [...subscribers.arrivals], errors: subscribers.errors, samples: subscribers.samples } satisfies Message);
    } else if (message.type === 'stop') {
      subscribers.close();
      await sleep(100);
      process.exit(0);
    }
  });
  process.send!({ type: 'ready', url: '', users: [] } satisfies Message);
}

// ---- the gateway (this process) -----------------------------------------------------------------------------

async function runBench(): Promise<void> {
  const started = Date.now();
  const deadline = setTimeout(() => {
    console.error(`bench: deadline of ${DEADLINE_S} s exceeded`);
    process.exit(2);
  }, DEADLINE_S * 1000);
  deadline.unref();

  const emulatorChild = spawn('emulator');
  const clientsChild = CLIENTS_IN_CHILD ? spawn('clients') : undefined;
  try {
    const [upstream] = await Promise.all([ready(emulatorChild), clientsChild && ready(clientsChild)]);
    const { EventHub } = await import('../src/gateway/events/hub.js');
    const { createGatewayServer } = await import('../src/gateway/transport/http.js');
    const { createGateway } = await import('../src/gateway/yoga.js');
    const hub = new EventHub({ slowConsumerLimit: 10_000 });
    const gateway = createGateway({ zulipUrl: upstream.url, logging: false, graphiql: false, eventHub: hub });
    const served = createGatewayServer(gateway, { drainMs: 0 });
    const wsUrl = (await served.listen(0, '127.0.0.1')).replace(/^http/, 'ws');

    // Warm-up: one subscriber per user, in this process, receives one message and leaves.
    const warm = new Subscribers();
    await warm.connect(wsUrl, upstream.users, upstream.users.length);
    await until(() => gateway.graphqlSubscriptions.clients === upstream.users.length, 30_000, 'every client subscribed', 20);
    await sendMessages(emulatorChild, 1, 0);
    await until(() => warm.received === receiving(upstream.users.length), 10_000, 'the warm-up event everywhere', 20);
    warm.close();
    await until(() => gateway.graphqlSubscriptions.clients === 0, 10_000, 'every client gone', 20);
    await sleep(500);
    const baselineRss = process.memoryUsage.rss();
    if (HEAP_SNAPSHOT) writeHeapSnapshot(`${HEAP_SNAPSHOT}-idle.heapsnapshot`);
    let peakRss = baselineRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);

    const local = clientsChild ? undefined : new Subscribers();
    const connectStart = Date.now();
    if (clientsChild) await ask(clientsChild, { type: 'connect', wsUrl, users: upstream.users, count: SUBSCRIBERS }, 'connected');
    else await local!.connect(wsUrl, upstream.users, SUBSCRIBERS);
    // Subscriptions start after the ack, asynchronously: wait (bounded) until all are served.
    while (gateway.graphqlSubscriptions.clients < SUBSCRIBERS && Date.now() - connectStart < 60_000) await sleep(50);
    const connectMs = Date.now() - connectStart;
    const { count: queues } = await ask(emulatorChild, { type: 'queues' }, 'queueCount');
    const connectedRss = process.memoryUsage.rss();
    if (HEAP_SNAPSHOT) writeHeapSnapshot(`${HEAP_SNAPSHOT}-connected.heapsnapshot`);

    const profiler = CPU_PROFILE ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const heapProfiler = HEAP_PROFILE ? new Session() : undefined;
    if (heapProfiler) {
      heapProfiler.connect();
      await heapProfiler.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    const loadAtStart = loadavg()[0]!;
    const cpuBefore = process.cpuUsage();
    const accepted = await sendMessages(emulatorChild, MESSAGES, INTERVAL_MS);
    const expected = MESSAGES * receiving(SUBSCRIBERS);
    // Wait (bounded) for the last arrival with a cheap counter; the arrival lists come after the CPU reading.
    const progress = async () =>
      clientsChild ? await ask(clientsChild, { type: 'progress' }, 'progressed') : { received: local!.received, cpuUs: NaN };
    let progressed = await progress();
    for (const waitStart = Date.now(); progressed.received < expected && Date.now() - waitStart < 20_000; progressed = await progress()) await sleep(100);
    const cpu = process.cpuUsage(cpuBefore);
    const loadAtEnd = loadavg()[0]!;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      await writeFile(CPU_PROFILE!, JSON.stringify(profile));
      profiler.disconnect();
    }
    if (heapProfiler) {
      const { profile } = await heapProfiler.post('HeapProfiler.stopSampling');
      await writeFile(HEAP_PROFILE!, JSON.stringify(profile));
      heapProfiler.disconnect();
    }
    const result = clientsChild
      ? await ask(clientsChild, { type: 'report' }, 'arrivals')
      : { arrivals: [...local!.arrivals], errors: local!.errors, samples: local!.samples };
    const received = deliveries(result.arrivals);
    clearInterval(sampler);
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    const kbPerSubscriber = +((peakRss - baselineRss) / 1024 / SUBSCRIBERS).toFixed(1);
    const latencyMs = latencySummary(accepted, result.arrivals);
    const gatewayCpu = { user: cpu.user / Math.max(1, received), system: cpu.system / Math.max(1, received) };
    const report = {
      shape: SHAPE,
      processes: clientsChild ? 'gateway here; emulator and clients in two child processes' : 'gateway and clients here; emulator in a child process',
      users: USERS,
      subscribers: SUBSCRIBERS,
      subscriptionsServed: gateway.graphqlSubscriptions.clients,
      hubSubscribers: hub.stats().subscribers,
      upstreamQueues: queues,
      connectSeconds: +(connectMs / 1000).toFixed(1),
      messages: MESSAGES,
      intervalMs: INTERVAL_MS,
      deliveriesExpected: expected,
      deliveriesReceived: received,
      latencyMs,
      gatewayCpuPerDeliveryUs: +(gatewayCpu.user + gatewayCpu.system).toFixed(1),
      // System time is mostly the kernel's share of the socket writes (one per delivery).
      gatewayCpuPerDeliverySplitUs: { user: +gatewayCpu.user.toFixed(1), system: +gatewayCpu.system.toFixed(1) },
      clientsCpuPerDeliveryUs: clientsChild ? +(progressed.cpuUs / Math.max(1, received)).toFixed(1) : null,
      loadAverage1m: { atStart: +loadAtStart.toFixed(2), atEnd: +loadAtEnd.toFixed(2), cores: availableParallelism() },
      gatewayRssMB: { idleBaseline: Math.round(baselineRss / MB), connected: Math.round(connectedRss / MB), peak: Math.round(peakRss / MB), end: Math.round(memory.rss / MB) },
      gatewayKBPerSubscriberAboveIdle: kbPerSubscriber,
      gatewayHeapUsedMB: Math.round(memory.heapUsed / MB),
      errors: result.errors.length,
      firstErrors: result.errors.slice(0, 3),
    };
    console.log(JSON.stringify(report, null, 2));

    // The gateway is done: nothing of it competes with the floor for the cores.
    local?.close();
    clientsChild?.send({ type: 'stop' } satisfies Message);
    await served.close();
    await gateway.dispose();
    console.log(`gateway phase done (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const floor = FLOOR && clientsChild ? await measureFloor([...accepted.keys()], result.samples ?? {}, upstream.users, expected) : undefined;
    if (floor) console.log(JSON.stringify({ floor }, null, 2));

    const verdicts = {
      queues: queues === USERS,
      deliveries: report.deliveriesReceived === expected,
      p99: report.latencyMs.p99 < TARGETS.p99Ms,
      memory: kbPerSubscriber <= TARGETS.kbPerSubscriber,
      cpu: report.gatewayCpuPerDeliveryUs <= TARGETS.cpuPerDeliveryUs,
    };
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISS');
    console.log(
      `targets: queues ${queues}/${USERS} ${mark(verdicts.queues)}; deliveries ${received}/${expected} ${mark(verdicts.deliveries)}; ` +
        `p99 ${report.latencyMs.p99} ms < ${TARGETS.p99Ms} ${mark(verdicts.p99)}; ` +
        `RSS above idle ${kbPerSubscriber} KB per subscriber ≤ ${TARGETS.kbPerSubscriber} ${mark(verdicts.memory)}; ` +
        `gateway CPU ${report.gatewayCpuPerDeliveryUs} µs per delivery ≤ ${TARGETS.cpuPerDeliveryUs} ${mark(verdicts.cpu)}`,
    );
    const floorRows: ReportRow[] = [];
    if (floor) {
      const ratio = (a: number, b: number) => +(a / b).toFixed(2);
      const cpuRatio = ratio(report.gatewayCpuPerDeliveryUs, floor.cpuPerDeliveryUs.user + floor.cpuPerDeliveryUs.system);
      const p99Ratio = ratio(latencyMs.p99, floor.latencyMs.p99);
      console.log(
        `floor (bare ws, same bytes): CPU ${floor.cpuPerDeliveryUs.user} + ${floor.cpuPerDeliveryUs.system} µs (user + kernel) per delivery, ` +
          `p50 ${floor.latencyMs.p50} ms, p99 ${floor.latencyMs.p99} ms, ${floor.kbPerSubscriber} KB per subscriber; ` +
          `gateway / floor: CPU ${cpuRatio}× ≤ ${TARGETS.floorRatio} ${mark(cpuRatio <= TARGETS.floorRatio)}, p99 ${p99Ratio}× ≤ ${TARGETS.floorRatio} ${mark(p99Ratio <= TARGETS.floorRatio)}; ` +
          `${kbPerSubscriber} KB per subscriber ≤ ${TARGETS.floorKbPerSubscriber} ${mark(kbPerSubscriber <= TARGETS.floorKbPerSubscriber)}`,
      );
      floorRows.push(
        { metric: 'gateway CPU per delivery / raw-broadcast floor (bare ws, same bytes)', value: cpuRatio, unit: '×', target: `≤ ${TARGETS.floorRatio}×`, met: cpuRatio <= TARGETS.floorRatio },
        { metric: 'fan-out p99 / raw-broadcast floor p99', value: p99Ratio, unit: '×', target: `≤ ${TARGETS.floorRatio}×`, met: p99Ratio <= TARGETS.floorRatio },
        { metric: 'gateway CPU per delivery, user', value: report.gatewayCpuPerDeliverySplitUs.user, unit: 'µs' },
        { metric: 'gateway CPU per delivery, kernel', value: report.gatewayCpuPerDeliverySplitUs.system, unit: 'µs' },
        { metric: 'floor CPU per delivery, user', value: floor.cpuPerDeliveryUs.user, unit: 'µs' },
        { metric: 'floor CPU per delivery, kernel', value: floor.cpuPerDeliveryUs.system, unit: 'µs' },
        { metric: 'floor fan-out latency p50', value: floor.latencyMs.p50, unit: 'ms' },
        { metric: 'floor fan-out latency p99', value: floor.latencyMs.p99, unit: 'ms' },
        { metric: 'floor RSS above its idle baseline, per subscriber', value: floor.kbPerSubscriber, unit: 'KB' },
      );
    }
    writeReport({
      bench: SHAPE === 'mix' ? 'subscriptions-mix' : 'subscriptions',
      rows: [
        { metric: 'deliveries received / expected', value: +(received / expected).toFixed(4), unit: '×', target: '≥ 1', met: verdicts.deliveries },
        ...floorRows.slice(0, 2),
        { metric: 'fan-out latency p50', value: report.latencyMs.p50, unit: 'ms' },
        { metric: 'fan-out latency p99', value: report.latencyMs.p99, unit: 'ms', target: `< ${TARGETS.p99Ms} ms`, met: verdicts.p99 },
        { metric: 'gateway RSS above the idle baseline, per subscriber', value: kbPerSubscriber, unit: 'KB', target: `≤ ${TARGETS.floorKbPerSubscriber} KB`, met: kbPerSubscriber <= TARGETS.floorKbPerSubscriber },
        { metric: 'gateway RSS, idle baseline', value: Math.round(baselineRss / MB), unit: 'MB' },
        { metric: 'gateway RSS, peak', value: Math.round(peakRss / MB), unit: 'MB' },
        { metric: 'gateway CPU per delivery', value: report.gatewayCpuPerDeliveryUs, unit: 'µs', target: `≤ ${TARGETS.cpuPerDeliveryUs} µs`, met: verdicts.cpu },
        ...floorRows.slice(2),
        { metric: 'WebSocket subscribers (one process)', value: SUBSCRIBERS, unit: 'subscribers' },
      ],
      notes: [
        `${USERS} users, ${SUBSCRIBERS} subscribers (${SHAPE === 'mix' ? 'channel, topic, own flags and DM narrows in turn' : 'one channel narrow'}), ${MESSAGES} messages every ${INTERVAL_MS} ms; ${report.processes}; the floor in a child process of its own`,
        `load average (1 min) ${report.loadAverage1m.atStart} at the start, ${report.loadAverage1m.atEnd} at the end, ${report.loadAverage1m.cores} cores`,
      ],
    });
    console.log(`wall ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // A missed figure is reported (and bench:all keeps only the runs that exit 0); lost deliveries
    // or a wrong number of upstream queues mean the run itself failed.
    process.exitCode = verdicts.queues && verdicts.deliveries && (!floor || floor.received === expected) ? 0 : 1;
  } finally {
    emulatorChild.send({ type: 'stop' } satisfies Message);
    if (clientsChild?.connected) clientsChild.send({ type: 'stop' } satisfies Message);
  }
}

/**
 * The raw-broadcast floor (subscriptions-floor.ts), after the gateway in the same run: a fresh
 * clients child connects the same subscribers with the same documents to a bare ws server, which
 * sends each of the gateway's messages again, as the bytes the gateway sent (`samples`, by
 * document). Latency is from the parent's order to broadcast to the arrival.
 */
async function measureFloor(ids: number[], samples: Record<string, string>, users: BenchUser[], expected: number) {
  const floorStarted = Date.now();
  const floorChild = spawn('floor');
  const clients = spawn('clients');
  const askFloor = <T extends FloorMessage['type']>(message: FloorMessage, reply: T) => ask(floorChild, message as never, reply as never) as unknown as Promise<Extract<FloorMessage, { type: T }>>;
  try {
    // The floor's first message says it listens for the others.
    await Promise.all([new Promise((resolve) => floorChild.once('message', resolve)), ready(clients)]);
    const templates = Object.fromEntries(Object.entries(samples).map(([query, text]) => [query, text.replace(/"zulipId":\d+/, '"zulipId":%ID%')]));
    const { url } = await askFloor({ type: 'floorStart', templates }, 'floorReady');
    await sleep(500);
    const { rss: baselineRss } = await askFloor({ type: 'floorMark' }, 'floorMarked');
    const step = (what: string) => console.log(`floor: ${what} (${((Date.now() - floorStarted) / 1000).toFixed(1)} s)`);
    step('listening');
    await ask(clients, { type: 'connect', wsUrl: url, users, count: SUBSCRIBERS }, 'connected');
    step('connected');
    for (const connectStart = Date.now(); (await askFloor({ type: 'floorMark' }, 'floorMarked')).subscribed < SUBSCRIBERS && Date.now() - connectStart < 60_000; ) await sleep(50);
    const accepted = new Map<number, number>();
    for (const zulipId of ids) {
      accepted.set(zulipId, now());
      await askFloor({ type: 'broadcast', zulipId }, 'broadcasted');
      await sleep(INTERVAL_MS);
    }
    step('sent');
    let progressed = await ask(clients, { type: 'progress' }, 'progressed');
    for (const waitStart = Date.now(); progressed.received < expected && Date.now() - waitStart < 20_000; progressed = await ask(clients, { type: 'progress' }, 'progressed')) await sleep(100);
    const { cpu, peakRss } = await askFloor({ type: 'floorReport' }, 'floorReported');
    const result = await ask(clients, { type: 'report' }, 'arrivals');
    const received = deliveries(result.arrivals);
    return {
      received,
      cpuPerDeliveryUs: { user: +(cpu.user / Math.max(1, received)).toFixed(1), system: +(cpu.system / Math.max(1, received)).toFixed(1) },
      latencyMs: latencySummary(accepted, result.arrivals),
      kbPerSubscriber: +((peakRss - baselineRss) / 1024 / SUBSCRIBERS).toFixed(1),
      errors: result.errors.length,
    };
  } finally {
    floorChild.send({ type: 'stop' } satisfies FloorMessage);
    clients.send({ type: 'stop' } satisfies Message);
  }
}

const role = process.env.BENCH_ROLE;
// A child never outlives the bench, however it ends (its deadline exits without a word to them).
if (role) process.once('disconnect', () => process.exit(0));
if (role === 'emulator') await runEmulator();
else if (role === 'clients') await runClients();
else if (role === 'floor') await runFloor();
else await runBench();
