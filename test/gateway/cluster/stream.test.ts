import { expect, it } from 'vitest';
import { createKeyDeriver, type CredentialKeys } from '../../../src/gateway/cluster/keys.js';
import { Lease } from '../../../src/gateway/cluster/lease.js';
import { RedisUnavailableError } from '../../../src/gateway/cluster/redis.js';
import { EventStream, LeaseLostError, type EventStreamOptions } from '../../../src/gateway/cluster/stream.js';
import { describeWithRedis, waitUntil } from '../../helpers/redis.js';
import { setupClusterRedis } from './fixture.js';

const deriveKeys = createKeyDeriver({ secret: 's'.repeat(32), prefix: 'test:' });
let credentialCount = 0;

describeWithRedis('event streams', () => {
  const { server, instance } = setupClusterRedis();

  /** A fresh credential, its keys, and a holder on its own instance with the lease taken. */
  async function holder(options: EventStreamOptions = {}): Promise<{ keys: CredentialKeys; stream: EventStream; token: string; lease: Lease; credential: { email: string; apiKey: string } }> {
    const credential = { email: `user${++credentialCount}@example.com`, apiKey: `apiKey${credentialCount}-0123456789abcdef` };
    const keys = deriveKeys('https://chat.example.com', credential);
    const redis = await instance();
    const lease = new Lease(redis, keys.lease, 60_000);
    const token = (await lease.acquire())!;
    return { keys, stream: new EventStream(redis, keys, options), token, lease, credential };
  }

  const payloads = (from: number, count: number) => Array.from({ length: count }, (_, i) => `event ${from + i}`);

  it('replays exactly the entries after a cursor, in order, on another instance', async () => {
    const { keys, stream, token } = await holder();
    const first = await stream.append(token, payloads(1, 3));
    const second = await stream.append(token, payloads(4, 2));
    expect(second.firstSeq).toBe(first.lastSeq + 1);
    expect(second.generation).toBe(first.generation);

    const elsewhere = new EventStream(await instance(), keys);
    const cursor = { generation: first.generation, seq: first.firstSeq + 1 }; // after "event 2"
    const replay = await elsewhere.since(cursor);
    if (!('entries' in replay)) throw new Error(`expected entries, got ${replay.resync}`);
    expect(replay.entries.map((e) => e.data)).toEqual(['event 3', 'event 4', 'event 5']);
    expect(replay.entries.map((e) => e.seq)).toEqual([cursor.seq + 1, cursor.seq + 2, cursor.seq + 3]);
    expect(replay.entries.map((e) => e.batch)).toEqual([first.firstSeq, second.firstSeq, second.firstSeq]);
    expect(replay.lastSeq).toBe(second.lastSeq);
    expect(await elsewhere.since({ generation: first.generation, seq: second.lastSeq })).toEqual({
      entries: [],
      generation: first.generation,
      lastSeq: second.lastSeq,
    });
  });

  it('asks for a resync for an unknown generation, a cursor never handed out, and a missing log', async () => {
    const { stream, token } = await holder();
    expect(await stream.since({ generation: 'whatever', seq: 0 })).toEqual({ resync: 'CURSOR_UNKNOWN' });
    const { generation, lastSeq } = await stream.append(token, payloads(1, 2));
    expect(await stream.since({ generation: 'other', seq: lastSeq })).toEqual({ resync: 'CURSOR_UNKNOWN' });
    expect(await stream.since({ generation, seq: lastSeq + 1 })).toEqual({ resync: 'CURSOR_EXPIRED' });
  });

  it('keeps the last maxEntries entries: older cursors expire, and the log is trimmed', async () => {
    const { keys, stream, token } = await holder({ maxEntries: 50 });
    let last = { generation: '', firstSeq: 0, lastSeq: 0 };
    for (let i = 0; i < 10; i++) last = await stream.append(token, payloads(i * 60, 60));
    const { generation, lastSeq } = last;
    const oldest = await stream.since({ generation, seq: lastSeq - 50 });
    expect('entries' in oldest && oldest.entries.length).toBe(50);
    expect(await stream.since({ generation, seq: lastSeq - 51 })).toEqual({ resync: 'CURSOR_EXPIRED' });
    // Events left in the log (an entry holds one appended batch; whole batches are trimmed).
    const left = await (await instance()).run((c) => c.xrange(keys.stream, '-', '+'));
    const length = left.reduce((sum, [, fields]) => sum + fields.filter((f, i) => i % 2 === 0 && f === 'd').length, 0);
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThan(600 / 2);
  });

  it('keeps entries younger than maxAgeMs: older cursors expire, and old entries are deleted', async () => {
    let now = 1_700_000_000_000;
    const { keys, stream, token } = await holder({ maxAgeMs: 60_000, now: () => now });
    const old = await stream.append(token, payloads(1, 3));
    now += 30_000;
    const recent = await stream.append(token, payloads(4, 1));
    now += 40_000; // the first batch is 70 s old, the second 40 s
    expect(await stream.since({ generation: old.generation, seq: old.firstSeq })).toEqual({ resync: 'CURSOR_EXPIRED' });
    const replay = await stream.since({ generation: old.generation, seq: old.lastSeq });
    expect('entries' in replay && replay.entries.map((e) => e.data)).toEqual(['event 4']);
    await stream.append(token, payloads(5, 1)); // appending trims by age
    const left = await (await instance()).run((c) => c.xrange(keys.stream, '-', '+'));
    expect(left.map(([id]) => Number(id.split('-')[0]))).toEqual([recent.firstSeq, recent.lastSeq + 1]);
  });

  it('stores the upstream queue position with the events, and only for the lease holder', async () => {
    const { keys, stream, token, lease } = await holder();
    await stream.append(token, payloads(1, 2), { queueId: 'q-1', lastEventId: 7 });
    expect(await stream.state()).toMatchObject({ lastSeq: expect.any(Number), queueId: 'q-1', lastEventId: 7, fence: token });
    await stream.saveQueue(token, { queueId: 'q-1', lastEventId: 8 }); // a heartbeat: no entry
    const state = (await stream.state())!;
    expect(state.lastEventId).toBe(8);

    // The lease moves to another instance: the old holder can write nothing any more.
    await lease.release(token);
    const next = (await new Lease(await instance(), keys.lease, 60_000).acquire())!;
    const error = await stream.append(token, ['late event'], { queueId: 'q-1', lastEventId: 9 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(await stream.state()).toEqual(state);

    // The new holder continues from the stored position, then learns the queue is gone.
    const successor = new EventStream(await instance(), keys);
    expect(await successor.state()).toMatchObject({ queueId: 'q-1', lastEventId: 8 });
    await successor.saveQueue(next, null);
    const cleared = (await successor.state())!;
    expect(cleared.queueId).toBeUndefined();
    expect(cleared.lastEventId).toBeUndefined();
    expect(cleared.lastSeq).toBe(state.lastSeq);
  });

  /** Commands Redis ran (script-inner ones included) while `body` ran, less the two INFO calls. */
  async function commandsDuring(body: () => Promise<unknown>): Promise<number> {
    const observer = await instance();
    const total = async () => Number(/total_commands_processed:(\d+)/.exec(await observer.run((c) => c.info('stats')))![1]);
    const before = await total();
    await body();
    return (await total()) - before - 1;
  }

  it('appends a batch of events with its queue position in one command once the holder knows the log\u2019s end', async () => {
    const { stream, token } = await holder();
    await stream.saveQueue(token, { queueId: 'q', lastEventId: 0 }); // the script: a registration starts the log
    let first = { generation: '', firstSeq: 0, lastSeq: 0 };
    expect(await commandsDuring(async () => (first = await stream.append(token, payloads(1, 2), { queueId: 'q', lastEventId: 2 })))).toBe(1);
    let last = first;
    for (let i = 0; i < 5; i++) {
      const commands = await commandsDuring(async () => (last = await stream.append(token, payloads(3 + i * 3, 3), { queueId: 'q', lastEventId: 5 + i * 3 })));
      expect(commands).toBe(1);
    }
    expect(last.lastSeq).toBe(first.lastSeq + 15);
    expect(await stream.state()).toMatchObject({ lastSeq: last.lastSeq, queueId: 'q', lastEventId: 17 });
    const replay = await stream.since({ generation: first.generation, seq: first.lastSeq });
    expect('entries' in replay && replay.entries.map((e) => e.data)).toEqual(payloads(3, 15));
  });

  it('refuses the plain append of an ex-holder whose lease expired and was taken over, and writes nothing', async () => {
    const credential = { email: `user${++credentialCount}@example.com`, apiKey: `apiKey${credentialCount}-0123456789abcdef` };
    const keys = deriveKeys('https://chat.example.com', credential);
    const [mine, theirs] = [await instance(), await instance()];
    const lease = new Lease(mine, keys.lease, 200);
    const token = (await lease.acquire())!;
    const stream = new EventStream(mine, keys);
    await stream.append(token, payloads(1, 1), { queueId: 'q', lastEventId: 1 });
    await stream.append(token, payloads(2, 1), { queueId: 'q', lastEventId: 2 }); // a plain XADD: the end is known
    // Paused past its lease: another instance takes it, and continues from what the log says.
    await waitUntil(async () => (await lease.holder()) === undefined, 2000, 'the lease to expire');
    const next = (await new Lease(theirs, keys.lease, 60_000).acquire())!;
    const before = (await new EventStream(theirs, keys).state())!;
    expect(before).toMatchObject({ queueId: 'q', lastEventId: 2 });
    const late = await stream.append(token, ['late'], { queueId: 'q', lastEventId: 3 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(LeaseLostError);
    expect(await new EventStream(theirs, keys).state()).toEqual(before);
    // The new holder's own writes go on after the log's end, and a cursor from before resumes across the handover.
    const successor = new EventStream(theirs, keys);
    const written = await successor.append(next, ['continued'], { queueId: 'q', lastEventId: 3 });
    expect(written.firstSeq).toBeGreaterThan(before.lastSeq);
    const replay = await successor.since({ generation: before.generation, seq: before.lastSeq - 1 });
    expect(replay).toMatchObject({ entries: [{ data: 'event 2' }, { data: 'continued' }] });
  });

  it('refuses writes without the lease and writes nothing', async () => {
    const { stream, token, lease } = await holder();
    await lease.release(token);
    await expect(stream.append(token, ['x'])).rejects.toBeInstanceOf(LeaseLostError);
    expect(await stream.state()).toBeUndefined();
  });

  it('puts neither the credential nor its plain hash in any key or value', async () => {
    const { stream, token, credential } = await holder();
    await stream.append(token, payloads(1, 2), { queueId: 'q', lastEventId: 1 });
    const redis = await instance();
    const keys = await redis.run((c) => c.keys('*'));
    const dump: string[] = [...keys];
    for (const key of keys) {
      const type = await redis.run((c) => c.type(key));
      if (type === 'string') dump.push((await redis.run((c) => c.get(key)))!);
      if (type === 'hash') dump.push(...Object.values(await redis.run((c) => c.hgetall(key))));
      if (type === 'stream') dump.push(JSON.stringify(await redis.run((c) => c.xrange(key, '-', '+'))));
    }
    const text = dump.join('\n');
    expect(text).toContain('event 1'); // the dump is real
    for (const secret of [credential.apiKey, credential.email, Buffer.from(`${credential.email}:${credential.apiKey}`).toString('base64')]) {
      expect(text).not.toContain(secret);
    }
  });

  it('fails with RedisUnavailableError while Redis is down, and starts a new generation after a restart', async () => {
    const { keys, stream, token } = await holder();
    const before = await stream.append(token, payloads(1, 2));
    await server.stop();
    await expect(stream.append(token, ['x'])).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(stream.since({ generation: before.generation, seq: 0 })).rejects.toBeInstanceOf(RedisUnavailableError);
    await server.start();
    const redis = await instance();
    await waitUntil(async () => (await new EventStream(redis, keys).state().catch(() => 'down')) === undefined, 5000, 'Redis back');
    // Everything was lost with the restart: old cursors are unknown, and the new log's numbers
    // start above the old ones, so a reader left at the old position still sees the new entries.
    expect(await new EventStream(redis, keys).since({ generation: before.generation, seq: before.lastSeq })).toEqual({ resync: 'CURSOR_UNKNOWN' });
    const token2 = (await new Lease(redis, keys.lease, 60_000).acquire())!;
    const after = await new EventStream(redis, keys).append(token2, ['y']);
    expect(after.generation).not.toBe(before.generation);
    expect(after.firstSeq).toBeGreaterThan(before.lastSeq);
    expect(token2).not.toBe(token);
  });
});
