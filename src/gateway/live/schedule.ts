/**
 * When one live query runs again: one execution at a time, at most one per throttle window, only
 * the latest one asked for, and never a change lost.
 *
 * The live-query store asks for an execution on every invalidation of a resource the query read.
 * Its own throttle is not used, because it can drop a change: its timer checks the wall clock
 * when it fires, and a Node timer may fire a little before the wall clock says the window ended,
 * in which case the re-run is skipped and nothing asks again. Its tracking also starts only once an
 * execution has finished, so a change arriving during an execution (the first one above all,
 * which may wait on upstream calls) would be lost as well. Here:
 *
 * - the first execution starts once the credential's events are followed, so every later change
 *   reaches the store;
 * - executions never overlap: each waits for the previous one, then for the throttle window;
 *   after the wait, a request superseded by a newer one is skipped (the store discards its result);
 * - every resource invalidated while an execution runs is watched; if the execution read it, the
 *   resource is invalidated again once the store tracks what that execution read, so the change is
 *   re-read by the next execution.
 */
import type { Following } from './queries.js';

/** How the schedule waits and tells time (injected in tests). */
export interface ScheduleClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Runs `task` after the current promise jobs, when the store has tracked the execution's reads. */
  later(task: () => void): void;
}

export const systemClock: ScheduleClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  later: (task) => void setImmediate(task),
};

export interface LiveScheduleOptions {
  /** Least time between the starts of two executions, in milliseconds. */
  throttleMs: number;
  following: Pick<Following, 'ready' | 'watch'>;
  /** Invalidates the credential's resources again (unscoped names). */
  reinvalidate(names: string[]): void;
  /**
   * Waits until the execution may spend upstream calls (the credential's bucket: upstream/bucket.ts)
   * and sets them aside; called after the throttle wait, so changes that arrive meanwhile fold into
   * the run it admits. What it returns is released when the execution ends. @default none
   */
  admit?: () => Promise<Admitted | undefined>;
  clock?: ScheduleClock;
}

/** Calls set aside for one execution (upstream/bucket.ts `Reservation`). */
export interface Admitted {
  release(): void;
}

/** The result of an execution request that a newer one superseded: the store never sends it. */
export const SUPERSEDED = Object.freeze({ data: null });

/** Records one resource the execution read (unscoped). */
export type RecordRead = (name: string) => void;

export class LiveSchedule {
  private asked = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  private tail: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly clock: ScheduleClock;

  constructor(private readonly options: LiveScheduleOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Asks for one execution; `execute` runs when its turn comes, unless superseded or stopped. */
  run<T>(execute: (record: RecordRead, admitted: Admitted | undefined) => Promise<T> | T): Promise<T | typeof SUPERSEDED> {
    const turn = ++this.asked;
    const result = this.tail.then(() => this.take(turn, execute));
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** No execution starts after this (the query ended). */
  stop(): void {
    this.stopped = true;
  }

  private async take<T>(turn: number, execute: (record: RecordRead, admitted: Admitted | undefined) => Promise<T> | T): Promise<T | typeof SUPERSEDED> {
    await this.options.following.ready;
    const wait = this.lastStart + this.options.throttleMs - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait);
    if (this.stopped || turn !== this.asked) return SUPERSEDED;
    // Delayed, never dropped: a newer request asked meanwhile runs next, and waits in its turn.
    const admitted = await this.options.admit?.();
    if (this.stopped || turn !== this.asked) {
      admitted?.release();
      return SUPERSEDED;
    }
    this.lastStart = this.clock.now();
    const reads = new Set<string>();
    const watch = this.options.following.watch();
    try {
      return await execute((name) => reads.add(name), admitted);
    } finally {
      admitted?.release();
      watch.stop();
      // A newer request already runs after this one and reads the change itself.
      const missed = turn === this.asked ? [...watch.names].filter((name) => reads.has(name)) : [];
      if (missed.length > 0) this.clock.later(() => this.options.reinvalidate(missed));
    }
  }
}
