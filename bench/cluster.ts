/**
 * `npm run bench:cluster`: fan-out of real-time events through two gateway instances sharing one
 * Redis, against one in-process instance in the same run.
 *
 * Two phases, each with fresh processes, all on loopback:
 * - **single**: one gateway instance without Redis; BENCH_SUBSCRIBERS WebSocket subscribers;
 * - **cluster**: a `redis-server` (no persistence) and two gateway instances in cluster mode; the
 *   same subscribers split evenly across them, so every user has subscribers on both instances.
 *
 * Each phase reuses bench/subscriptions.ts's children (an emulator child with BENCH_USERS users in one
 * `bench` channel, a clients child with raw `graphql-transport-ws` sockets, each with one
 * `messages(narrow: { channelName: "bench" })` subscription); the gateway instances are
 * test/gateway/cluster/instance.ts children, the same script the multi-instance tests kill. This
 * process sends BENCH_MESSAGES messages through the emulator child, one every BENCH_INTERVAL_MS;
 * fan-out latency = arrival at a client − acceptance by the emulator (one host clock).
 *
 * Reports per phase: upstream queues (live queues in the emulator; target = users, i.e. one per
 * user across the cluster), deliveries (target all), latency p50/p99/max; for the cluster phase,
 * Redis CPU per delivery (INFO cpu `used_cpu_sys` + `used_cpu_user`, before and after the sending
 * phase) and Redis commands per message, in all and per credential and command name (INFO
 * commandstats, which counts the commands a script runs as calls of their own). With BENCH_REPORT
 * set, the headline rows go to that file (bench/report.ts). Bounded by BENCH_DEADLINE_S.
 *
 * Environment: BENCH_USERS (50), BENCH_SUBSCRIBERS (5000), BENCH_MESSAGES (40), BENCH_INTERVAL_MS
 * (250), BENCH_DEADLINE_S (300), BENCH_PHASES (single,cluster), BENCH_CPU_PROF (a folder: the gateway
 * instances write V8 CPU profiles there).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { RedisServer, redisServerFound } from '../test/helpers/redis-server.js';
import { ask, deliveries, latencySummary, ready, sendMessages, sleep, type Message } from './fanout.js';
import { writeReport, type ReportRow } from './report.js';

const USERS = Number(process.env.BENCH_USERS ?? 50);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 5000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 40);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 250);
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_S ?? 300);
const PHASES = (process.env.BENCH_PHASES ?? 'single,cluster').split(',');

const SUBSCRIPTIONS_BENCH = fileURLToPath(new URL('./subscriptions.ts', import.meta.url));
const INSTANCE = fileURLToPath(new URL('../test/gateway/cluster/instance.ts', import.meta.url));

function benchChild(role: 'emulator' | 'clients'): ChildProcess {
  return fork(SUBSCRIPTIONS_BENCH, [], { env: { ...process.env, BENCH_ROLE: role }, execArgv: ['--import', 'tsx'] });
}

function instanceChild(zulipUrl: string, redisUrl?: string): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ZULIP_URL: zulipUrl, SLOW_CONSUMER_LIMIT: '10000', GRACE_MS: '30000', CLUSTER_RETRY_MS: '250' };
  delete env.REDIS_URL;
  if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, GATEWAY_SECRET: 'bench-secret-'.padEnd(40, 'x'), REDIS_KEY_PREFIX: 'bench:' });
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  return fork(INSTANCE, [], { env, execArgv: ['--import', 'tsx', ...profile] });
}

/**
 * used_cpu_sys + used_cpu_user of the Redis server, in microseconds, commands processed, and calls
 * per command name (INFO commandstats; commands run inside a script count as their own calls).
 */
