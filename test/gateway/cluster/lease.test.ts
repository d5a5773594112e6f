import { expect, it, onTestFinished } from 'vitest';
import { Lease, LeaseKeeper, leaseTimes } from '../../../src/gateway/cluster/lease.js';
import { type ClusterRedis, RedisUnavailableError } from '../../../src/gateway/cluster/redis.js';
import { describeWithRedis, waitUntil } from '../../helpers/redis.js';
import { setupClusterRedis } from './fixture.js';

let keyCount = 0;

describeWithRedis('leases', () => {
  const { server, instance } = setupClusterRedis();

  const freshKey = () => `test:lease:{${++keyCount}}`;

  it('derives TTL and retry interval from the failover time', () => {
    expect(leaseTimes(10_000)).toEqual({ ttlMs: 8_000, retryMs: 2_000 });
  });

  it('goes to one instance at a time, with increasing fencing tokens', async () => {
    const key = freshKey();
    const [a, b] = [new Lease(await instance(), key, 5_000), new Lease(await instance(), key, 5_000)];
    const results = await Promise.all([a.acquire(), b.acquire(), a.acquire(), b.acquire()]);
    const tokens = results.filter((t) => t !== undefined);
    expect(tokens).toHaveLength(1);
    expect(await a.holder()).toBe(tokens[0]);
    expect(await b.release(tokens[0]!)).toBe(true); // whoever has the token; tokens are not instance-bound
    const next = await b.acquire();
    expect(Number(next!.split('.')[0])).toBeGreaterThan(Number(tokens[0]!.split('.')[0]));
  });

  it('renews and releases only for the holder: a stale token changes nothing', async () => {
    const key = freshKey();
    const lease = new Lease(await instance(), key, 200);
    const old = (await lease.acquire())!;
    await waitUntil(async () => (await lease.holder()) === undefined, 2000, 'the lease to expire');
    expect(await lease.renew(old)).toBe(false);
    const current = (await lease.acquire())!;
    expect(await lease.renew(old)).toBe(false);
    expect(await lease.release(old)).toBe(false);
    expect(await lease.holder()).toBe(current);
    expect(await lease.renew(current)).toBe(true);
    expect(await lease.release(current)).toBe(true);
    expect(await lease.holder()).toBeUndefined();
  });

  it('fails over to a waiting instance within the failover time when the holder dies', async () => {
    const key = freshKey();
    const failoverMs = 600;
    const times = leaseTimes(failoverMs);
    const events: string[] = [];
    const keeper = (name: string, redis: ClusterRedis) => {
      const k = new LeaseKeeper(new Lease(redis, key, times.ttlMs), {
        acquired: () => events.push(`${name} acquired`),
        lost: () => events.push(`${name} lost`),
      }, times);
      onTestFinished(() => k.stop());
      return k;
    };
    const redisA = await instance();
    const a = keeper('a', redisA);
    a.start();
    await waitUntil(() => a.token !== undefined, 2000, 'a to hold the lease');
    const b = keeper('b', await instance());
    b.start();
    await b.tick();
    expect(b.token).toBeUndefined();
    // a dies without releasing: its connection is cut and its timers stop.
    const died = Date.now();
    redisA.client.disconnect();
    await a.tick(); // observes the outage; it may keep the lease only while surely valid
    await waitUntil(() => b.token !== undefined, 3 * failoverMs, 'b to take over');
    const tookOver = Date.now() - died;
    expect(tookOver).toBeLessThanOrEqual(failoverMs + 100); // 100 ms of slack for timers on a busy machine
    await waitUntil(() => events.includes('a lost'), 2 * failoverMs, 'a to give up');
    // a stopped polling before its lease could lapse, so the two never polled at the same time.
    expect(events).toEqual(['a acquired', 'a lost', 'b acquired']);
  });

  it('hands over at once when the holder stops cleanly', async () => {
    const key = freshKey();
    const times = { ttlMs: 60_000, retryMs: 50 };
    const handler = { acquired: () => undefined, lost: () => undefined };
    const a = new LeaseKeeper(new Lease(await instance(), key, times.ttlMs), handler, times);
    const b = new LeaseKeeper(new Lease(await instance(), key, times.ttlMs), handler, times);
    onTestFinished(() => b.stop());
    a.start();
    await waitUntil(() => a.token !== undefined, 2000, 'a to hold the lease');
    b.start();
    await b.tick();
    expect(b.token).toBeUndefined();
    await a.stop();
    await waitUntil(() => b.token !== undefined, 1000, 'b to take over long before the TTL');
  });

  it('reports the loss when another instance took the lease', async () => {
    const key = freshKey();
    const lost: string[] = [];
    const redis = await instance();
    const keeper = new LeaseKeeper(new Lease(redis, key, 60_000), { acquired: () => undefined, lost: (t) => lost.push(t) }, { ttlMs: 60_000, retryMs: 60_000 });
    onTestFinished(() => keeper.stop());
    keeper.start();
    await waitUntil(() => keeper.token !== undefined, 2000, 'the lease');
    const token = keeper.token!;
    await redis.run((c) => c.set(key, 'someone-else'));
    await keeper.tick();
    expect(lost).toEqual([token]);
    expect(keeper.token).toBeUndefined();
  });

  it('keeps the lease through a short outage and gives it up before it may lapse', async () => {
    const key = freshKey();
    let now = 1_000_000;
    const lost: string[] = [];
    const redis = await instance();
    const keeper = new LeaseKeeper(new Lease(redis, key, 1_000), { acquired: () => undefined, lost: (t) => lost.push(t) }, {
      ttlMs: 1_000,
      retryMs: 250,
      now: () => now,
    });
    onTestFinished(() => keeper.stop());
    keeper.start();
    await waitUntil(() => keeper.token !== undefined, 2000, 'the lease');
    await server.stop();
    await waitUntil(() => redis.state === 'down', 5000, 'Redis down');
    expect(await new Lease(redis, key, 1).acquire().catch((e: unknown) => e)).toBeInstanceOf(RedisUnavailableError);
    now += 500;
    await keeper.tick();
    expect(lost).toEqual([]); // renewal failed, but the lease is valid for 500 ms more
    now += 300;
    await keeper.tick();
    expect(lost).toHaveLength(1); // the next renewal would come after the lease may have expired
    await server.start();
  });
});
