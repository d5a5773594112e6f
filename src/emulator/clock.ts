/**
 * Time source for the emulator. Tests inject a {@link ManualClock} so that queue expiry, heartbeats and
 * edit/move time limits can be exercised without waiting.
 */
export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: number;
}

/** The real clock. (Parked polls clear their timers when they end, and `close()` ends them all.) */
export function systemClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const t = setTimeout(() => {
        timers.delete(id);
        fn();
      }, ms);
      timers.set(id, t);
      return { id };
    },
    clearTimeout(handle) {
      clearTimeout(timers.get(handle.id));
      timers.delete(handle.id);
    },
  };
}

/** A clock that only moves when told to; timers fire in due order during {@link advance}. */
export class ManualClock implements Clock {
  private current: number;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.current = Math.max(this.current, due[1].at);
      due[1].fn();
    }
    this.current = target;
  }
}
