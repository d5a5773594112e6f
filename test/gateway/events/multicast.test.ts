/** Sharing one source among identical consumers, each with its own bounded backlog (events/multicast.ts). */
import { describe, expect, test } from 'vitest';
import { Multicast } from '../../../src/gateway/events/multicast.js';
import { until } from '../../helpers/wait.js';

/** A push-driven source that records whether it was returned. */
function source<T>() {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const state = { returned: false, opened: 0 };
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        while (queue.length === 0 && !ended && !state.returned) await new Promise<void>((r) => (wake = r));
        if (queue.length > 0) return { done: false, value: queue.shift()! };
        return { done: true, value: undefined };
      },
      async return() {
        state.returned = true;
        wake?.();
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    state,
    open: () => (state.opened++, iterable),
    push: (value: T) => (queue.push(value), wake?.()),
    end: () => ((ended = true), wake?.()),
  };
}

describe('Multicast', () => {
  test('identical keys share one source; each consumer gets every later value; the last to leave returns it', async () => {
    const multicast = new Multicast<number>({ limit: 10, overflow: () => -1 });
    const s = source<number>();
    const a = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const b = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    expect(s.state.opened).toBe(1);
    s.push(1);
    s.push(2);
    expect([await a.next(), await a.next()]).toEqual([{ done: false, value: 1 }, { done: false, value: 2 }]);
    expect([await b.next(), await b.next()]).toEqual([{ done: false, value: 1 }, { done: false, value: 2 }]);
    await a.return!();
    expect(s.state.returned).toBe(false);
    expect(multicast.size).toBe(1);
    await b.return!();
    expect(s.state.returned).toBe(true);
    expect(multicast.size).toBe(0);
    // A new join opens a fresh source.
    const s2 = source<number>();
    await multicast.join('k', s2.open);
    expect(s2.state.opened).toBe(1);
  });

  test('a consumer that falls behind gets the overflow value and ends; the others carry on', async () => {
    const multicast = new Multicast<number>({ limit: 3, overflow: () => -1 });
    const s = source<number>();
    const slow = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const fast = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    for (let i = 1; i <= 5; i++) {
      s.push(i);
      expect(await fast.next()).toEqual({ done: false, value: i });
    }
    expect(await slow.next()).toEqual({ done: false, value: -1 });
    expect(await slow.next()).toEqual({ done: true, value: undefined });
    expect(multicast.size).toBe(1);
  });

  test('a waiting consumer is released at once by return(); source end and errors reach everyone', async () => {
    const multicast = new Multicast<number>({ limit: 3, overflow: () => -1 });
    const s = source<number>();
    const a = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const b = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const pending = a.next();
    await a.return!();
    expect(await pending).toEqual({ done: true, value: undefined });
    s.end();
    expect(await b.next()).toEqual({ done: true, value: undefined });

    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: async () => Promise.reject(new Error('boom')) }),
    };
    const c = (await multicast.join('f', () => failing)) as AsyncIterableIterator<number>;
    await expect(c.next()).rejects.toThrow('boom');
    expect(multicast.size).toBe(0);
  });

  test('a result that is not a stream (an error result) is returned as is and not shared', async () => {
    const multicast = new Multicast<number>({ limit: 3, overflow: () => -1 });
    const error = { errors: ['nope'] };
    expect(await multicast.join('k', () => error)).toBe(error);
    expect(multicast.size).toBe(0);
    const s = source<number>();
    await multicast.join('k', s.open);
    expect(s.state.opened).toBe(1);
  });

  test('results are pushed as the source produces them, never waiting for a consumer: backlog up to the limit', async () => {
    const multicast = new Multicast<number>({ limit: 3, overflow: () => -1 });
    const s = source<number>();
    const idle = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const reader = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    for (let i = 1; i <= 3; i++) s.push(i);
    // The reader takes the third result: by then the source was read that far, into idle's backlog too.
    for (let i = 1; i <= 3; i++) expect(await reader.next()).toEqual({ done: false, value: i });
    s.push(4);
    expect(await reader.next()).toEqual({ done: false, value: 4 });
    // idle was 3 behind when 4 came: it ends with the overflow value alone.
    expect(await idle.next()).toEqual({ done: false, value: -1 });
    expect(await idle.next()).toEqual({ done: true, value: undefined });
    await reader.return!();
    expect(s.state.returned).toBe(true);
  });
});

describe('Multicast with a sink', () => {
  test('while the reader waits, results the sink takes are written and never read; the others are read, in order', async () => {
    const multicast = new Multicast<number>({ limit: 10, overflow: () => -1 });
    const s = source<number>();
    const written: number[] = [];
    let accept = true;
    const sink = { tryWrite: (n: number) => accept && n % 2 === 0 && (written.push(n), true) };
    const consumer = (await multicast.join('k', s.open, undefined, sink)) as AsyncIterableIterator<number>;
    const read: number[] = [];
    // Before the reader asks, nothing goes to the sink: what it will read first must come first.
    s.push(0);
    await new Promise((resolve) => setImmediate(resolve)); // the source's turn: 0 is queued for the reader
    const reading = (async () => {
      for (let r = await consumer.next(); !r.done; r = await consumer.next()) read.push(r.value);
    })();
    await until(() => read.length === 1);
    s.push(2);
    await until(() => written.length === 1);
    s.push(3); // refused by the sink (odd): read
    await until(() => read.length === 2);
    s.push(4);
    await until(() => written.length === 2);
    accept = false;
    s.push(6); // refused (the socket is busy): read
    await until(() => read.length === 3);
    expect(read).toEqual([0, 3, 6]);
    expect(written).toEqual([2, 4]);
    s.end();
    await reading;
  });
});
