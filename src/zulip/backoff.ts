/**
 * Capped exponential backoff with full jitter, as zulip-flutter's BackoffMachine:
 * the bound starts at 100 ms and doubles on every wait up to a cap (10 s), and
 * each wait is uniform in [0, bound] (in [floor, bound] with a floor). Jitter spreads the retries
 * of many sessions after a server restart (https://zulip.com/api/real-time-events#handling-errors).
 * The event poller waits with it, and so does the connection between the retries of a GET
 * (connection/retry.ts).
 */

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface BackoffOptions {
  /** Bound of the first wait. @default 100 */
  firstBoundMs?: number;
  /** Cap on the bound. @default 10_000 */
  maxBoundMs?: number;
  /** Least wait: each wait is uniform in [floor, bound] (just the floor once the bound is below it). @default 0 */
  floorMs?: number;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
  /** How to wait; injectable so tests need no real timers. @default a setTimeout that honours the signal */
  sleep?: Sleep;
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export class Backoff {
  readonly firstBoundMs: number;
  readonly maxBoundMs: number;
  readonly floorMs: number;
  private readonly random: () => number;
  private readonly sleep: Sleep;
  private currentBound: number | undefined;
  private completed = 0;

  constructor(options: BackoffOptions = {}) {
    this.firstBoundMs = options.firstBoundMs ?? 100;
    this.maxBoundMs = options.maxBoundMs ?? 10_000;
    this.floorMs = options.floorMs ?? 0;
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The bound used by the latest delay; undefined before the first one. */
  get bound(): number | undefined {
    return this.currentBound;
  }

  /** How many waits finished since construction or the last reset. */
  get waitsCompleted(): number {
    return this.completed;
  }

  /** Advances the bound and draws the next jittered delay, without waiting. */
  nextDelayMs(): number {
    this.currentBound =
      this.currentBound === undefined
        ? Math.min(this.firstBoundMs, this.maxBoundMs)
        : Math.min(this.currentBound * 2, this.maxBoundMs);
    return this.floorMs + this.random() * Math.max(0, this.currentBound - this.floorMs);
  }

  /** Waits the next jittered delay; rejects if the signal aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    await this.sleep(this.nextDelayMs(), signal);
    this.completed += 1;
  }

  /** Back to the first bound, after a success. */
  reset(): void {
    this.currentBound = undefined;
    this.completed = 0;
  }
}
