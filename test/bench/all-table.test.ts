/**
 * bench/all-table.ts: the README table bench:all rewrites, and the move of the table it replaces to
 * "Earlier figures", so that no measured figure vanishes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HISTORY, meets, renderTable, replaceTable, TABLE_END, TABLE_START, type Measured } from '../../bench/all-table.js';

const measured = (date: string, commit: string, value: number): Measured => ({
  date,
  commit,
  machine: '2 × Test CPU, 24 GiB, Node v20.0.0',
  runs: 3,
  benches: [{ name: 'gateway', runs: 3, rows: [{ metric: 'server settings', value, unit: '×', target: '≤ 2×', met: meets(value, '≤ 2×') }] }],
  notes: ['load average 0.4'],
});

const readme = (inside: string) => `# x\n\n## Performance\n\n${TABLE_START}\n${inside}\n${TABLE_END}\n\n### Earlier figures\n\n${HISTORY}\n\nolder prose\n`;

describe('bench:all README table', () => {
  it('reads targets written with ≤, <, ≥ and >', () => {
    expect([meets(2, '≤ 2×'), meets(2, '< 2 ms'), meets(20, '≥ 20%'), meets(21, '> 20'), meets(1, 'fast')]).toEqual([true, false, true, true, undefined]);
  });

  it('renders the date, the machine, the commit, each figure and its verdict', () => {
    const table = renderTable(measured('2026-11-28', 'abc1234', 2.5));
    expect(table).toContain('Measured on 2026-11-28 at commit abc1234, on 2 × Test CPU, 24 GiB, Node v20.0.0');
    expect(table).toContain('| gateway | server settings | 2.5 × | ≤ 2× | **missed** |');
    expect(table).toContain('- load average 0.4');
  });

  it('moves the table it replaces under a dated heading, above the earlier ones, and drops the unmeasured placeholder', () => {
    const first = replaceTable(readme('nothing measured yet'), renderTable(measured('2026-11-27', 'aaa1111', 2.5)));
    const second = replaceTable(first, renderTable(measured('2026-11-28', 'bbb2222', 1.5)));
    const [current, history] = second.split('### Earlier figures');
    expect(current).toContain('at commit bbb2222');
    expect(current).not.toContain('aaa1111');
    expect(history).toMatch(/#### 2026-11-27, commit aaa1111\n\nMeasured on 2026-11-27 at commit aaa1111[^]*\| 2\.5 × \|/);
    expect(history!.indexOf('aaa1111')).toBeLessThan(history!.indexOf('older prose'));
    expect(second).not.toContain('nothing measured yet');
  });

  it('refuses a README without its markers rather than half rewriting it', () => {
    expect(() => replaceTable('# no markers', 'table')).toThrow(/needs/);
  });

  it('finds its markers in docs/benchmarks.md', () => {
    const text = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8');
    expect(() => replaceTable(text, 'table')).not.toThrow();
  });
});
