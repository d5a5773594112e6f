/** What the soak counts per kind of operation: latencies, upstream calls and errors by code. */

interface Counts {
  count: number;
  upstream: number;
  latencies: number[];
  errorsByCode: Record<string, number>;
}

/** Latencies kept per kind: a uniform reservoir, so an hour-long run stays bounded in memory. */
const RESERVOIR = 10_000;

export class Tally {
  readonly #kinds = new Map<string, Counts>();

  record(kind: string, latencyMs: number, upstreamCalls: number, errorCode: string | undefined): void {
    let counts = this.#kinds.get(kind);
    if (!counts) this.#kinds.set(kind, (counts = { count: 0, upstream: 0, latencies: [], errorsByCode: {} }));
    counts.count++;
    counts.upstream += upstreamCalls;
    if (counts.latencies.length < RESERVOIR) counts.latencies.push(latencyMs);
    else {
      const slot = Math.floor(Math.random() * counts.count);
      if (slot < RESERVOIR) counts.latencies[slot] = latencyMs;
    }
    if (errorCode !== undefined) counts.errorsByCode[errorCode] = (counts.errorsByCode[errorCode] ?? 0) + 1;
  }

  total(): number {
    let sum = 0;
    for (const c of this.#kinds.values()) sum += c.count;
    return sum;
  }

  errors(): number {
    let sum = 0;
    for (const c of this.#kinds.values()) for (const n of Object.values(c.errorsByCode)) sum += n;
    return sum;
  }

  summary() {
    return [...this.#kinds].map(([kind, c]) => {
      const sorted = [...c.latencies].sort((a, b) => a - b);
      const at = (p: number) => +(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN).toFixed(1);
      return { kind, count: c.count, errorsByCode: c.errorsByCode, upstreamPerOperation: +(c.upstream / c.count).toFixed(2), p50Ms: at(0.5), p99Ms: at(0.99) };
    });
  }
}
