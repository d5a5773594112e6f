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
 * First, the query targets of issue 20 (see `targets`): `serverSettings` and `user(id)` (from the
 * warm live directory) in process against the REST client (src/zulip) making the same upstream
 * call, and the README's dashboard in process, beside it through a second gateway built with
 * `compiledExecution: false`; written to the file BENCH_REPORT names, if any (bench/report.ts).
 * Then the query floor (gateway/floor.ts): the same three queries over loopback HTTP against a
 * bare node:http + graphql-jit server (gateway/raw-server.ts), the client in the emulator process.
 * `BENCH_MODE=targets` stops there; `BENCH_MODE=floor` measures the floor alone.
 * `BENCH_PROFILE=single|dashboard|readme|readmeInterpreted|settings|settingsDirect|user|userDirect|typename` runs only one CPU loop, for
 * profiling with `node --import tsx --cpu-prof bench/gateway-overhead.ts`.
 * `BENCH_MODE=transport` measures only the gateway process's CPU per query over loopback HTTP, the
 * client running in the emulator process (see compareTransports).
 * `BENCH_ROUNDS` (default 3): rounds of each CPU measurement, of which the median is reported.
 *
 * Everything is bounded by a request count and a time limit, and stays on 127.0.0.1.
 * Targets: server settings ≤ 2× the REST client's CPU, one user from the directory ≤ 1× of one
 * direct call, the README dashboard ≤ 1.0 ms in process; ≤ 0.3 ms gateway CPU per single-endpoint
 * query, ≤ 3 ms per dashboard query, and with 5 ms upstream latency a single-endpoint p50 within
 * 1 ms of direct.
 */
// First: NODE_ENV=production unless set, before anything loads graphql.
import './gateway/production.js';
import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { median, type LoopBound } from './cpu.js';
import { writeReport, type ReportRow } from './report.js';
import { DASHBOARD_QUERY, makeClients, SINGLE_QUERY, type Clients } from './gateway/clients.js';
import { EmulatorProcess, runEmulatorChild, type FromChild } from './gateway/emulator.js';
import { cpuRounds, cpuWithEmulator, interleavedCpu, load as loadWith, medianRatio, printTable, type CpuRounds, type LoadResult } from './gateway/measure.js';
import { floor } from './gateway/floor.js';
import { startRawServer } from './gateway/raw-server.js';

const CHILD_FLAG = '--emulator-child';


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
/**
 * Sequential CPU measurements are repeated (BENCH_ROUNDS, default 3); the table shows the minimum
 * and the median, the targets the median.
 */
