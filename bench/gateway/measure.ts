/**
 * How `npm run bench:gateway` measures: concurrent load (requests/second, latency percentiles,
 * upstream requests per query) and sequential CPU loops (this process's CPU per call, and the
 * emulator process's beside it), each bounded by a count and a time limit.
 */
import { cpuPerCall, median, type LoopBound } from '../cpu.js';
import type { EmulatorProcess } from './emulator.js';

/** Calls before each sequential CPU measurement, bounded in count and time. */
export const WARMUP: LoopBound = { count: 2000, maxMs: 2000 };

export interface LoadResult {
  count: number;
  rps: number;
  p50: number;
  p99: number;
  upstreamPerQuery: number;
}

/** Runs `call` with `concurrency` workers until `count` calls or `maxMs` elapse. */
export async function load(call: () => Promise<number>, limits: LoopBound, concurrency: number): Promise<LoadResult> {
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

export interface CpuResult {
  count: number;
  /** This process, ms per call. */
  cpuMs: number;
  /** The emulator process, ms per call (context: what the upstream itself spends). */
  emulatorCpuMs: number;
}

/** Sequential calls, CPU time of this process (and of the emulator process) per call; `warm` first. */
export async function cpuWithEmulator(call: () => Promise<number>, limits: LoopBound, emulator: EmulatorProcess, warm: LoopBound = WARMUP): Promise<CpuResult> {
  // Warm-up (JIT, caches, keep-alive): V8 needs a few thousand queries to optimize the whole path,
  // and a short warm-up measured mostly the interpreter.
  await cpuPerCall(call, warm);
  const emulatorBefore = await emulator.cpuUsage();
  const { cpuMs, count } = await cpuPerCall(call, limits);
  const after = await emulator.cpuUsage();
  const emulatorMs = (after.user - emulatorBefore.user + after.system - emulatorBefore.system) / 1000;
  return { count, cpuMs, emulatorCpuMs: emulatorMs / count };
}

export interface CpuRounds {
  min: CpuResult;
  median: CpuResult;
}

/** `rounds` sequential measurements of one call, one after another. */
export async function cpuRounds(call: () => Promise<number>, limits: LoopBound, emulator: EmulatorProcess, rounds: number): Promise<CpuRounds> {
  const results: CpuResult[] = [];
  for (let i = 0; i < rounds; i++) results.push(await cpuWithEmulator(call, limits, emulator));
  results.sort((a, b) => a.cpuMs - b.cpuMs);
  return { min: results[0]!, median: results[Math.floor(results.length / 2)]! };
}

/**
 * CPU per call of several calls measured in turn, round after round (each warmed up once first,
 * then `rounds` rounds of short warm-up and measurement), so that a noisy moment on a shared
 * machine falls on all of them alike: each call's CPU ms per round, in the order of `calls`.
 */
export async function interleavedCpu<K extends string>(
  calls: Record<K, { call: () => Promise<number>; limits: LoopBound }>,
  emulator: EmulatorProcess,
  rounds: number,
): Promise<Record<K, number[]>> {
  const keys = Object.keys(calls) as K[];
  const results = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (const k of keys) await cpuPerCall(calls[k].call, WARMUP);
  const shortWarm: LoopBound = { count: 200, maxMs: 500 };
  for (let round = 0; round < rounds; round++) {
    for (const k of keys) results[k].push((await cpuWithEmulator(calls[k].call, calls[k].limits, emulator, shortWarm)).cpuMs);
  }
  return results;
}

/** The median of each round's ratio `a[i] / b[i]` (both measured in the same round). */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / b[i]!));
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}
