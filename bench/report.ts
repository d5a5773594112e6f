/**
 * The one shape every bench reports its headline figures in, so that `npm run bench:all` can put
 * them in one table (bench/all.ts). A bench prints its own detail as it likes; when BENCH_REPORT
 * names a file, it also writes its rows there as JSON.
 */
import { writeFileSync } from 'node:fs';

/** One headline figure of a bench, with the target it is held to (if any). */
export interface ReportRow {
  /** What was measured, in words a reader of the README table understands. */
  metric: string;
  /** The figure, already rounded for display. */
  value: number;
  /** Its unit: `ms`, `µs`, `KB`, `MB`, `×` (a ratio), `calls`, `commands`, `%`… */
  unit: string;
  /** The target as written in the table, for example `≤ 2×`; absent for context rows. */
  target?: string;
  /** Whether the figure meets the target; absent for context rows. */
  met?: boolean;
}

/** What one bench run wrote. */
export interface BenchReport {
  bench: string;
  rows: ReportRow[];
  /** Conditions of the run worth printing beside the figures (load average, sizes). */
  notes?: string[];
}

/** Writes `report` to the file named by BENCH_REPORT, if any (bench/all.ts reads it). */
export function writeReport(report: BenchReport): void {
  const file = process.env.BENCH_REPORT;
  if (file) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
