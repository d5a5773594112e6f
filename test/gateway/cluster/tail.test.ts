import { expect, it, onTestFinished } from 'vitest';
import { createKeyDeriver } from '../../../src/gateway/cluster/keys.js';
import { Lease } from '../../../src/gateway/cluster/lease.js';
import { EventStream, type StreamEntry } from '../../../src/gateway/cluster/stream.js';
import { StreamTailer, type TailListener } from '../../../src/gateway/cluster/tail.js';
import { describeWithRedis, waitUntil } from '../../helpers/redis.js';
import { setupClusterRedis } from './fixture.js';

const deriveKeys = createKeyDeriver({ secret: 't'.repeat(32), prefix: 'test:' });
let credentialCount = 0;

/** A listener that records what it is told. */
function recorder(): TailListener & { log: string[]; data: string[]; seqs: number[] } {
  const log: string[] = [];
  const data: string[] = [];
  const seqs: number[] = [];
  return {
    log,
    data,
    seqs,
    entries: (entries: StreamEntry[]) => {
      for (const e of entries) (data.push(e.data), seqs.push(e.seq));
      log.push(`entries ${entries.length}`);
    },
    interrupted: (error) => log.push(`interrupted ${error.name}`),
    resumed: () => log.push('resumed'),
    restarted: (generation) => log.push(`restarted ${generation === undefined ? 'gone' : 'new'}`),
  };
}

describeWithRedis('tailing event streams', () => {
  const { server, instance } = setupClusterRedis();

  async function tailer(blockMs = 10_000): Promise<StreamTailer> {
    const t = new StreamTailer(await instance(), { blockMs, retryMs: 20 });
    onTestFinished(() => t.close());
    return t;
  }

  /** A credential with a holder (lease taken) appending on its own instance. */
  async function writer() {
    const keys = deriveKeys('https://chat.example.com', { email: `tail${++credentialCount}@example.com`, apiKey: `key-${credentialCount}` });
    const redis = await instance();
    const token = (await new Lease(redis, keys.lease, 60_000).acquire())!;
    const stream = new EventStream(redis, keys);
    return { keys, stream, append: (...data: string[]) => stream.append(token, data), redis };
  }

  it('delivers every entry after the position once, in order, to another instance', async () => {
    const w = await writer();
    const start = await w.append('a', 'b');
    const listener = recorder();
    (await tailer()).follow(w.keys, { generation: start.generation, seq: start.firstSeq }, listener);
    await w.append('c');
    await w.append('d', 'e');
    await waitUntil(() => listener.data.length >= 4, 5000, 'four entries');
    await w.append('f'); // a sentinel: nothing else arrives before it
    await waitUntil(() => listener.data.length >= 5, 5000, 'the sentinel');
    expect(listener.data).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(listener.seqs).toEqual([0, 1, 2, 3, 4].map((i) => start.firstSeq + 1 + i));
  });

  it('follows a log from before it exists, and wakes its blocked read for a newly followed log', async () => {
    const t = await tailer(60_000); // a read blocked this long must be woken to see the second log
    const [first, second] = [await writer(), await writer()];
    const one = recorder();
    t.follow(first.keys, { generation: undefined, seq: 0 }, one);
    await first.append('1');
    await waitUntil(() => one.data.length === 1, 5000, 'the first log');
    const two = recorder();
    t.follow(second.keys, { generation: undefined, seq: 0 }, two);
    await second.append('2a', '2b');
    await waitUntil(() => two.data.length === 2, 2000, 'the second log, long before the read would time out');
    expect(two.data).toEqual(['2a', '2b']);
    expect(t.size).toBe(2);
  });

  it('stops delivering to a log that is no longer followed', async () => {
    const t = await tailer(200);
    const [gone, kept] = [await writer(), await writer()];
    const goneListener = recorder();
    const keptListener = recorder();
    const stop = t.follow(gone.keys, { generation: undefined, seq: 0 }, goneListener);
    t.follow(kept.keys, { generation: undefined, seq: 0 }, keptListener);
    stop();
    await gone.append('not for us');
    await kept.append('sentinel');
    await waitUntil(() => keptListener.data.length === 1, 5000, 'the sentinel');
    expect(goneListener.data).toEqual([]);
    expect(t.size).toBe(1);
  });

  it('resumes where it stopped after losing its connection, without loss or repeats', async () => {
    const w = await writer();
    const start = await w.append('a');
    const listener = recorder();
    (await tailer()).follow(w.keys, { generation: start.generation, seq: start.lastSeq }, listener);
    await waitUntil(async () => (await w.redis.run((c) => c.client('LIST')) as string).includes('cmd=xread'), 5000, 'a blocked read');
    await w.redis.run((c) => c.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    await w.append('b', 'c'); // while the reader reconnects (the writer's connection was spared)
    await waitUntil(() => listener.data.length >= 2, 5000, 'the entries written meanwhile');
    await w.append('d');
    await waitUntil(() => listener.data.length >= 3, 5000, 'the sentinel');
    expect(listener.data).toEqual(['b', 'c', 'd']);
    expect(listener.log.filter((l) => !l.startsWith('entries'))).toEqual(['interrupted RedisUnavailableError', 'resumed']);
  });

  it('reports a Redis outage once and a lost log after the restart, then reads the new log from its start', async () => {
    const w = await writer();
    const start = await w.append('old');
    const listener = recorder();
    (await tailer()).follow(w.keys, { generation: start.generation, seq: start.lastSeq }, listener);
    await waitUntil(async () => (await w.redis.run((c) => c.client('LIST')) as string).includes('cmd=xread'), 5000, 'a blocked read');
    await server.stop();
    await waitUntil(() => listener.log.length > 0, 5000, 'the interruption');
    await server.start();
    await waitUntil(() => listener.log.includes('resumed'), 5000, 'the reader to resume');
    expect(listener.log).toEqual(['interrupted RedisUnavailableError', 'resumed', 'restarted gone']);
    // A new holder starts a new log (a new generation) after the restart.
    await waitUntil(() => w.redis.state === 'connected', 5000, 'the writer to reconnect');
    const token = (await new Lease(w.redis, w.keys.lease, 60_000).acquire())!;
    const fresh = await w.stream.append(token, ['new 1', 'new 2']);
    await waitUntil(() => listener.data.length >= 2, 5000, 'the new log');
    expect(listener.data).toEqual(['new 1', 'new 2']);
    expect(listener.seqs).toEqual([fresh.firstSeq, fresh.lastSeq]);
  });
});
