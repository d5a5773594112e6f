/**
 * Read-your-writes across instances, in cluster mode over a real Redis: each case of
 * test/helpers/read-your-writes.ts writes through instance A, and the next read of the same
 * credential on instance B must show it. Each instance has its own live directory and message
 * cache, kept current by the credential's one Redis log; the credential's event queue is held while
 * this happens (the long polls' answers wait), so B's directory cannot have the write's event:
 * only the fence A puts in Redis before the write (plugins/directory-writes.ts) makes B's read go
 * past its directory and cache. B's directory is warm for every case, and each read is one it
 * answers when nothing fences it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway, type Gateway } from '../../../src/gateway/yoga.js';
import { basicAuth } from '../../helpers/harness.js';
import { heldEventPolls, readYourWritesCases } from '../../helpers/read-your-writes.js';
import { describeWithRedis, setupRedisServer } from '../../helpers/redis.js';
import { until } from '../../helpers/wait.js';

describeWithRedis('read-your-writes across two instances in cluster mode', () => {
  const redis = setupRedisServer();
  const emulator = createEmulator({ seed: 'demo', settings: { featureLevel: 440 } });
  const polls = heldEventPolls(emulator);
  let a: Gateway;
  let b: Gateway;
  const instance = () =>
    createGateway({
      logging: false,
      liveDirectory: { writeFenceMs: 1500 },
      messageCache: true,
      zulipUrl: 'http://zulip.localhost',
      fetch: polls.fetch,
      cluster: { url: redis.url, secret: 's'.repeat(40), keyPrefix: 'ryw:', failoverMs: 1000, retryMs: 20, maxReconnectDelayMs: 50, tail: { blockMs: 1000, retryMs: 20 } },
    });

  const iago = demoUser('iago');
  const request = async (gateway: Gateway, query: string) => {
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(iago) },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: Record<string, any>; errors?: { extensions?: Record<string, unknown> }[] };
  };
  const gql = async (gateway: Gateway, query: string) => {
    const body = await request(gateway, query);
    expect(body.errors, query).toBeUndefined();
    return body.data!;
  };
  const CASES = readYourWritesCases(emulator);

  beforeAll(async () => {
    a = instance();
    b = instance();
    const hamlet = emulator.store.userByEmail(demoUser('hamlet').email)!.user_id;
    await gql(a, `{ user(id: ${hamlet}) { fullName } }`);
    await gql(b, `{ user(id: ${hamlet}) { fullName } }`);
    await until(() => a.directories!.stats().readyDirectories === 1 && b.directories!.stats().readyDirectories === 1, 10_000, 'both directories to load');
  });
  afterAll(async () => {
    polls.release();
    await a?.dispose();
    await b?.dispose();
    await emulator.close();
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: written through one instance, the next read on the other shows it, with the write's event held`, async () => {
      if (typeof c.warm === 'string') await gql(b, c.warm);
      else await c.warm?.();
      const read = typeof c.read === 'string' ? c.read : c.read();
      if (c.before) c.before(await request(b, read));
      else await gql(b, read);
      polls.hold();
      try {
        await gql(a, c.mutation());
        if (!c.waits) c.shows(await gql(b, read));
        else {
          let done = false;
          const reading = gql(b, read).finally(() => (done = true));
          // Unfenced, B answers from its directory at once (the old counts); fenced, it waits.
          await until(() => done || b.directories!.stats().waitingReads > 0, 5000, 'the read to answer or wait');
          polls.release();
          c.shows(await reading);
        }
      } finally {
        polls.release();
      }
      await until(() => a.directories!.stats().fences === 0 && b.directories!.stats().fences === 0, 10_000, 'the fences to lift');
    });
  }
});
