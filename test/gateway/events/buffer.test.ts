/** The replay buffer and its cursors. */
import { describe, expect, test } from 'vitest';
import { ReplayBuffer, decodeCursor, encodeCursor } from '../../../src/gateway/events/buffer.js';

describe('cursors', () => {
  test('round-trip, and anything else is refused', () => {
    const cursor = { generation: 'AbC_9-x', seq: 42 };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    for (const text of ['', 'nope', 'Y2cxOmE6', encodeCursor({ generation: 'a:b', seq: 1 }), 'x'.repeat(300), Buffer.from('cg1:a:-1').toString('base64url')]) {
      expect(decodeCursor(text)).toBeUndefined();
    }
  });
});

describe('ReplayBuffer', () => {
  test('replays what follows a sequence number, in order', () => {
    const buffer = new ReplayBuffer<string>();
    for (const v of ['a', 'b', 'c']) buffer.append(v);
    expect(buffer.since(1)).toEqual({ entries: [expect.objectContaining({ seq: 2, value: 'b' }), expect.objectContaining({ seq: 3, value: 'c' })] });
    expect(buffer.since(3)).toEqual({ entries: [] });
    expect(buffer.since(0)).toMatchObject({ entries: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
  });

  test('bounded by count: a gap that reaches dropped entries is expired', () => {
    const buffer = new ReplayBuffer<number>({ maxEntries: 3 });
    for (let i = 1; i <= 5; i++) buffer.append(i);
    expect(buffer.size).toBe(3);
    expect(buffer.since(1)).toEqual({ expired: true });
    expect(buffer.since(2)).toMatchObject({ entries: [{ value: 3 }, { value: 4 }, { value: 5 }] });
    expect(buffer.since(9)).toEqual({ expired: true }); // never handed out
  });

  test('bounded by age', () => {
    let now = 0;
    const buffer = new ReplayBuffer<number>({ maxAgeMs: 1000, now: () => now });
    buffer.append(1);
    now = 600;
    buffer.append(2);
    now = 1200;
    expect(buffer.since(0)).toEqual({ expired: true });
    expect(buffer.since(1)).toMatchObject({ entries: [{ value: 2 }] });
    now = 5000;
    expect(buffer.since(2)).toEqual({ entries: [] }); // up to date, even with nothing held
    expect(buffer.size).toBe(0);
  });

  test('memory stays proportional to what is held over many appends', () => {
    const buffer = new ReplayBuffer<number>({ maxEntries: 10 });
    for (let i = 0; i < 100_000; i++) buffer.append(i);
    expect(buffer.size).toBe(10);
    expect((buffer as unknown as { items: unknown[] }).items.length).toBeLessThan(3000);
  });
});
