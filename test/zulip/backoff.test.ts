import { describe, expect, test } from 'vitest';
import { Backoff, defaultSleep } from '../../src/zulip/backoff.js';

/** A sleep that records the requested delays and returns at once. */
function recordingSleep() {
  const delays: number[] = [];
  const sleep = async (ms: number) => void delays.push(ms);
  return { delays, sleep };
}

describe('Backoff', () => {
  test('the bound starts at 100 ms, doubles per wait and caps at 10 s', () => {
    const backoff = new Backoff({ random: () => 1 });
    const delays = Array.from({ length: 10 }, () => backoff.nextDelayMs());
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000]);
    expect(backoff.bound).toBe(10_000);
  });

  test('delays are full jitter: random × bound', () => {
    const draws = [0, 0.5, 0.25];
    const backoff = new Backoff({ random: () => draws.shift()! });
    expect([backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs()]).toEqual([0, 100, 100]);
  });

  test('with a floor, delays are uniform in [floor, bound], and the floor alone while the bound is below it', () => {
    const draws = [0.5, 0.5, 1, 0];
    const backoff = new Backoff({ firstBoundMs: 100, maxBoundMs: 300, floorMs: 100, random: () => draws.shift()! });
    expect([backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs()]).toEqual([100, 150, 300, 100]);
    const low = new Backoff({ firstBoundMs: 50, maxBoundMs: 50, floorMs: 100, random: () => 1 });
    expect(low.nextDelayMs()).toBe(100);
  });

  test('with the real random source every delay stays within [0, bound]', () => {
    const backoff = new Backoff({ firstBoundMs: 10, maxBoundMs: 80 });
    for (let i = 0; i < 50; i++) {
      const delay = backoff.nextDelayMs();
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(backoff.bound!);
    }
    expect(backoff.bound).toBe(80);
  });

  test('wait sleeps the jittered delay and counts completed waits; reset starts over', async () => {
    const { delays, sleep } = recordingSleep();
    const backoff = new Backoff({ random: () => 0.5, sleep, maxBoundMs: 300 });
    await backoff.wait();
    await backoff.wait();
    await backoff.wait();
    expect(delays).toEqual([50, 100, 150]);
    expect(backoff.waitsCompleted).toBe(3);
    backoff.reset();
    expect(backoff.bound).toBeUndefined();
    expect(backoff.waitsCompleted).toBe(0);
    await backoff.wait();
    expect(delays.at(-1)).toBe(50);
  });

  test('wait passes the signal to sleep and rejects when it aborts', async () => {
    const backoff = new Backoff({ firstBoundMs: 60_000, random: () => 1 });
    const controller = new AbortController();
    const pending = backoff.wait(controller.signal);
    controller.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    expect(backoff.waitsCompleted).toBe(0);
  });

  test('the default sleep waits for real time', async () => {
    const started = performance.now();
    await defaultSleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    await expect(defaultSleep(10, AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
  });
});
