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
 * Reports upstream queues (live queues in the emulator; target = users), deliveries, fan-out latency
 * p50/p99/max (target p99 < 100 ms) and this process's RSS (target < 500 MB), with the CPU time per
 * delivery of the gateway and of the clients child over the sending phase (from the first message until
 * the last arrival; the arrival lists are fetched after it), and the host's 1-minute load average: the
 * clients share the host, so their CPU competes with the gateway's. Bounded: the run aborts after
 * BENCH_DEADLINE_S.
 *
 * Environment: BENCH_USERS (50), BENCH_SUBSCRIBERS (5000), BENCH_MESSAGES (40),
 * BENCH_INTERVAL_MS (250), BENCH_CLIENTS (child | same), BENCH_DEADLINE_S (180), and
 * BENCH_CPU_PROFILE (a file name: writes a V8 CPU profile of this process covering the sending phase only,
 * from the first message to the last arrival; profiling slows the gateway, so its latencies do not count).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { ask, deliveries, latencySummary, now, ready, sendMessages, sleep, type BenchUser, type Message } from './fanout.js';

const USERS = Number(process.env.BENCH_USERS ?? 50);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 5000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 40);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 250);
const CLIENTS_IN_CHILD = (process.env.BENCH_CLIENTS ?? 'child') !== 'same';
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 180);
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;

function spawn(role: 'emulator' | 'clients'): ChildProcess {
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
        users.push({ email, apiKey: apiKeyFor(email) });
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

class Subscribers {
  readonly arrivals = new Map<number, number[]>();
  readonly errors: string[] = [];
  received = 0;
  private readonly sockets: WebSocket[] = [];

  /** Connects `count` subscribers, 250 at a time, each resolved once its subscription is sent. */
  async connect(wsUrl: string, users: BenchUser[], count: number): Promise<void> {
    for (let i = 0; i < count; i += 250) {
      const batch = Array.from({ length: Math.min(250, count - i) }, (_, k) => this.one(wsUrl, users[(i + k) % users.length]!));
      this.sockets.push(...(await Promise.all(batch)));
    }
  }

  close(): void {
    for (const socket of this.sockets) socket.close(1000);
  }

  private one(wsUrl: string, user: BenchUser): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { email: user.email, apiKey: user.apiKey } })));
      socket.on('message', (data) => {
        const at = now();
        const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { messages?: { message?: { zulipId: number } } } } };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
          resolve(socket);
        } else if (message.type === 'next') {
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
      process.send!({ type: 'arrivals', arrivals: [...subscribers.arrivals], errors: subscribers.errors } satisfies Message);
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

    const local = clientsChild ? undefined : new Subscribers();
    const connectStart = Date.now();
    if (clientsChild) await ask(clientsChild, { type: 'connect', wsUrl, users: upstream.users, count: SUBSCRIBERS }, 'connected');
    else await local!.connect(wsUrl, upstream.users, SUBSCRIBERS);
    // Subscriptions start after the ack, asynchronously: wait (bounded) until all are served.
    while (gateway.graphqlSubscriptions.clients < SUBSCRIBERS && Date.now() - connectStart < 60_000) await sleep(50);
    const connectMs = Date.now() - connectStart;
    const { count: queues } = await ask(emulatorChild, { type: 'queues' }, 'queueCount');

    const profiler = CPU_PROFILE ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const loadAtStart = loadavg()[0]!;
    const cpuBefore = process.cpuUsage();
    const accepted = await sendMessages(emulatorChild, MESSAGES, INTERVAL_MS);
    const expected = MESSAGES * SUBSCRIBERS;
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
    const result = clientsChild
      ? await ask(clientsChild, { type: 'report' }, 'arrivals')
      : { arrivals: [...local!.arrivals], errors: local!.errors };
    const received = deliveries(result.arrivals);
    const memory = process.memoryUsage();
    const report = {
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
      latencyMs: latencySummary(accepted, result.arrivals),
      gatewayCpuPerDeliveryUs: +((cpu.user + cpu.system) / Math.max(1, received)).toFixed(1),
      clientsCpuPerDeliveryUs: clientsChild ? +(progressed.cpuUs / Math.max(1, received)).toFixed(1) : null,
      loadAverage1m: { atStart: +loadAtStart.toFixed(2), atEnd: +loadAtEnd.toFixed(2), cores: availableParallelism() },
      gatewayRssMB: Math.round(memory.rss / 1024 / 1024),
      gatewayHeapUsedMB: Math.round(memory.heapUsed / 1024 / 1024),
      errors: result.errors.length,
      firstErrors: result.errors.slice(0, 3),
      wallSeconds: +((Date.now() - started) / 1000).toFixed(1),
    };
    console.log(JSON.stringify(report, null, 2));
    const verdicts = {
      queues: queues === USERS,
      p99: report.latencyMs.p99 < 100,
      rss: report.gatewayRssMB < 500,
      deliveries: report.deliveriesReceived === expected,
    };
    console.log(
      `targets: queues ${queues}/${USERS} ${verdicts.queues ? 'ok' : 'MISS'}; p99 ${report.latencyMs.p99} ms < 100 ${verdicts.p99 ? 'ok' : 'MISS'}; ` +
        `RSS ${report.gatewayRssMB} MB < 500 ${verdicts.rss ? 'ok' : 'MISS'}; deliveries ${report.deliveriesReceived}/${expected} ${verdicts.deliveries ? 'ok' : 'MISS'}`,
    );

    local?.close();
    await served.close();
    await gateway.dispose();
    process.exitCode = Object.values(verdicts).every(Boolean) ? 0 : 1;
  } finally {
    emulatorChild.send({ type: 'stop' } satisfies Message);
    clientsChild?.send({ type: 'stop' } satisfies Message);
  }
}

const role = process.env.BENCH_ROLE;
if (role === 'emulator') await runEmulator();
else if (role === 'clients') await runClients();
else await runBench();
