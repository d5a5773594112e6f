/** Sharing one source among identical consumers. */
import { describe, expect, test } from 'vitest';
import { Multicast } from '../../../src/gateway/events/multicast.js';

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

const tick = () => new Promise((r) => setTimeout(r, 5));

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
    await tick();
    await expect(c.next()).rejects.toThrow('boom');
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
});

const DONE = { done: true, value: undefined };

/** A sink that records what it was given; `flushed` says what its writes report. */
function sink() {
  const written: string[] = [];
  const state = { flushed: true };
  return { written, state, write: (encoded: string) => (written.push(encoded), state.flushed) };
}

describe('Multicast with sinks (consumers written to, not read)', () => {
  const encoding = () => {
    const encoded: number[] = [];
    return { encoded, encode: (value: number) => (encoded.push(value), `#${value}`) };
  };

  test('from the first next(), results go to the sink in order, encoded once for all; the iterator only sees the end', async () => {
    const { encoded, encode } = encoding();
    const multicast = new Multicast<number, string>({ limit: 10, overflow: () => -1, encode });
    const s = source<number>();
    const sinks = [sink(), sink(), sink()];
    const consumers = [];
    for (const k of sinks) consumers.push((await multicast.join('k', s.open, k)) as AsyncIterableIterator<number>);
    s.push(1); // before anyone reads: queued
    await tick();
    expect(sinks[0]!.written).toEqual([]);
    const ends = consumers.map((c) => c.next());
    expect(sinks.map((k) => k.written)).toEqual([['#1'], ['#1'], ['#1']]);
    s.push(2);
    s.push(3);
    await tick();
    expect(sinks.map((k) => k.written)).toEqual([['#1', '#2', '#3'], ['#1', '#2', '#3'], ['#1', '#2', '#3']]);
    // One encoding per result for all direct consumers; the one queued before was encoded as each went direct.
    expect(encoded).toEqual([1, 1, 1, 2, 3]);
    s.end();
    expect(await Promise.all(ends)).toEqual([DONE, DONE, DONE]);
    expect(multicast.size).toBe(0);
  });

  test('a sink that stays unflushed for `limit` writes gets the overflow result through the iterator, then ends; a flush resets the count', async () => {
    const { encode } = encoding();
    const multicast = new Multicast<number, string>({ limit: 3, overflow: () => -1, encode });
    const s = source<number>();
    const slow = sink();
    const fast = sink();
    const slowConsumer = (await multicast.join('k', s.open, slow)) as AsyncIterableIterator<number>;
    const fastConsumer = (await multicast.join('k', s.open, fast)) as AsyncIterableIterator<number>;
    const slowEnd = slowConsumer.next();
    const fastEnd = fastConsumer.next();
    slow.state.flushed = false;
    s.push(1);
    s.push(2);
    await tick();
    slow.state.flushed = true; // the peer caught up
    s.push(3);
    await tick();
    slow.state.flushed = false;
    for (const v of [4, 5, 6, 7]) s.push(v);
    await tick();
    expect(slow.written).toEqual(['#1', '#2', '#3', '#4', '#5', '#6']); // 4, 5, 6 unflushed: the third ends it
    expect(await slowEnd).toEqual({ done: false, value: -1 });
    expect(await slowConsumer.next()).toEqual(DONE);
    expect(fast.written).toEqual(['#1', '#2', '#3', '#4', '#5', '#6', '#7']);
    expect(multicast.size).toBe(1);
    await fastConsumer.return!();
    expect(await fastEnd).toEqual(DONE);
    expect(s.state.returned).toBe(true);
  });

  test('return() stops the writes at once; a source error reaches the waiting iterator', async () => {
    const { encode } = encoding();
    const multicast = new Multicast<number, string>({ limit: 3, overflow: () => -1, encode });
    const s = source<number>();
    const a = sink();
    const b = sink();
    const ca = (await multicast.join('k', s.open, a)) as AsyncIterableIterator<number>;
    const cb = (await multicast.join('k', s.open, b)) as AsyncIterableIterator<number>;
    const aEnd = ca.next();
    void cb.next();
    await ca.return!();
    expect(await aEnd).toEqual(DONE);
    s.push(1);
    await tick();
    expect(a.written).toEqual([]);
    expect(b.written).toEqual(['#1']);

    let fail!: (error: Error) => void;
    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>((_, reject) => (fail = reject)) }),
    };
    const c = (await multicast.join('f', () => failing, sink())) as AsyncIterableIterator<number>;
    const cEnd = c.next();
    await tick();
    fail(new Error('boom'));
    await expect(cEnd).rejects.toThrow('boom');
  });

  test('a result that cannot be encoded fails the sink consumers with the error; readers still get it', async () => {
    const multicast = new Multicast<number, string>({
      limit: 3,
      overflow: () => -1,
      encode: (value) => {
        if (value === 2) throw new Error('not serializable');
        return `#${value}`;
      },
    });
    const s = source<number>();
    const written = sink();
    const direct = (await multicast.join('k', s.open, written)) as AsyncIterableIterator<number>;
    const reader = (await multicast.join('k', s.open)) as AsyncIterableIterator<number>;
    const directEnd = direct.next();
    s.push(1);
    s.push(2);
    await expect(directEnd).rejects.toThrow('not serializable');
    expect(written.written).toEqual(['#1']);
    expect([await reader.next(), await reader.next()]).toEqual([{ done: false, value: 1 }, { done: false, value: 2 }]);
  });

  test('a sink that throws fails its own consumer only', async () => {
    const multicast = new Multicast<number, string>({ limit: 3, overflow: () => -1, encode: (value) => `#${value}` });
    const s = source<number>();
    const healthy = sink();
    const broken = {
      write: (): boolean => {
        throw new Error('socket gone');
      },
    };
    const bad = (await multicast.join('k', s.open, broken)) as AsyncIterableIterator<number>;
    const good = (await multicast.join('k', s.open, healthy)) as AsyncIterableIterator<number>;
    const badEnd = bad.next();
    void good.next();
    s.push(1);
    s.push(2);
    await expect(badEnd).rejects.toThrow('socket gone');
    await tick();
    expect(healthy.written).toEqual(['#1', '#2']);
    expect(multicast.size).toBe(1);
  });

  test('joining with a sink needs an encoder', async () => {
    const multicast = new Multicast<number, string>({ limit: 3, overflow: () => -1 });
    await expect(multicast.join('k', source<number>().open, sink())).rejects.toThrow(/encode/);
  });
});
