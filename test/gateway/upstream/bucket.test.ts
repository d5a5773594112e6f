/**
 * The budget is a real limit (issue 26): the load shapes that made the chat server answer 429,
 * against the emulator limiting each user like Zulip (200 calls in any 60 s) on a manual clock the
 * gateway's buckets share. The gateway's share of a user's rate is the limit less the headroom
 * (10%: 180 calls a minute); every upstream answer is recorded, so each test proves that the user
 * never made more than that in any window and that no call was answered 429.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { OWNER, setupBudget } from '../../helpers/budget.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { until } from '../../helpers/wait.js';

const SHARE = 180;

/** `n` aliases of `attachments`: n calls of `GET /attachments`, estimated n. */
const calls = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: attachments { uploadSpaceUsed }`).join(' ')} }`;

describe('12 operations of 20 calls each, sent at once by one user', () => {
  it('runs what the share holds, refuses the rest before any call with retryAfter, and never gets a 429', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const results = await Promise.all(Array.from({ length: 12 }, () => b.gql(calls(20))));
    const served = results.filter((r) => !r.errors);
    const refused = results.filter((r) => r.errors);
    expect(served).toHaveLength(9); // 9 × 20 = 180, the share
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r.errors![0]!.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 20, share: SHARE });
      expect(r.errors![0]!.extensions!.retryAfter).toBeGreaterThan(0);
      expect(r.errors![0]!.extensions!.retryAfter).toBeLessThanOrEqual(60);
    }
    expect(b.rateLimited()).toEqual([]);
    expect(b.callsOf(OWNER)).toHaveLength(180);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
    // `{ __typename }` costs nothing: served while the bucket is empty.
    const typename = await b.gql('{ __typename }');
    expect(typename).toMatchObject({ data: { __typename: 'Query' } });
    expect(typename.errors).toBeUndefined();
    // After retryAfter the refused operations fit again.
    b.clock.advance(refused[0]!.errors![0]!.extensions!.retryAfter as number * 1000);
    const again = await b.gql(calls(20));
    expect(again.errors).toBeUndefined();
    expect(b.rateLimited()).toEqual([]);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
  });

  it('keeps one user\u2019s bucket from another\u2019s', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    await Promise.all(Array.from({ length: 9 }, () => b.gql(calls(20))));
    expect((await b.gql(calls(20))).errors?.[0]?.extensions?.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    expect((await b.gql(calls(20), {}, { as: demoUser('hamlet').email })).errors).toBeUndefined();
  });
});

describe('the chat server corrects the bucket', () => {
  it('counts the calls of the user\u2019s other clients from X-RateLimit-Remaining', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    // Another client of the owner spent 150 calls (the emulator counts them; the gateway did not see them).
    const owner = b.emulator.store.userByEmail(OWNER)!;
    const auth = `Basic ${Buffer.from(`${owner.delivery_email}:${owner.api_key}`).toString('base64')}`;
    for (let i = 0; i < 150; i++) await b.emulator.fetch(new Request('http://zulip.budget.localhost/api/v1/users/me', { headers: { authorization: auth } }));
    expect((await b.gql(calls(1))).errors).toBeUndefined(); // its answer says 49 left: 29 of them the gateway's
    expect((await b.gql(calls(20))).errors).toBeUndefined();
    const refused = await b.gql(calls(10));
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 10, available: 9 });
    expect(b.callsOf(OWNER)).toHaveLength(21); // the other client called the emulator directly
    expect(b.rateLimited()).toEqual([]);
  });

  it('stops at a 429 until its Retry-After, then serves again; { __typename } meanwhile', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    b.emulator.faults.inject('GET /attachments', { rateLimit: { retryAfter: 30 }, times: 1 });
    const hit = await b.gql(calls(1));
    expect(hit.errors?.[0]?.extensions?.code).toBeDefined();
    const refused = await b.gql(calls(1));
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 1, available: 0 });
    expect(refused.errors?.[0]?.extensions?.retryAfter).toBe(30);
    expect((await b.gql('{ __typename }')).errors).toBeUndefined();
    b.clock.advance(30_000);
    expect((await b.gql(calls(1))).errors).toBeUndefined();
  });
});

