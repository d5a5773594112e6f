/**
 * The docs/benchmarks.md table `npm run bench:all` writes (bench/all.ts): how it looks, where it goes, and how
 * the table it replaces moves to the "Earlier figures" section, whole and dated.
 */
import type { ReportRow } from './report.js';

/** One run of bench:all: where and when it measured, and each bench's median rows. */
export interface Measured {
  /** YYYY-MM-DD. */
  date: string;
  /** Short commit id, marked when the tree had uncommitted changes. */
  commit: string;
  machine: string;
  /** Runs asked for per bench (a bench's own count is lower when a run failed). */
  runs: number;
  benches: { name: string; runs: number; rows: ReportRow[] }[];
  notes: string[];
}

export const TABLE_START = '<!-- bench:all:start -->';
export const TABLE_END = '<!-- bench:all:end -->';
/** Marks where earlier tables go, newest first, in the "Earlier figures" section. */
export const HISTORY = '<!-- bench:all:history -->';

/** Whether `value` meets a target written as `≤ 2×`, `< 50 ms`, `≥ 20%`… (undefined when unreadable). */
export function meets(value: number, target: string): boolean | undefined {
  const m = /^\s*(≤|<=|<|≥|>=|>)\s*([\d.]+)/.exec(target);
  if (!m) return undefined;
  const bound = Number(m[2]);
  if (m[1] === '≤' || m[1] === '<=') return value <= bound;
  if (m[1] === '<') return value < bound;
  if (m[1] === '≥' || m[1] === '>=') return value >= bound;
  return value > bound;
}

/** A figure with at most three significant decimals, no trailing zeros. */
function figure(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function verdict(row: ReportRow): string {
  if (row.target === undefined) return '';
  if (row.met === undefined) return 'n/a';
  return row.met ? 'met' : '**missed**';
}

/** The block between the markers: a line saying where and when, the table, and the notes. */
export function renderTable(m: Measured): string {
  const lines = [
    `Measured on ${m.date} at commit ${m.commit}, on ${m.machine}; each figure is the median of ` +
      `${m.runs} runs of \`npm run bench:all\`.`,
    '',
    '| bench | figure | value | target | |',
    '|---|---|---:|---|---|',
    ...m.benches.flatMap((b) =>
      b.rows.map((r) => `| ${b.name} | ${r.metric} | ${figure(r.value)} ${r.unit} | ${r.target ?? ''} | ${verdict(r)} |`),
    ),
  ];
  if (m.notes.length) lines.push('', ...m.notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

/**
 * `readme` with `table` between the markers, and the block that was there moved under a dated
 * heading just after the history marker. Throws when a marker is missing, so a README that lost
 * them is never half rewritten.
 */
export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  const history = readme.indexOf(HISTORY);
  if (start < 0 || end < start || history < end) {
    throw new Error(`docs/benchmarks.md needs ${TABLE_START}, ${TABLE_END} and then ${HISTORY}, in that order`);
  }
  const previous = readme.slice(start + TABLE_START.length, end).trim();
  const when = /Measured on (\S+) at commit (\S+?)[,;]/.exec(previous);
  // Only a measured table moves; the placeholder of a README never measured has no figure to keep.
  const moved = when ? `\n\n#### ${when[1]}, commit ${when[2]}\n\n${previous}` : '';
  const at = history + HISTORY.length;
  return `${readme.slice(0, start)}${TABLE_START}\n${table}\n${TABLE_END}${readme.slice(end + TABLE_END.length, at)}${moved}${readme.slice(at)}`;
}
