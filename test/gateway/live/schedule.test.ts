/**
 * The executions of one live query (live/schedule.ts), on an injected clock: one at a time, at
 * most one per throttle window, the latest request only, and a change that arrives during an
 * execution is asked again once that execution is tracked.
 */
import { describe, expect, it } from 'vitest';
import { LiveSchedule, SUPERSEDED, type ScheduleClock } from '../../../src/gateway/live/schedule.js';

/** A clock whose time and sleeps the test moves, and whose deferred tasks it runs. */
function manualClock() {
  let time = 1000;
  const sleeps: { ms: number; wake: () => void }[] = [];
  const tasks: (() => void)[] = [];
  const clock: ScheduleClock = {
    now: () => time,
    sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
    later: (task) => void tasks.push(task),
  };
  return {
    clock,
    sleeps,
    advance: (ms: number) => void (time += ms),
    runLater: () => tasks.splice(0).forEach((task) => task()),
  };
}

/** A credential's followed events: `invalidate` plays an event's resource names. */
function following(ready: Promise<void> = Promise.resolve()) {
  const watchers = new Set<Set<string>>();
  return {
    ready,
    watch: () => {
      const names = new Set<string>();
      watchers.add(names);
      return { names, stop: () => void watchers.delete(names) };
    },
    invalidate: (...names: string[]) => watchers.forEach((w) => names.forEach((n) => w.add(n))),
  };
}

/** An execution the test finishes by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveSchedule', () => {
  it('asks again for a resource invalidated while an execution that read it was running, and only for those', async () => {
    const time = manualClock();
    const events = following();
    const reinvalidated: string[][] = [];
    const schedule = new LiveSchedule({ throttleMs: 50, following: events, reinvalidate: (n) => reinvalidated.push(n), clock: time.clock });
    const running = gate();
    const result = schedule.run(async (record) => {
      record('Unreads');
      record('User:6');
      await running.opened;
      return 'first';
    });
    await flush();
    events.invalidate('Unreads', 'Channel:3');
    running.open();
    expect(await result).toBe('first');
    expect(reinvalidated).toEqual([]); // not before the store has tracked the execution's reads
    time.runLater();
    expect(reinvalidated).toEqual([['Unreads']]);
  });

  it('asks nothing again when no change arrived during the execution', async () => {
    const time = manualClock();
    const reinvalidated: string[][] = [];
    const schedule = new LiveSchedule({ throttleMs: 50, following: following(), reinvalidate: (n) => reinvalidated.push(n), clock: time.clock });
    await schedule.run((record) => record('Unreads'));
    time.runLater();
    expect(reinvalidated).toEqual([]);
  });

  it('waits out the throttle window and runs it whatever the timer says, once for several requests', async () => {
    const time = manualClock();
    const schedule = new LiveSchedule({ throttleMs: 50, following: following(), reinvalidate: () => {}, clock: time.clock });
    const ran: number[] = [];
    await schedule.run(() => ran.push(1));
    time.advance(20);
    const second = schedule.run(() => ran.push(2));
    const third = schedule.run(() => ran.push(3));
    await flush();
    expect(time.sleeps.map((s) => s.ms)).toEqual([30]);
    // The timer fires early by the clock: the request still runs (a dropped one was the bug).
    time.advance(29);
    time.sleeps.shift()!.wake();
    expect(await second).toBe(SUPERSEDED);
    await flush();
    expect(time.sleeps.map((s) => s.ms)).toEqual([1]); // the next request waits out what is left
    time.advance(1);
    time.sleeps.shift()!.wake();
    expect(await third).toBe(2);
    expect(ran).toEqual([1, 3]);
  });

  it('never overlaps two executions: the next starts after the running one ends', async () => {
    const time = manualClock();
    const schedule = new LiveSchedule({ throttleMs: 0, following: following(), reinvalidate: () => {}, clock: time.clock });
    const running = gate();
    const order: string[] = [];
    const first = schedule.run(async () => {
      order.push('first started');
      await running.opened;
      order.push('first ended');
    });
    await flush();
    const second = schedule.run(() => void order.push('second started'));
    await flush();
    expect(order).toEqual(['first started']);
    running.open();
    await Promise.all([first, second]);
    expect(order).toEqual(['first started', 'first ended', 'second started']);
  });

  it('starts the first execution only once the credential\u2019s events are followed, and none after stop', async () => {
    const time = manualClock();
    const attached = gate();
    const schedule = new LiveSchedule({ throttleMs: 0, following: following(attached.opened), reinvalidate: () => {}, clock: time.clock });
    const ran: string[] = [];
    const first = schedule.run(() => ran.push('first'));
    await flush();
    expect(ran).toEqual([]);
    attached.open();
    await first;
    expect(ran).toEqual(['first']);
    schedule.stop();
    expect(await schedule.run(() => ran.push('after stop'))).toBe(SUPERSEDED);
    expect(ran).toEqual(['first']);
  });
});
