/**
 * `npm run bench:all`: the cost benches one after another, each BENCH_RUNS times (default 3), and
 * one table of their headline figures (medians of the runs) with the date, the machine and the
 * commit. By default it rewrites that table in docs/benchmarks.md (between the `bench:all` markers of the
 * Performance section) and moves the table it replaces, whole, to the top of the "Earlier figures"
 * section below it, so no figure vanishes. `-- --print` only prints the table.
 *
 * Each bench writes its rows (bench/report.ts) to the file named by BENCH_REPORT; a bench that
 * fails, or writes nothing, is named in the table's notes instead of silently left out.
 * BENCH_ONLY=gateway,subscriptions,subscriptions-mix,cluster,sync picks benches. Every bench bounds itself in count and
 * time; this script adds a wall-clock limit per run (BENCH_RUN_LIMIT_S, default 900).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './cpu.js';
import type { BenchReport, ReportRow } from './report.js';
import { meets, renderTable, replaceTable, type Measured } from './all-table.js';

/** The benches and the npm scripts that run them, in the order they run. */
const BENCHES: Record<string, string> = {
  gateway: 'bench:gateway',
  subscriptions: 'bench:subscriptions',
  'subscriptions-mix': 'bench:subscriptions:mix',
  cluster: 'bench:cluster',
  sync: 'bench:sync',
};

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RUN_LIMIT_S = Number(process.env.BENCH_RUN_LIMIT_S ?? 900);
const ONLY = (process.env.BENCH_ONLY ?? Object.keys(BENCHES).join(',')).split(',').filter(Boolean);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = join(ROOT, 'docs', 'benchmarks.md');

/** Runs one bench once; its report, or why there is none. */
function runOnce(name: string, reportFile: string): Promise<BenchReport | string> {
  rmSync(reportFile, { force: true });
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', BENCHES[name]!], {
      cwd: ROOT,
      env: { ...process.env, BENCH_REPORT: reportFile },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), RUN_LIMIT_S * 1000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      try {
        const report = JSON.parse(readFileSync(reportFile, 'utf8')) as BenchReport;
        resolve(code === 0 ? report : `${name}: exited ${code ?? signal} after writing its report`);
      } catch {
        resolve(`${name}: no report (exited ${code ?? signal})`);
      }
    });
  });
}

/** The median of each metric over the runs that reported it, in the first run's row order. */
function medianRows(reports: BenchReport[]): ReportRow[] {
  const byMetric = new Map<string, ReportRow[]>();
  for (const report of reports) for (const row of report.rows) byMetric.set(row.metric, [...(byMetric.get(row.metric) ?? []), row]);
  return [...byMetric.values()].map((rows) => {
    const value = median(rows.map((r) => r.value));
    const first = rows[0]!;
    return { ...first, value, ...(first.target === undefined ? {} : { met: meets(value, first.target) }) };
  });
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function machine(): string {
  const model = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${cpus().length} × ${model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

async function main(): Promise<void> {
  const unknown = ONLY.filter((name) => !BENCHES[name]);
  if (unknown.length) throw new Error(`BENCH_ONLY names no bench: ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-all-'));
  const dirty = git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' (with uncommitted changes)';
  const load = loadavg()[0]!.toFixed(1);
  const measured: Measured = {
    date: new Date().toISOString().slice(0, 10),
    commit: `${git('rev-parse', '--short', 'HEAD')}${dirty}`,
    machine: machine(),
    runs: RUNS,
    benches: [],
    notes: [],
  };
  try {
    for (const name of ONLY) {
      const reports: BenchReport[] = [];
      for (let run = 1; run <= RUNS; run++) {
        console.log(`\n=== bench:all: ${name}, run ${run} of ${RUNS} (load average ${loadavg()[0]!.toFixed(1)}) ===`);
        const outcome = await runOnce(name, join(dir, `${name}-${run}.json`));
        if (typeof outcome === 'string') measured.notes.push(outcome);
        else reports.push(outcome);
      }
      if (reports.length) {
        measured.benches.push({ name, runs: reports.length, rows: medianRows(reports) });
        measured.notes.push(...new Set(reports.flatMap((r) => r.notes ?? []).map((note) => `${name}: ${note}`)));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  measured.notes.unshift(`1-minute load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end`);
  const table = renderTable(measured);
  console.log(`\n${table}`);
  if (process.argv.includes('--print')) return;
  writeFileSync(README, replaceTable(readFileSync(README, 'utf8'), table));
  console.log('docs/benchmarks.md: table replaced; the one before it moved to "Earlier figures"');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