const globalId = (typename: string, key: string | number) => Buffer.from(`${typename}:${key}`).toString('base64');

describe('node and nodes cost what they call', () => {
  it('120 Topic ids of one channel are one GET /users/me/{stream_id}/topics, estimated 1', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const general = b.channelId('general');
    const ids = Array.from({ length: 120 }, (_, i) => globalId('Topic', `${general}:topic ${i}`));
    const result = await b.gql<{ nodes: unknown[] }>('query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Topic { name } } }', { ids });
    expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } }); // the channel has none of these topics
    expect(result.data!.nodes).toHaveLength(120);
    expect(result.extensions).toMatchObject({ upstreamBudget: { estimate: 1 } });
    expect(b.callsOf(OWNER).map((a) => a.path)).toEqual([`users/me/${general}/topics`]);
    expect(b.rateLimited()).toEqual([]);
  });

  it('ids of several types: one call per channel of topics, one users batch, one list per listed type', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const [general, other] = [b.channelId('general'), b.channelId('design')];
    const users = ['hamlet', 'othello', 'iago'].map((who) => globalId('User', b.userId(demoUser(who).email)));
    const ids = [globalId('Topic', `${general}:a`), globalId('Topic', `${other}:b`), globalId('Topic', `${general}:c`), ...users, globalId('Draft', 1), globalId('Draft', 2)];
    const result = await b.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    const paths = b.callsOf(OWNER).map((a) => a.path);
    // Two channels of topics, one users batch, the drafts list: as estimated.
    expect(paths).toHaveLength(4);
    expect(result.extensions).toMatchObject({ upstreamBudget: { estimate: 4 } });
  });

  it('nodes over the share is refused before any call', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false, maxUpstreamCalls: 500 } });
    const channels = [...b.emulator.store.channels.values()].map((c) => c.stream_id);
    const ids = Array.from({ length: 200 }, (_, i) => globalId('Topic', `${channels[i % channels.length]! + i * 1000}:t`));
    const refused = await b.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 200, share: SHARE });
    expect(b.callsOf(OWNER)).toEqual([]);
  });
});

describe('@live re-runs spend the bucket', () => {
  it('20 live queries then 2 message events: re-runs wait for tokens (none dropped), 0 429s, never over the share', async () => {
    const b = setupBudget();
    const url = await b.listen();
    const general = b.channelId('general');
    // Five calls a run: each alias fetches the channel's topics.
    const query = `query Topics($c: Long!) @live { ${Array.from({ length: 5 }, (_, i) => `t${i}: channel(id: $c) { topics { name } }`).join(' ')} }`;
    const authorization = b.authorization(OWNER);
    // The directory warm first, so every run costs its topics only.
    expect((await b.gql('query($c: Long!) { channel(id: $c) { name } }', { c: general })).errors).toBeUndefined();
    await until(() => b.emulator.requests.some((r) => r.path === '/events'), 5000, 'the directory loaded (its queue polled)');
    const streams = Array.from({ length: 20 }, () => sseSubscribe<Record<string, { topics: { name: string }[] }>>(url, query, { c: general }, { authorization }));
    await Promise.all(streams.map((s) => s.waitFor(1, 10_000)));
    for (const s of streams) expect(s.results[0]!.errors).toBeUndefined();
    const hamlet = demoUser('hamlet').email;
    const send = (topic: string) => b.gql(`mutation { sendMessage(channelName: "general", topic: "${topic}", content: "x") { messageId } }`, {}, { as: hamlet });
    const sees = (topic: string) => streams.filter((s) => s.results.some((r) => r.data?.t0?.topics.some((t) => t.name === topic))).length;
    expect((await send('first news')).errors).toBeUndefined();
    expect((await send('second news')).errors).toBeUndefined();
    // The share runs out before every query has re-run: the rest wait, and the clock brings them.
    await until(() => b.callsOf(OWNER).length >= SHARE - 10 || sees('second news') === 20, 10_000, 'the share spent');
    expect(b.rateLimited()).toEqual([]);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
    const delayed = 20 - sees('second news');
    expect(delayed).toBeGreaterThan(0);
    for (let minute = 0; minute < 3 && sees('second news') < 20; minute++) {
      b.clock.advance(61_000);
      await until(() => sees('second news') === 20 || b.callsOf(OWNER).length >= SHARE * (minute + 2) - 10, 10_000, 'the delayed re-runs');
    }
    expect(sees('second news')).toBe(20);
    for (const s of streams) expect(s.results.every((r) => !r.errors)).toBe(true);
    expect(b.rateLimited()).toEqual([]);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
    for (const s of streams) s.close();
  });
});

