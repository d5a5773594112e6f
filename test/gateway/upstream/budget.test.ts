/**
 * Each credential's upstream budget (issue 19), from the X-RateLimit-* headers the emulator sends
 * like Zulip (per user, configurable limit), reported in the response `extensions`.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { sessionKey } from '../../../src/gateway/events/hub.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { setupHarness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const ME = '{ me { zulipId } }';

describe('the upstream budget', () => {
  it('follows X-RateLimit-Remaining per credential and reports it in extensions', async () => {
    const h = setupHarness({ emulatorSettings: { rateLimit: { limit: 30, windowSeconds: 60 } }, gateway: { liveDirectory: false } });
    const first = await h.gql(ME, {}, { as: demoUser('hamlet').email });
    const budget = first.extensions!.upstreamBudget as { limit: number; remaining: number; resetAt: number };
    expect(budget.limit).toBe(30);
    expect(budget.remaining).toBe(30 - (first.extensions!.upstreamRequests as number));
    expect(budget.resetAt).toBeGreaterThan(Date.now() / 1000);
    const second = await h.gql(ME, {}, { as: demoUser('hamlet').email });
    expect((second.extensions!.upstreamBudget as { remaining: number }).remaining).toBe(budget.remaining - (second.extensions!.upstreamRequests as number));
    // Another user has a budget of their own.
    const other = await h.gql(ME, {}, { as: demoUser('othello').email });
    expect((other.extensions!.upstreamBudget as { remaining: number }).remaining).toBe(30 - (other.extensions!.upstreamRequests as number));
  });

  it('reports no budget for a server that advertises none', async () => {
    const h = setupHarness({ gateway: { liveDirectory: false } });
    const result = await h.gql(ME, {}, { as: demoUser('hamlet').email });
    expect(result.extensions).not.toHaveProperty('upstreamBudget');
  });
});

/**
 * `n` aliases of `{ attachments { uploadSpaceUsed } }`: n upstream calls (one `GET /attachments`
 * each), estimated n. (Not `me`: the caller's own user is fetched once per operation.)
 */
const calls = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `m${i}: attachments { uploadSpaceUsed }`).join(' ')} }`;

describe('refusing over the remaining budget', () => {
  it('a limit of 4 (a share of 3) makes a query needing 5 calls fail before it starts, with no retryAfter: it never fits', async () => {
    const h = setupHarness({ emulatorSettings: { rateLimit: { limit: 4, windowSeconds: 3600 } }, gateway: { liveDirectory: false } });
    const as = { as: demoUser('hamlet').email };
    const warm = await h.gql(ME, {}, as);
    expect(warm.extensions).toMatchObject({ upstreamRequests: 1, upstreamBudget: { limit: 4, remaining: 3 } });
    h.resetUpstreamRequests();
    const refused = await h.gql(calls(5), {}, as);
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 5, share: 3 });
    expect(refused.errors?.[0]?.extensions).not.toHaveProperty('retryAfter');
    expect(refused.errors?.[0]?.message).toContain('about 5 calls');
    expect(h.upstreamRequests).toEqual([]);
    // A query within what is left still runs.
    const one = await h.gql(ME, {}, as);
    expect(one.errors).toBeUndefined();
    expect(h.upstreamRequests).toHaveLength(1);
  });
});


describe('a query that fits', () => {
  it('runs, and reports the remaining budget with its estimate, no lower than what it spent', async () => {
    const h = setupHarness({ emulatorSettings: { rateLimit: { limit: 200, windowSeconds: 3600 } }, gateway: { liveDirectory: false } });
    const as = { as: demoUser('hamlet').email };
    const spentBy = () => h.upstreamRequests.filter((r) => r.path !== 'server_settings').length; // server settings are anonymous
    const query = 'query($id: Long!) { me { id } channel(id: $id) { name topics { name } } }';
    const result = await h.gql<{ channel: { topics: unknown[] } }>(query, { id: h.channelId('general') }, as);
    expect(result.errors).toBeUndefined();
    expect(result.data!.channel.topics.length).toBeGreaterThan(0);
    const budget = result.extensions!.upstreamBudget as { limit: number; remaining: number; resetAt: number; estimate: number };
    expect(budget).toMatchObject({ limit: 200, remaining: 200 - spentBy() });
    expect(budget.estimate).toBeGreaterThanOrEqual(spentBy());
  });
});

describe('the headroom', () => {
  it('keeps 10% of the limit out of any operation by default, and can be set in calls', async () => {
    const settings = { emulatorSettings: { rateLimit: { limit: 20, windowSeconds: 3600 } } };
    const h = setupHarness({ ...settings, gateway: { liveDirectory: false } });
    const as = { as: demoUser('hamlet').email };
    expect((await h.gql(ME, {}, as)).extensions).toMatchObject({ upstreamBudget: { remaining: 19 } });
    h.resetUpstreamRequests();
    // A share of 18 (2 kept: 10% of 20), 1 spent: 18 calls are refused, 17 run.
    const refused = await h.gql(calls(18), {}, as);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 18, available: 17, share: 18 });
    expect(refused.errors?.[0]?.message).toMatch(/17 left of its share of 18 a minute\. Retry after \d+ s\./);
    expect(h.upstreamRequests).toEqual([]);
    const ran = await h.gql(calls(17), {}, as);
    expect(ran.errors).toBeUndefined();
    expect(h.upstreamRequests).toHaveLength(17);

    const lenient = setupHarness({ ...settings, gateway: { liveDirectory: false, upstreamBudgetHeadroom: 0 } });
    await lenient.gql(ME, {}, as);
    expect((await lenient.gql(calls(19), {}, as)).errors).toBeUndefined();
  });

  it('counts the calls the gateway makes for the credential on its own: the registration and the poll', async () => {
    // limit 12: 2 kept (10%, rounded up). The unread counts come from the credential's directory,
    // which registers its queue in the background (then long-polls it): the request itself makes
    // no call, so only the registration's answer can tell the gateway what is left.
    const h = setupHarness({ emulatorSettings: { rateLimit: { limit: 12, windowSeconds: 3600 } }, gateway: { liveDirectory: true } });
    const { email, apiKey } = demoUser('hamlet');
    const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } }));
    const unreads = await h.gql('{ unreads { total } }', {}, { as: email });
    expect(unreads.errors).toBeUndefined();
    expect(unreads.extensions).toMatchObject({ upstreamRequests: 0 });
    await until(() => h.gateway.directories!.registry.get(key)?.ready === true, 5000, "hamlet's directory");
    h.resetUpstreamRequests();
    // A share of 10 (2 kept), less the registration and the queue's first poll: 9 calls are refused...
    await until(() => h.emulator.requests.filter((r) => r.path === '/events' && r.email === email).length === 1, 5000, 'the first poll');
    const refused = await h.gql(calls(9), {}, { as: email });
    const extensions = refused.errors?.[0]?.extensions;
    expect(extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 9, available: 8, share: 10 });
    expect(h.upstreamRequests).toEqual([]);
    // ...and 8 run.
    const ran = await h.gql(calls(8), {}, { as: email });
    expect(ran.errors).toBeUndefined();
    expect(h.upstreamRequests).toHaveLength(8);
  });
});
