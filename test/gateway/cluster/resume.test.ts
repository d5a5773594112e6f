import { describe, expect, it, onTestFinished } from 'vitest';
import { createKeyDeriver } from '../../../src/gateway/cluster/keys.js';
import { Lease } from '../../../src/gateway/cluster/lease.js';
import { ClusterRedis } from '../../../src/gateway/cluster/redis.js';
import { ResumeGate } from '../../../src/gateway/cluster/resume.js';
import { EventStream, type StreamEntry } from '../../../src/gateway/cluster/stream.js';
import { StreamTailer } from '../../../src/gateway/cluster/tail.js';
import { describeWithRedis, setupRedisServer, waitUntil } from '../../helpers/redis.js';

const entry = (seq: number) => ({ seq });

function gate() {
  const delivered: number[] = [];
  return { gate: new ResumeGate<{ seq: number }>((e) => delivered.push(e.seq)), delivered };
}

describe('ResumeGate', () => {
  it('holds live entries until the replay is read, then delivers each entry once, in order', () => {
    const { gate: g, delivered } = gate();
    g.live(entry(11)); // arrived live while the replay (10..12) was being read
    g.live(entry(12));
    g.live(entry(13));
    expect(delivered).toEqual([]);
    g.open([entry(10), entry(11), entry(12)], 12);
    expect(delivered).toEqual([10, 11, 12, 13]);
    g.live(entry(13)); // a repeat never passes
    g.live(entry(14));
    expect(delivered).toEqual([10, 11, 12, 13, 14]);
  });

  it('counts entries up to the end of the replay as seen even when none were replayed', () => {
    const { gate: g, delivered } = gate();
    g.live(entry(5));
    g.live(entry(6));
    g.open([], 5); // the log ended at 5 when read: 5 is before the cursor's point of view
    expect(delivered).toEqual([6]);
  });

  it('after a resync, delivers only what comes after the point the resync names', () => {
    const { gate: g, delivered } = gate();
    g.live(entry(3));
    g.live(entry(4));
    g.skip(3);
    expect(g.opened).toBe(true);
    expect(delivered).toEqual([4]);
  });
});

describeWithRedis('resuming on another instance while events keep coming', () => {
  const server = setupRedisServer();

  it('replays what the cursor missed and continues live, each event exactly once, in order', async () => {
    const connect = async () => {
      const redis = new ClusterRedis({ url: server.url });
      onTestFinished(() => redis.close());
      await redis.connect();
      return redis;
    };
    const [holderRedis, otherRedis] = [await connect(), await connect()];
    const keys = createKeyDeriver({ secret: 'r'.repeat(32) })('https://chat.example.com', { email: 'a@example.com', apiKey: 'k' });
    const token = (await new Lease(holderRedis, keys.lease, 60_000).acquire())!;
    const log = new EventStream(holderRedis, keys);
    let n = 0;
    const write = () => log.append(token, [`e${++n}`]);

    // Instance A served the client up to e3 and handed out e3's cursor.
    await write();
    await write();
    const cursor = await write();
    for (let i = 0; i < 5; i++) await write(); // missed while the client was away

    // Instance B already follows the log for other subscribers of the credential.
    const tailer = new StreamTailer(otherRedis, { blockMs: 1000 });
    onTestFinished(() => tailer.close());
    const state = (await new EventStream(otherRedis, keys).state())!;
    const delivered: string[] = [];
    const gate = new ResumeGate<StreamEntry>((e) => delivered.push(e.data));
    tailer.follow(keys, { generation: state.generation, seq: state.lastSeq }, {
      entries: (entries) => entries.forEach((e) => gate.live(e)),
      interrupted: () => undefined,
      resumed: () => undefined,
      restarted: () => undefined,
    });
    // The client resumes on B while A keeps writing.
    const writing = (async () => {
      for (let i = 0; i < 20; i++) await write();
    })();
    const replay = await new EventStream(otherRedis, keys).since({ generation: cursor.generation, seq: cursor.lastSeq });
    if (!('entries' in replay)) throw new Error(replay.resync);
    gate.open(replay.entries, replay.lastSeq);
    await writing;
    await waitUntil(() => delivered.length >= 25, 5000, 'every event after the cursor');
    expect(delivered).toEqual(Array.from({ length: 25 }, (_, i) => `e${i + 4}`));
  });
});
