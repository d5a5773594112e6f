/**
 * `npm run bench:directory`: the live directory (issue 10) against the per-request path, for
 * generated organizations of 500, 20,000 and 100,000 users (BENCH_SIZES to choose).
 *
 * For each size one emulator runs in a child process on a loopback port (its CPU is not counted as
 * the gateway's), with a generated organization (src/emulator/generate.ts). The gateway runs in this
 * process, in-process through `gateway.fetch`, in three configurations side by side:
 * - `on`: the live directory (warmed before measuring);
 * - `off@372`: no directory, a server below feature level 384 (a few users by ID, many with GET /users);
 * - `off@384`: no directory, `GET /users?user_ids=`.
 * For each: gateway CPU per query (after a full GC and a warm-up loop, process.cpuUsage around
 * bounded sequential loops, median of rounds) and upstream calls per query (the response's
 * `extensions.upstreamRequests`), for the one-user query `user(id: 8) { id fullName }` and the
 * README dashboard query.
 * Then, with the directory on: heap and estimated bytes of one credential's directory; time from a
 * rename's event reaching the gateway (its queue batch) to the new name in a query, and from the
 * rename call to it (which includes the emulator's own work: it decides who may see the user for
 * each of its users, seconds at 20,000 users). For the 20,000-user organization: memory of 1,000 credentials' directories
 * (see `thousandCredentials`).
 *
 * Run with `node --expose-gc` (the npm script does) for heap figures. Every loop is bounded by a
 * count and a time limit; everything stays on 127.0.0.1.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Gateway } from '../src/gateway/yoga.js';
import { cpuPerCall, median, type LoopBound } from './cpu.js';
import { until } from '../test/helpers/wait.js';

process.env.NODE_ENV ??= 'production';

const CHILD_FLAG = '--directory-emulator-child';
const SIZES = (process.env.BENCH_SIZES ?? '500,20000,100000').split(',').map(Number);
const ONE_QUERY = 'query One { user(id: 8) { zulipId fullName } }';
/** Sequential CPU loops: [count, ms] bounds; a dashboard off-directory below level 384 parses the whole user list, so few. */
const LOOPS = { one: { count: 2000, maxMs: 3000 }, dashboard: { count: 150, maxMs: 4000 }, heavy: { count: 4, maxMs: 6000 } };
const ROUNDS = 3;

// ---- the emulator process --------------------------------------------------------------------------

type ToChild = { id: number; type: 'featureLevel'; level: number } | { id: number; type: 'rename'; userId: number; name: string } | { id: number; type: 'credentials'; count: number };
type FromChild =
  | { type: 'ready'; url: string; generateMs: number; users: number; channels: number; messages: number }
  | { id: number; type: 'ok'; at?: number; credentials?: { email: string; apiKey: string }[] };

async function runEmulatorChild(users: number): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { generateLargeOrganization } = await import('../src/emulator/generate.js');
  const started = performance.now();
  const channels = Math.min(1000, Math.max(30, Math.round(users / 50)));
  const messages = 30_000;
  const emulator = createEmulator({ seed: () => generateLargeOrganization({ users, channels, messages }), settings: { featureLevel: 372 } });
  const generateMs = performance.now() - started;
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const owner = [...emulator.store.users.values()][0]!;
  const send = (message: FromChild) => process.send!(message);
  process.once('disconnect', () => void emulator.close().then(() => process.exit(0)));
  process.on('message', async (message: ToChild) => {
    if (message.type === 'featureLevel') {
      emulator.settings.featureLevel = message.level;
      return send({ id: message.id, type: 'ok' });
    }
    if (message.type === 'rename') {
      // Through the route, as an administrator would: the emulator sends the realm_user event.
      const auth = `Basic ${Buffer.from(`${owner.delivery_email}:${owner.api_key}`).toString('base64')}`;
      const at = Date.now();
      const response = await emulator.fetch(
        new Request(`${url}/api/v1/users/${message.userId}`, {
          method: 'PATCH',
          headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ full_name: message.name }).toString(),
        }),
      );
      if (!response.ok) console.error(`rename failed: ${response.status} ${await response.text()}`);
      return send({ id: message.id, type: 'ok', at });
    }
    // Credentials of active humans, members first (as most credentials of a real organization are).
    const humans = [...emulator.store.users.values()].filter((u) => u.is_active && !u.is_bot);
    const ordered = [...humans.filter((u) => u.role === 400), ...humans.filter((u) => u.role !== 400)];
    const credentials = ordered.slice(0, message.count).map((u) => ({ email: u.delivery_email, apiKey: u.api_key }));
    send({ id: message.id, type: 'ok', credentials });
  });
  send({ type: 'ready', url, generateMs, users, channels, messages: emulator.store.messages.size });
}