describe('subscription payloads spend the bucket', () => {
  const subscription = (alias: string) =>
    `subscription { ${alias}: messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { id channel { name topics { name } } } } } }`;

  it('4 subscriptions selecting channel { topics }, then 50 messages: payloads wait for tokens (none dropped), 0 429s, never over the share', async () => {
    const b = setupBudget();
    const url = await b.listen();
    const authorization = b.authorization(OWNER);
    const streams = ['a', 'b', 'c', 'd'].map((alias) => sseSubscribe(url, subscription(alias), {}, { authorization }));
    await until(() => b.gateway.graphqlSubscriptions.clients === 4 && b.emulator.requests.some((r) => r.path === '/events' && r.email === OWNER), 5000, 'the 4 subscriptions');
    const hamlet = demoUser('hamlet').email;
    for (let i = 0; i < 50; i++) {
      const sent = await b.gql(`mutation { sendMessage(channelName: "general", topic: "t${i % 3}", content: "m${i}") { messageId } }`, {}, { as: hamlet });
      expect(sent.errors).toBeUndefined();
    }
    const received = () => Math.min(...streams.map((s) => s.results.length));
    // Each event costs one GET /users/me/{stream_id}/topics per subscription: 200 in all, over the share.
    await until(() => b.callsOf(OWNER).length >= SHARE - 5, 10_000, 'the share spent');
    expect(received()).toBeLessThan(50);
    expect(b.rateLimited()).toEqual([]);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
    for (let minute = 0; minute < 3 && received() < 50; minute++) {
      b.clock.advance(61_000);
      await until(() => received() === 50 || b.callsOf(OWNER).length >= SHARE * (minute + 2) - 10, 10_000, 'the delayed payloads');
    }
    expect(received()).toBe(50);
    for (const s of streams) {
      expect(s.results.every((r) => !r.errors)).toBe(true);
      expect(s.results.map((r) => (Object.values(r.data!)[0] as { message: { channel: { topics: unknown[] } } }).message.channel.topics.length > 0)).not.toContain(false);
    }
    expect(b.rateLimited()).toEqual([]);
    expect(b.peakOf(OWNER)).toBeLessThanOrEqual(SHARE);
    for (const s of streams) s.close();
  });

  it('identical subscriptions of one credential resolve each payload once', async () => {
    const b = setupBudget();
    const url = await b.listen();
    const authorization = b.authorization(OWNER);
    const streams = Array.from({ length: 4 }, () => sseSubscribe(url, subscription('m'), {}, { authorization }));
    await until(() => b.gateway.graphqlSubscriptions.clients === 4 && b.emulator.requests.some((r) => r.path === '/events' && r.email === OWNER), 5000, 'the 4 subscriptions');
    await b.gql('mutation { sendMessage(channelName: "general", topic: "shared", content: "x") { messageId } }', {}, { as: demoUser('hamlet').email });
    await Promise.all(streams.map((s) => s.waitFor(1)));
    expect(b.callsOf(OWNER).filter((a) => a.path.endsWith('/topics'))).toHaveLength(1);
    for (const s of streams) s.close();
  });
});

