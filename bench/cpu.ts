/** What the CPU benches share: a bounded sequential loop measured with process.cpuUsage, and the median. */

/** A loop's bounds: at most `count` calls, and no new call after `maxMs`. */
export interface LoopBound {
  count: number;
  maxMs: number;
}

/** Calls `call` one after another within `bound`; CPU ms of this process per call, and the calls made. */
export async function cpuPerCall(call: () => Promise<unknown>, bound: LoopBound): Promise<{ cpuMs: number; count: number }> {
  const started = performance.now();
  const before = process.cpuUsage();
  let count = 0;
  while (count < bound.count && performance.now() - started < bound.maxMs) {
    await call();
    count++;
  }
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000 / Math.max(1, count), count };
}

/** The middle value (the upper one of an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