const CPU_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const load = (call: () => Promise<number>, limits: LoopBound, concurrency = CONCURRENCY) => loadWith(call, limits, concurrency);
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
  const { ZulipConnection } = await import('../src/zulip/connection.js');
  const gateway = createGateway({ zulipUrl: ready.url, logging: false, graphiql: false });
  // For one context row: what compiled execution saves on the README dashboard, in the same run.
  const interpreted = createGateway({ zulipUrl: ready.url, logging: false, graphiql: false, compiledExecution: false });
  const served = createGatewayServer(gateway, { drainMs: 0 });
  const gatewayUrl = (await served.listen(0, '127.0.0.1')).replace(/\/graphql$/, '');
  const clientAgent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
  // The query floor: the same schema and upstream, served by bare node:http and graphql-jit (raw-server.ts).
  const raw = await startRawServer(ready.url);
  const c = makeClients({ ...ready, zulipUrl: ready.url, gatewayUrl, gatewayFetch: (url, init) => gateway.fetch(url, init), interpretedFetch: (url, init) => interpreted.fetch(url, init), clientAgent });

  try {
    // Sanity: each client works and costs what it should, counted by the emulator too.
    const before = await emulator.requestCount();
    const dashboardUpstream = await c.dashboardGateway();
    const counted = (await emulator.requestCount()) - before;
    console.log(`dashboard query: ${dashboardUpstream} upstream requests (emulator counted ${counted})`);
    // The caller's live directory, which that query started loading, serves `user(id)` once loaded.
    const viewer = new ZulipConnection({ baseUrl: ready.url, credentials: { email: ready.email, apiKey: ready.apiKey } });
    const warm = await gateway.directories?.settled(viewer, 10_000);
    await viewer.close();
    if (!warm) throw new Error('the live directory did not load within 10 s');
    await c.userInProcess(); // throws unless served with no upstream call

    // BENCH_PROFILE=<loop>: only one in-process CPU loop, for `node --cpu-prof` runs.
    const profiles: Record<string, [() => Promise<number>, LoopBound]> = {
      single: [c.singleInProcess, LIMITS.cpuSingle],
      dashboard: [c.dashboardInProcess, LIMITS.cpuDashboard],
      readme: [c.readmeDashboardInProcess, LIMITS.cpuDashboard],
      readmeInterpreted: [c.readmeDashboardInterpreted, LIMITS.cpuDashboard],
      settings: [c.settingsInProcess, LIMITS.cpuSingle],
      settingsDirect: [c.settingsDirect, LIMITS.cpuSingle],
      user: [c.userInProcess, LIMITS.cpuSingle],
      userDirect: [c.userDirect, LIMITS.cpuSingle],
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

    const measured = process.env.BENCH_MODE === 'floor' ? { rows: [], notes: [] } : await targets(c, emulator);
    const floorRows = await floor(emulator, { gateway: `${gatewayUrl}/graphql`, raw: raw.url }, { settings: c.settingsDirect, user: c.userDirect }, ready, CPU_ROUNDS);
    writeReport({ bench: 'gateway', rows: [...floorRows.rows, ...measured.rows], notes: [...floorRows.notes, ...measured.notes] });
    if (process.env.BENCH_MODE === 'targets' || process.env.BENCH_MODE === 'floor') return;
    console.log('');
    await overhead(c, emulator, dashboardUpstream);
  } finally {
    // The raw server first, while the emulator still answers the deletion of its event queues.
    await raw.close();
    emulator.exit();
    await served.close();
    await gateway.dispose();
    await interpreted.dispose();
    await c.close();
    await clientAgent.close();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill(), 2000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The query targets of issue 20, side by side in this one run (CPU of this process per call,
 * sequential, the calls interleaved round by round; ratios are the median of each round's ratio):
 * `serverSettings` in process vs the REST client's `GET /server_settings`, `user(id)` from the warm
 * live directory (no upstream call) vs the REST client's `GET /users/{id}`, and the README's
 * dashboard in process, with the bench's own dashboard and `{ __typename }` beside them.
 * Written to BENCH_REPORT (bench/report.ts) when set.
 */
async function targets(c: Clients, emulator: EmulatorProcess): Promise<{ rows: ReportRow[]; notes: string[] }> {
  const cpu = await interleavedCpu(
    {
      settings: { call: c.settingsInProcess, limits: LIMITS.cpuSingle },
      settingsDirect: { call: c.settingsDirect, limits: LIMITS.cpuSingle },
      user: { call: c.userInProcess, limits: LIMITS.cpuSingle },
      userDirect: { call: c.userDirect, limits: LIMITS.cpuSingle },
      readme: { call: c.readmeDashboardInProcess, limits: LIMITS.cpuDashboard },
      readmeInterpreted: { call: c.readmeDashboardInterpreted, limits: LIMITS.cpuDashboard },
      dashboard: { call: c.dashboardInProcess, limits: LIMITS.cpuDashboard },
      floor: { call: c.typenameInProcess, limits: LIMITS.cpuSingle },
    },
    emulator,
    CPU_ROUNDS,
  );
  // What each dashboard costs upstream as measured (its first query may still fill the message cache).
  const readmeUpstream = await c.readmeDashboardInProcess();
  const dashboardUpstream = await c.dashboardInProcess();
  const ms = (xs: number[]) => Math.round(median(xs) * 1000) / 1000;
  const ratio = (a: number[], b: number[]) => Math.round(medianRatio(a, b) * 100) / 100;
  const within = (value: number, limit: number) => value <= limit;
  // Each row with the rounds it comes from, printed beside it.
  const table: [ReportRow, number[] | undefined][] = [
    [
      { metric: 'server settings: gateway CPU / direct REST client CPU (GET /server_settings)', value: ratio(cpu.settings, cpu.settingsDirect), unit: '×', target: '≤ 2×', met: within(medianRatio(cpu.settings, cpu.settingsDirect), 2) },
      cpu.settings.map((x, i) => x / cpu.settingsDirect[i]!),
    ],
    [
      { metric: 'one user by id from the live directory (0 upstream calls) / one direct GET /users/{id}', value: ratio(cpu.user, cpu.userDirect), unit: '×', target: '≤ 1×', met: within(medianRatio(cpu.user, cpu.userDirect), 1) },
      cpu.user.map((x, i) => x / cpu.userDirect[i]!),
    ],
    [{ metric: 'README dashboard, gateway CPU in process', value: ms(cpu.readme), unit: 'ms', target: '≤ 1.0 ms', met: within(median(cpu.readme), 1) }, cpu.readme],
    [{ metric: 'README dashboard, interpreted (compiledExecution: false), in process', value: ms(cpu.readmeInterpreted), unit: 'ms' }, cpu.readmeInterpreted],
    [{ metric: 'server settings, gateway CPU in process', value: ms(cpu.settings), unit: 'ms' }, cpu.settings],
    [{ metric: 'GET /server_settings, REST client CPU', value: ms(cpu.settingsDirect), unit: 'ms' }, cpu.settingsDirect],
    [{ metric: 'one user by id, gateway CPU in process', value: ms(cpu.user), unit: 'ms' }, cpu.user],
    [{ metric: 'GET /users/{id}, REST client CPU', value: ms(cpu.userDirect), unit: 'ms' }, cpu.userDirect],
    [{ metric: 'bench dashboard (100 messages), gateway CPU in process', value: ms(cpu.dashboard), unit: 'ms' }, cpu.dashboard],
    [{ metric: 'request pipeline alone ({ __typename }), in process', value: ms(cpu.floor), unit: 'ms' }, cpu.floor],
  ];
  printTable(
    ['target', 'median', 'rounds', 'met'],
    table.map(([r, rounds]) => [r.metric, `${r.value} ${r.unit}`, rounds ? rounds.map((x) => x.toFixed(3)).join(' ') : '', r.target ? `${r.met ? 'PASS' : 'MISS'} ${r.target}` : '']),
  );
  const rows = table.map(([r]) => r);
  const notes = [
    `medians of ${CPU_ROUNDS} interleaved rounds, CPU of the gateway process per call, sequential, emulator in another process`,
    `upstream calls per query after the rounds: README dashboard ${readmeUpstream}, bench dashboard ${dashboardUpstream} (0: its page served by the message cache)`,
    `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${availableParallelism()} CPUs, NODE_ENV=${process.env.NODE_ENV}`,
  ];
  for (const note of notes) console.log(note);
  return { rows, notes };
}

/** The gateway against direct REST for a single-endpoint query and the bench dashboard: throughput, latency, CPU. */
async function overhead(c: Clients, emulator: EmulatorProcess, dashboardUpstream: number): Promise<void> {
  // CPU: several sequential rounds; the minimum is the least disturbed by other processes.
  const cpu = {
    single: await cpuRounds(c.singleInProcess, LIMITS.cpuSingle, emulator, CPU_ROUNDS),
    singleHttp: await cpuRounds(c.singleGateway, LIMITS.cpuSingle, emulator, CPU_ROUNDS),
    direct: await cpuRounds(c.singleDirect, LIMITS.cpuSingle, emulator, CPU_ROUNDS),
    directFetch: await cpuRounds(c.singleDirectFetch, LIMITS.cpuSingle, emulator, CPU_ROUNDS),
    floor: await cpuRounds(c.typenameInProcess, LIMITS.cpuSingle, emulator, CPU_ROUNDS),
    dashboard: await cpuRounds(c.dashboardInProcess, LIMITS.cpuDashboard, emulator, CPU_ROUNDS),
    naive: await cpuRounds(c.dashboardNaive, LIMITS.cpuNaive, emulator, CPU_ROUNDS),
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

// Last, so every declaration above is initialized before either side runs.
if (process.argv.includes(CHILD_FLAG)) await runEmulatorChild();
else await main();