describe('anonymous operations have a limit per client address', () => {
  const logins = (n: number) =>
    `mutation { ${Array.from({ length: n }, (_, i) => `l${i}: fetchApiKey(username: "${OWNER}", password: "wrong ${i}") { apiKey }`).join(' ')} }`;
  const post = async (url: string, query: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
    return (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
  };
  const attempts = (b: ReturnType<typeof setupBudget>) => b.answered.filter((a) => a.path === 'fetch_api_key').length;

  it('20 aliased fetchApiKey are 20 password attempts: refused before any call, with or without credentials', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const url = await b.listen();
    const anonymous = await post(url, logins(20));
    expect(anonymous.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 20, share: 10 });
    const withCredentials = await post(url, logins(20), { authorization: b.authorization(OWNER) });
    expect(withCredentials.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 20, share: 10 });
    expect(attempts(b)).toBe(0);
    expect(b.rateLimited()).toEqual([]);
  });

  it('one address gets 10 login attempts a minute, then retryAfter; X-Forwarded-For counts only from a trusted proxy', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const url = await b.listen();
    for (let i = 0; i < 5; i++) expect((await post(url, logins(2))).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(attempts(b)).toBe(10);
    // A forged X-Forwarded-For from an untrusted peer changes nothing.
    const refused = await post(url, logins(1), { 'x-forwarded-for': '203.0.113.7' });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 1, available: 0 });
    expect(refused.errors?.[0]?.extensions?.retryAfter).toBeGreaterThan(0);
    expect(attempts(b)).toBe(10);
    b.clock.advance(60_000);
    expect((await post(url, logins(1))).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const proxied = setupBudget({ gateway: { liveDirectory: false, trustedProxies: ['127.0.0.1'] } });
    const behind = await proxied.listen();
    for (let i = 0; i < 10; i++) expect((await post(behind, logins(1), { 'x-forwarded-for': '203.0.113.7' })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await post(behind, logins(1), { 'x-forwarded-for': '203.0.113.7' })).errors?.[0]?.extensions?.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    // Another client behind the same proxy has its own limit; the rightmost untrusted address counts.
    expect((await post(behind, logins(1), { 'x-forwarded-for': '198.51.100.1, 203.0.113.8' })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(proxied.rateLimited()).toEqual([]);
  });
});

describe('@defer parts and anonymous calls', () => {
  it('@defer parts count in their operation\u2019s estimate: 10 operations of 5 + 15 deferred calls, the 10th refused, 180 calls', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false } });
    const aliases = (from: number, n: number) => Array.from({ length: n }, (_, i) => `a${from + i}: attachments { uploadSpaceUsed }`).join(' ');
    const query = `{ ${aliases(0, 5)} ... @defer { ${aliases(5, 15)} } }`;
    const run = async () => {
      const response = await b.gateway.fetch('http://gateway.localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: b.authorization(OWNER) },
        body: JSON.stringify({ query }),
      });
      return response.text();
    };
    const bodies = await Promise.all(Array.from({ length: 10 }, run));
    expect(bodies.filter((body) => body.includes('UPSTREAM_BUDGET_EXCEEDED'))).toHaveLength(1);
    expect(b.callsOf(OWNER)).toHaveLength(180);
    expect(b.rateLimited()).toEqual([]);
  });

  it('anonymous operations of one address stop at ANONYMOUS_RATE_LIMIT calls a minute', async () => {
    const b = setupBudget({ gateway: { liveDirectory: false, anonymousRateLimit: 3 } });
    const url = await b.listen();
    const ask = async () => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ serverSettings { realmName } }' }) });
      return (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
    };
    for (let i = 0; i < 3; i++) expect((await ask()).errors).toBeUndefined();
    expect((await ask()).errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 1, available: 0 });
    b.clock.advance(60_000);
    expect((await ask()).errors).toBeUndefined();
  });
});