async function redisCounters(redis: Redis): Promise<{ cpuUs: number; commands: number; calls: Map<string, number> }> {
  const cpu = await redis.info('cpu');
  const stats = await redis.info('stats');
  const commandstats = await redis.info('commandstats');
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  const calls = new Map<string, number>();
  for (const [, name, count] of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(name!, Number(count));
  return {
    cpuUs: (field(cpu, 'used_cpu_sys') + field(cpu, 'used_cpu_user')) * 1e6,
    commands: field(stats, 'total_commands_processed'),
    calls,
  };
}

/** Calls per message per credential of each command between two readings, most frequent first. */
function callsPerMessage(before: Map<string, number>, after: Map<string, number>, perMessage: number): Record<string, number> {
  const rows: [string, number][] = [];
  for (const [name, count] of after) {
    const delta = count - (before.get(name) ?? 0);
    if (delta > 0) rows.push([name, +(delta / perMessage).toFixed(2)]);
  }
  return Object.fromEntries(rows.sort((a, b) => b[1] - a[1]));
}

async function runPhase(mode: 'single' | 'cluster') {
  const server = mode === 'cluster' ? new RedisServer() : undefined;
  await server?.start();
  const emulator = benchChild('emulator');
  const clients = benchChild('clients');
  const instances: ChildProcess[] = [];
  const monitor = server && new Redis(server.url, { lazyConnect: false });
  try {
    const [upstream] = await Promise.all([ready(emulator), ready(clients)]);
    for (let i = 0; i < (mode === 'cluster' ? 2 : 1); i++) instances.push(instanceChild(upstream.url, server?.url));
    const urls = (await Promise.all(instances.map(ready))).map((m) => m.url.replace(/^http/, 'ws'));

    const connectStart = Date.now();
    const share = Math.ceil(SUBSCRIBERS / urls.length);
    for (const [i, wsUrl] of urls.entries()) {
      await ask(clients, { type: 'connect', wsUrl, users: upstream.users, count: Math.min(share, SUBSCRIBERS - i * share) }, 'connected');
    }
    const served = async () => (await Promise.all(instances.map((c) => ask(c, { type: 'stats' }, 'stats')))).reduce((sum, s) => sum + (s.clients ?? 0), 0);
    while ((await served()) < SUBSCRIBERS && Date.now() - connectStart < 120_000) await sleep(100);
    const connectMs = Date.now() - connectStart;
    const { count: queues } = await ask(emulator, { type: 'queues' }, 'queueCount');

    const redisBefore = monitor && (await redisCounters(monitor));
    const accepted = await sendMessages(emulator, MESSAGES, INTERVAL_MS);
    const expected = MESSAGES * SUBSCRIBERS;
    let progressed = await ask(clients, { type: 'progress' }, 'progressed');
    for (const waitStart = Date.now(); progressed.received < expected && Date.now() - waitStart < 30_000; ) {
      await sleep(100);
      progressed = await ask(clients, { type: 'progress' }, 'progressed');
    }
    const redisAfter = monitor && (await redisCounters(monitor));
    const result = await ask(clients, { type: 'report' }, 'arrivals');
    const received = deliveries(result.arrivals);
    return {
      mode,
      instances: instances.length,
      users: USERS,
      subscribers: SUBSCRIBERS,
      upstreamQueues: queues,
      connectSeconds: +(connectMs / 1000).toFixed(1),
      messages: MESSAGES,
      deliveriesExpected: expected,
      deliveriesReceived: received,
      latencyMs: latencySummary(accepted, result.arrivals),
      ...(redisBefore &&
        redisAfter && {
          redisCpuPerDeliveryUs: +((redisAfter.cpuUs - redisBefore.cpuUs) / Math.max(1, received)).toFixed(2),
          redisCpuPerMessageUs: +((redisAfter.cpuUs - redisBefore.cpuUs) / MESSAGES).toFixed(0),
          redisCommandsPerMessage: +((redisAfter.commands - redisBefore.commands) / MESSAGES).toFixed(1),
          redisCommandsPerMessagePerCredential: +((redisAfter.commands - redisBefore.commands) / MESSAGES / USERS).toFixed(2),
          redisCallsPerMessagePerCredential: callsPerMessage(redisBefore.calls, redisAfter.calls, MESSAGES * USERS),
        }),
      errors: result.errors.length,
      firstErrors: result.errors.slice(0, 3),
    };
  } finally {
    clients.send({ type: 'stop' } satisfies Message);
    for (const instance of instances) instance.send({ type: 'close' } satisfies Message);
    await Promise.all(instances.map(exited));
    emulator.send({ type: 'stop' } satisfies Message);
    await Promise.all([exited(emulator), exited(clients)]);
    monitor?.disconnect();
    await server?.dispose();
  }
}

/** The headline rows (bench/report.ts): the targets first, then the figures they come from. */
function reportRows(phases: Awaited<ReturnType<typeof runPhase>>[]): ReportRow[] {
  const single = phases.find((p) => p.mode === 'single');
  const cluster = phases.find((p) => p.mode === 'cluster');
  const rows: ReportRow[] = [];
  if (cluster?.redisCommandsPerMessagePerCredential !== undefined) {
    const value = cluster.redisCommandsPerMessagePerCredential;
    rows.push({ metric: 'Redis commands per message per credential', value, unit: 'commands', target: '≤ 2', met: value <= 2 });
  }
  if (single && cluster) {
    const value = +(cluster.latencyMs.p99 - single.latencyMs.p99).toFixed(1);
    rows.push({ metric: 'cluster p99 minus single-instance p99 (same run)', value, unit: 'ms', target: '≤ 50', met: value <= 50 });
  }
  for (const p of [single, cluster]) {
    if (!p) continue;
    rows.push({ metric: `${p.mode} fan-out latency p50`, value: p.latencyMs.p50, unit: 'ms' });
    rows.push({ metric: `${p.mode} fan-out latency p99`, value: p.latencyMs.p99, unit: 'ms' });
    rows.push({ metric: `${p.mode} deliveries (of ${p.deliveriesExpected})`, value: p.deliveriesReceived, unit: 'deliveries' });
  }
  if (cluster?.redisCpuPerDeliveryUs !== undefined) rows.push({ metric: 'Redis CPU per delivery', value: cluster.redisCpuPerDeliveryUs, unit: 'µs' });
  return rows;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), resolve()), 5000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
  });
}

