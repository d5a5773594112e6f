/**
 * Sessions in cluster mode (sessions/redis-store.ts): a session signed in on instance A serves on
 * instance B, signOut on B ends it on A, and a dump of every Redis key and value holds no API key,
 * session token or password, and no email in the session keys. A real redis-server, two gateways.
 */
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createEmulator } from '../../../src/emulator/app.js';
import { initialPassword } from '../../../src/emulator/routes/settings.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway, type Gateway } from '../../../src/gateway/yoga.js';
import { describeWithRedis, setupRedisServer } from '../../helpers/redis.js';

const HAMLET = demoUser('hamlet');
const PASSWORD = initialPassword(HAMLET.email);
const SECRET = 'sessions-cluster-test-secret-0123456789abcdef';

describeWithRedis('sessions in Redis', () => {
  const redis = setupRedisServer();
  const emulator = createEmulator({ seed: 'demo' });
  const gateways: Gateway[] = [];
  afterAll(async () => {
    for (const gateway of gateways) await gateway.dispose();
    await emulator.close();
  });

  const instance = () => {
    const gateway = createGateway({
      zulipUrl: 'http://zulip-sessions.localhost',
      fetch: (input, init) => emulator.fetch(new Request(input, init)),
      logging: false,
      liveDirectory: false,
      cluster: { url: redis.url, secret: SECRET, keyPrefix: 'sessions-test:' },
    });
    gateways.push(gateway);
    return gateway;
  };

  async function post(gateway: Gateway, query: string, headers: Record<string, string> = {}) {
    const response = await gateway.fetch('http://gateway.example/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] };
    return { ...body, setCookie: response.headers.getSetCookie() };
  }

  it('serves a session created on instance A on instance B, ends it everywhere, and keeps nothing in the clear', async () => {
    const a = instance();
    const b = instance();
    // Until connected, a session read or write is REDIS_UNAVAILABLE (no offline queue: cluster/redis.ts).
    await Promise.all([a, b].map((g) => g.hub.cluster!.redis.whenConnected(5_000)));
    const signIn = await post(a, `mutation { signIn(email: "${HAMLET.email}", password: "${PASSWORD}") { session { accounts { email } } } }`);
    expect(signIn.errors).toBeUndefined();
    const cookie = signIn.setCookie[0]!.split(';')[0]!;
    expect(cookie).toMatch(/^__Host-chatgraph-session=/);
    expect(signIn.setCookie[0]).toMatch(/; Secure$/);
    const token = cookie.split('=')[1]!;

    const onB = await post(b, '{ me { user { fullName } } }', { cookie });
    expect(onB.errors).toBeUndefined();
    expect(onB.data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });

    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      expect(keys.some((key) => key.startsWith('sessions-test:session:'))).toBe(true);
      let dump = keys.join('\n');
      for (const key of keys) {
        const type = await client.type(key);
        if (type === 'hash') dump += JSON.stringify(await client.hgetall(key));
        else if (type === 'set') dump += JSON.stringify(await client.smembers(key));
        else if (type === 'string') dump += (await client.get(key)) ?? '';
        else if (type === 'stream') dump += JSON.stringify(await client.xrange(key, '-', '+'));
        else if (type === 'list') dump += JSON.stringify(await client.lrange(key, 0, -1));
      }
      for (const secret of [HAMLET.apiKey, token, PASSWORD, HAMLET.email]) expect(dump).not.toContain(secret);
    } finally {
      client.disconnect();
    }

    const out = await post(b, 'mutation { signOut { signedOut } }', { cookie });
    expect(out.errors).toBeUndefined();
    const onA = await post(a, '{ me { user { fullName } } }', { cookie });
    expect(onA.errors?.[0]?.extensions?.code).toBe('SESSION_INVALID');
  });
});