class Child {
  private nextId = 1;
  private readonly waiting = new Map<number, (m: FromChild) => void>();
  constructor(readonly process: ChildProcess) {
    process.on('message', (m: FromChild) => {
      if ('id' in m) this.waiting.get(m.id)?.(m);
    });
  }
  ask(message: ToChild extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never): Promise<Extract<FromChild, { type: 'ok' }>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (m: FromChild) => void);
      this.process.send({ ...message, id });
    });
  }
}

async function startChild(users: number): Promise<{ child: Child; ready: Extract<FromChild, { type: 'ready' }> }> {
  const proc = fork(fileURLToPath(import.meta.url), [CHILD_FLAG, String(users)], {
    execArgv: ['--import', 'tsx', '--max-old-space-size=8192'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Extract<FromChild, { type: 'ready' }>>((resolve, reject) => {
    proc.once('message', (m: FromChild) => (m.type === 'ready' ? resolve(m) : reject(new Error('bad child'))));
    proc.once('exit', (code) => reject(new Error(`emulator child exited (${code})`)));
  });
  return { child: new Child(proc), ready };
}

// ---- the gateway side ------------------------------------------------------------------------------

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heapMb = () => (gc(), gc(), process.memoryUsage().heapUsed / 1e6);


async function query(gateway: Gateway, auth: string, q: string): Promise<number> {
  const response = await gateway.fetch('http://bench.local/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify({ query: q }),
  });
  const body = (await response.json()) as { errors?: unknown[]; extensions?: { upstreamRequests?: number } };
  if (body.errors) throw new Error(`query failed: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return body.extensions?.upstreamRequests ?? NaN;
}

/** CPU ms per query (median of rounds) and upstream calls per query. */
async function cpuPerQuery(gateway: Gateway, auth: string, q: string, bound: LoopBound) {
  gc(); // so that no measurement pays for the garbage of the one before (off@372 dashboards parse whole directories)
  // Warm-up as long as one round: a server answers the same query shapes all day, so the steady
  // state (JIT-compiled, heap sized) is what is measured. Warming up takes thousands of queries
  // after a directory load (README, "Live directory"), so a short warm-up would measure the JIT.
  await cpuPerCall(() => query(gateway, auth, q), bound);
  const perRound: number[] = [];
  let upstream = 0;
  let queries = 0;
  for (let round = 0; round < ROUNDS; round++) {
    upstream = 0;
    const measured = await cpuPerCall(async () => void (upstream += await query(gateway, auth, q)), bound);
    perRound.push(measured.cpuMs);
    queries = measured.count;
  }
  return { cpuMs: median(perRound), upstream: upstream / Math.max(1, queries) };
}

interface SizeResult {
  users: number;
  generateMs: number;
  rows: Record<string, { one: { cpuMs: number; upstream: number }; dashboard: { cpuMs: number; upstream: number } }>;
  loadMs: number;
  typenameCpuMs?: number;
  oneDirectoryHeapMb: number;
  oneDirectoryEstimateMb: number;
  renameFromEventMs: number;
  renameFromCallMs: number;
  thousand?: { heapOneMb: number; heapThousandMb: number; estimateOneMb: number; estimateThousandMb: number; views: number; loaded: number };
}

async function benchSize(users: number): Promise<SizeResult> {
  const { createGateway } = await import('../src/gateway/yoga.js');
  const { EventHub } = await import('../src/gateway/events/hub.js');
  const { DASHBOARD_QUERY } = await import('../src/gateway/graphiql.js');
  const { child, ready } = await startChild(users);
  const [{ email, apiKey }] = (await child.ask({ type: 'credentials', count: 1 })).credentials!;
  const auth = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
  const result: SizeResult = { users, generateMs: ready.generateMs, rows: {}, loadMs: 0, oneDirectoryHeapMb: 0, oneDirectoryEstimateMb: 0, renameFromEventMs: 0, renameFromCallMs: 0 };
  try {
    // ---- off, at 372 and 384 (a fresh gateway each, so the user_ids support is learned anew)
    for (const level of [372, 384]) {
      await child.ask({ type: 'featureLevel', level });
      const gateway = createGateway({ zulipUrl: ready.url, logging: false, liveDirectory: false });
      const heavy = users >= 20_000 && level === 372; // each dashboard then parses the whole GET /users
      result.rows[`off@${level}`] = {
        one: await cpuPerQuery(gateway, auth, ONE_QUERY, LOOPS.one),
        dashboard: await cpuPerQuery(gateway, auth, DASHBOARD_QUERY, heavy ? LOOPS.heavy : LOOPS.dashboard),
      };
      await gateway.dispose();
    }
    // ---- on
    const hub = new EventHub();
    const before = heapMb();
    const gateway = createGateway({ zulipUrl: ready.url, logging: false, eventHub: hub });
    const loadStarted = Date.now();
    await query(gateway, auth, ONE_QUERY); // starts the directory
    await until(() => gateway.directories!.stats().readyDirectories === 1, 120_000, 'the directory', 5);
    result.loadMs = Date.now() - loadStarted;
    result.oneDirectoryHeapMb = heapMb() - before;
    result.oneDirectoryEstimateMb = gateway.directories!.stats().bytes / 1e6;
    result.rows.on = {
      one: await cpuPerQuery(gateway, auth, ONE_QUERY, LOOPS.one),
      dashboard: await cpuPerQuery(gateway, auth, DASHBOARD_QUERY, LOOPS.dashboard),
    };
    // Reference: the in-process request pipeline alone (no resolver, no upstream call).
    result.typenameCpuMs = (await cpuPerQuery(gateway, auth, '{ __typename }', LOOPS.one)).cpuMs;
    // ---- rename: event at the gateway → visible in a query (median of 5)
    const { ZulipConnection } = await import('../src/zulip/connection.js');
    let eventAt = 0;
    await hub.withSession(new ZulipConnection({ baseUrl: ready.url, credentials: { email, apiKey } }), async (session) => {
      session.listen({ events: (events) => void (events.some((e) => e.type === 'realm_user') && (eventAt = performance.now())) });
    });
    const fromEvent: number[] = [];
    const fromCall: number[] = [];
    let last = '';
    const skipRename = users >= 100_000 && process.env.BENCH_RENAME_LARGE === '0';
    // The emulator decides who may see the renamed user for each of its users: slow in large organizations.
    const renames = skipRename ? 0 : users >= 100_000 ? 1 : 3;
    for (let i = 0; i < renames; i++) {
      const name = `Renamed ${i} ${Date.now()}`;
      eventAt = 0;
      const callAt = performance.now();
      void child.ask({ type: 'rename', userId: 8, name });
      await until(async () => {
        const r = await gateway.fetch('http://bench.local/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ query: ONE_QUERY }),
        });
        last = ((await r.json()) as { data: { user: { fullName: string } } }).data.user.fullName;
        return last === name;
      }, 300_000, 'the rename', 5).catch((error) => {
        console.error('rename not visible:', last, JSON.stringify(gateway.directories!.stats()));
        throw error;
      });
      const visibleAt = performance.now();
      fromEvent.push(visibleAt - eventAt);
      fromCall.push(visibleAt - callAt);
    }
    result.renameFromEventMs = renames ? median(fromEvent) : NaN;
    result.renameFromCallMs = renames ? median(fromCall) : NaN;
    await gateway.dispose();
    if (users === 20_000 && process.env.BENCH_THOUSAND !== '0') result.thousand = await thousandCredentials(child, ready.url);
  } finally {
    child.process.kill();
  }
  return result;
}

/**
 * Memory of 1,000 credentials' directories of one organization vs one. Registering 1,000 real
 * queues would have the emulator build, and the gateway parse, the whole organization 1,000 times,
 * so each credential is loaded from the register response of one of `VIEWS` real credentials
 * (7 members, then the other roles), reused across credentials: what stays in memory after a load
 * is the same (objects are interned by content, the snapshot is garbage afterwards); what differs
 * between two members' views (their own user ID and subscriptions) is small. The registry is the
 * gateway's (DirectoryRegistry), used outside a gateway; bounded at 4 minutes of loading.
 */
async function thousandCredentials(child: Child, url: string) {
  const { DirectoryRegistry, DIRECTORY_REGISTER_OPTIONS } = await import('../src/gateway/directory/index.js');
  const { ZulipConnection } = await import('../src/zulip/connection.js');
  const { registerQueue } = await import('../src/zulip/routes/events.js');
  const VIEWS = 10;
  const credentials = (await child.ask({ type: 'credentials', count: 1000 })).credentials!;
  const viewers = [...credentials.slice(0, VIEWS - 3), ...credentials.slice(-3)];
  const bodies: object[] = [];
  for (const c of viewers) {
    const connection = new ZulipConnection({ baseUrl: url, credentials: c, deadlineMs: 120_000 });
    bodies.push(await registerQueue(connection, DIRECTORY_REGISTER_OPTIONS));
  }
  const base = heapMb();
  const registry = new DirectoryRegistry({ maxBytes: 64 * 1024 ** 3 });
  registry.open('c0').loadRegisterResponse(bodies[0] as never);
  const heapOneMb = heapMb() - base;
  const estimateOneMb = registry.estimatedBytes() / 1e6;
  const started = Date.now();
  for (let i = 1; i < 1000 && Date.now() - started < 240_000; i++) {
    // 990 members rotate over the members' views, the last 10 over the other roles' views.
    const body = i < 990 ? bodies[i % (VIEWS - 3)]! : bodies[VIEWS - 3 + (i % 3)]!;
    registry.open(`c${i}`).loadRegisterResponse(body as never);
  }
  const heapThousandMb = heapMb() - base;
  const estimateThousandMb = registry.estimatedBytes() / 1e6;
  const loaded = registry.stats().directories;
  registry.close();
  return { heapOneMb, heapThousandMb, estimateOneMb, estimateThousandMb, views: VIEWS, loaded };
}

// ---- main -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('(no --expose-gc: heap figures are rough)');
  const results: SizeResult[] = [];
  for (const users of SIZES) {
    console.error(`… ${users} users`);
    results.push(await benchSize(users));
  }
  const f = (x: number, d = 3) => x.toFixed(d);
  console.log('\n| users | mode | one-user CPU ms | one-user upstream | dashboard CPU ms | dashboard upstream |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (const r of results) {
    for (const [mode, row] of Object.entries(r.rows)) {
      console.log(`| ${r.users} | ${mode} | ${f(row.one.cpuMs)} | ${f(row.one.upstream, 2)} | ${f(row.dashboard.cpuMs)} | ${f(row.dashboard.upstream, 2)} |`);
    }
  }
  console.log(`\n{ __typename } in-process (pipeline alone): ${results.map((r) => `${r.users}: ${f(r.typenameCpuMs ?? NaN)} ms`).join(', ')}`);
  console.log('\n| users | generate s | directory load s | one directory heap MB | estimate MB | rename: event→visible ms | rename: call→visible ms |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.users} | ${f(r.generateMs / 1000, 1)} | ${f(r.loadMs / 1000, 2)} | ${f(r.oneDirectoryHeapMb, 1)} | ${f(r.oneDirectoryEstimateMb, 1)} | ${f(r.renameFromEventMs, 2)} | ${f(r.renameFromCallMs, 2)} |`);
  }
  for (const r of results) {
    if (!r.thousand) continue;
    const t = r.thousand;
    console.log(`\n${t.loaded} credentials of the ${r.users}-user organization (${t.views} distinct register responses): heap ${f(t.heapOneMb, 1)} MB for one → ${f(t.heapThousandMb, 1)} MB for 1,000 (${f(t.heapThousandMb / t.heapOneMb, 2)}×); estimate ${f(t.estimateOneMb, 1)} → ${f(t.estimateThousandMb, 1)} MB (${f(t.estimateThousandMb / t.estimateOneMb, 2)}×)`);
  }
  console.log(`\nJSON ${JSON.stringify(results)}`);
}

if (process.argv.includes(CHILD_FLAG)) {
  void runEmulatorChild(Number(process.argv[process.argv.indexOf(CHILD_FLAG) + 1]));
} else {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