async function main(): Promise<void> {
  if (PHASES.includes('cluster') && !redisServerFound) {
    console.error('bench:cluster needs redis-server on the PATH (or REDIS_SERVER)');
    process.exit(2);
  }
  const deadline = setTimeout(() => {
    console.error(`bench: deadline of ${DEADLINE_S} s exceeded`);
    process.exit(2);
  }, DEADLINE_S * 1000);
  deadline.unref();
  const started = Date.now();
  const loadAtStart = loadavg()[0]!;
  const phases = [];
  for (const mode of PHASES as ('single' | 'cluster')[]) phases.push(await runPhase(mode));
  const report = {
    phases,
    intervalMs: INTERVAL_MS,
    loadAverage1m: { atStart: +loadAtStart.toFixed(2), atEnd: +loadavg()[0]!.toFixed(2), cores: availableParallelism() },
    wallSeconds: +((Date.now() - started) / 1000).toFixed(1),
  };
  console.log(JSON.stringify(report, null, 2));
  const cluster = phases.find((p) => p.mode === 'cluster');
  let ok = true;
  for (const p of phases) {
    const queuesOk = p.upstreamQueues === USERS;
    const deliveriesOk = p.deliveriesReceived === p.deliveriesExpected;
    ok &&= queuesOk && deliveriesOk;
    console.log(
      `${p.mode}: queues ${p.upstreamQueues}/${USERS} ${queuesOk ? 'ok' : 'MISS'}; deliveries ${p.deliveriesReceived}/${p.deliveriesExpected} ` +
        `${deliveriesOk ? 'ok' : 'MISS'}; latency p50 ${p.latencyMs.p50} ms, p99 ${p.latencyMs.p99} ms`,
    );
  }
  if (cluster && 'redisCpuPerDeliveryUs' in cluster) console.log(`cluster: Redis CPU ${cluster.redisCpuPerDeliveryUs} µs per delivery (${cluster.redisCpuPerMessageUs} µs per message)`);
  writeReport({ bench: 'cluster', rows: reportRows(phases), notes: [`load average (1 min) ${report.loadAverage1m.atStart} at start, ${report.loadAverage1m.atEnd} at end, ${report.loadAverage1m.cores} cores`, `${USERS} users, ${SUBSCRIBERS} subscribers, ${MESSAGES} messages every ${INTERVAL_MS} ms`] });
  process.exitCode = ok ? 0 : 1;
}

await main();
