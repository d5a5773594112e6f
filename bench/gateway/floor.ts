/**
 * The query floor of `npm run bench:gateway`, measured side by side in one run: the gateway's CPU
 * per query over loopback HTTP, against the same query served by a bare node:http + graphql-jit
 * server (raw-server.ts: the same schema, resolvers and upstream calls, no framework) and against
 * the direct REST call it stands for. Both servers run in this process; the client runs in the
 * emulator process (`drive`), so this process's CPU is the server's work alone. Each round
 * measures every server and call in turn; a ratio is taken within its round and the median of
 * the rounds' ratios is reported.
 */
import { availableParallelism, loadavg } from 'node:os';
import { request } from 'undici';
import { median } from '../cpu.js';
import type { ReportRow } from '../report.js';
import { checkGraphQL, README_DASHBOARD_QUERY, SERVER_SETTINGS_QUERY, USER_QUERY, type Call } from './clients.js';
import type { EmulatorProcess } from './emulator.js';
import { cpuWithEmulator, medianRatio, printTable } from './measure.js';

/** The queries, each with its load: queries per measurement, and the warm-up before it. */
function queries(userId: number) {
  return {
    settings: { label: 'serverSettings', query: SERVER_SETTINGS_QUERY, variables: {}, count: 800, warm: 300, target: 1.5 },
    user: { label: 'user(id:)', query: USER_QUERY, variables: { id: userId }, count: 800, warm: 300, target: 1.5 },
    readme: { label: 'README dashboard', query: README_DASHBOARD_QUERY, variables: {}, count: 150, warm: 60, target: 1.3 },
  };
}

/** The upstream requests one query costs on a server, as its answer reports them. */
async function upstreamOf(url: string, auth: string, query: string, variables: Record<string, unknown>): Promise<number> {
  const { statusCode, body } = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify({ query, variables }),
  });
  return checkGraphQL(statusCode, await body.json());
}

export async function floor(
  emulator: EmulatorProcess,
  servers: { gateway: string; raw: string },
  direct: { settings: Call; user: Call },
  viewer: { email: string; apiKey: string; userId: number },
  rounds: number,
): Promise<{ rows: ReportRow[]; notes: string[] }> {
  const auth = `Basic ${Buffer.from(`${viewer.email}:${viewer.apiKey}`).toString('base64')}`;
  const all = queries(viewer.userId);
  // The raw server's live directory and message cache, warmed as the gateway's are: the dashboard
  // loads them, and `user(id:)` must then cost no upstream call on either server.
  for (let attempt = 0; attempt < 50; attempt++) {
    await upstreamOf(servers.raw, auth, README_DASHBOARD_QUERY, {});
    const [gateway, raw] = [await upstreamOf(servers.gateway, auth, USER_QUERY, { id: viewer.userId }), await upstreamOf(servers.raw, auth, USER_QUERY, { id: viewer.userId })];
    if (gateway === 0 && raw === 0) break;
    if (attempt === 49) throw new Error(`user(id:) still goes upstream (gateway ${gateway}, raw ${raw})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const upstream: Record<string, string> = {};
  for (const [name, q] of Object.entries(all)) {
    upstream[name] = `${await upstreamOf(servers.gateway, auth, q.query, q.variables)} / ${await upstreamOf(servers.raw, auth, q.query, q.variables)}`;
  }

  const cpu: Record<string, number[]> = {};
  const push = (key: string, value: number) => (cpu[key] ??= []).push(value);
  const serverCpu = async (url: string, q: (typeof all)['settings']) => {
    await emulator.drive({ url, query: q.query, variables: q.variables, count: q.warm, concurrency: 1 });
    const before = process.cpuUsage();
    const count = await emulator.drive({ url, query: q.query, variables: q.variables, count: q.count, concurrency: 1 });
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / count;
  };
  for (let round = 0; round < rounds; round++) {
    for (const [name, q] of Object.entries(all)) {
      push(`${name} gateway`, await serverCpu(servers.gateway, q));
      push(`${name} raw`, await serverCpu(servers.raw, q));
    }
    for (const [name, call] of Object.entries(direct)) {
      push(`${name} direct`, (await cpuWithEmulator(call, { count: 800, maxMs: 4000 }, emulator, { count: 200, maxMs: 1000 })).cpuMs);
    }
  }

  const ms = (xs: number[]) => Math.round(median(xs) * 1000) / 1000;
  const ratio = (a: string, b: string) => Math.round(medianRatio(cpu[a]!, cpu[b]!) * 100) / 100;
  const rows: ReportRow[] = [];
  for (const [name, q] of Object.entries(all)) {
    const r = ratio(`${name} gateway`, `${name} raw`);
    rows.push({ metric: `${q.label}: gateway CPU / raw-server floor CPU (node:http + graphql-jit), over HTTP`, value: r, unit: '×', target: `≤ ${q.target}×`, met: r <= q.target });
  }
  for (const [name, q] of Object.entries(all)) {
    if (!(name in direct)) continue;
    rows.push({ metric: `${q.label}: gateway CPU over HTTP / direct REST client CPU`, value: ratio(`${name} gateway`, `${name} direct`), unit: '×' });
    rows.push({ metric: `${q.label}: raw-server floor CPU over HTTP / direct REST client CPU`, value: ratio(`${name} raw`, `${name} direct`), unit: '×' });
  }
  for (const [name, q] of Object.entries(all)) {
    rows.push({ metric: `${q.label}, gateway CPU per query over HTTP`, value: ms(cpu[`${name} gateway`]!), unit: 'ms' });
    rows.push({ metric: `${q.label}, raw-server floor CPU per query over HTTP`, value: ms(cpu[`${name} raw`]!), unit: 'ms' });
  }
  printTable(
    ['floor', 'median', 'rounds'],
    Object.entries(cpu).map(([key, xs]) => [key, `${ms(xs)} ms`, xs.map((x) => x.toFixed(3)).join(' ')]),
  );
  for (const row of rows.filter((r) => r.unit === '×')) console.log(`${row.metric}: ${row.value} ×${row.target ? ` (${row.met ? 'PASS' : 'MISS'} ${row.target})` : ''}`);
  const notes = [
    `floor: server CPU per query over loopback HTTP, the client in the emulator process; ${rounds} rounds, ratios within each round; upstream calls per query (gateway / raw): ` +
      Object.entries(upstream).map(([name, counts]) => `${all[name as keyof typeof all].label} ${counts}`).join(', '),
    `floor: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${availableParallelism()} CPUs`,
  ];
  for (const note of notes) console.log(note);
  return { rows, notes };
}
