/**
 * Each credential's upstream budget (issue 19), from the X-RateLimit-* headers the emulator sends
 * like Zulip (per user, configurable limit), reported in the response `extensions`.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { setupHarness } from '../helpers/harness.js';

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

describe('refusing over the remaining budget', () => {
  it('an upstream advertising X-RateLimit-Remaining: 3 makes a query needing 5 calls fail before it starts', async () => {
    const h = setupHarness({ emulatorSettings: { rateLimit: { limit: 4, windowSeconds: 3600 } }, gateway: { liveDirectory: false } });
    const as = { as: demoUser('hamlet').email };
    const warm = await h.gql(ME, {}, as);
    expect(warm.extensions).toMatchObject({ upstreamRequests: 1, upstreamBudget: { limit: 4, remaining: 3 } });
    h.resetUpstreamRequests();
    const five = `{ a: me { zulipId } b: me { zulipId } c: me { zulipId } d: me { zulipId } e: me { zulipId } }`;
    const refused = await h.gql(five, {}, as);
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 5, remaining: 3 });
    expect(refused.errors?.[0]?.message).toContain('about 5 calls');
    expect(h.upstreamRequests).toEqual([]);
    // A query within what is left still runs.
    const one = await h.gql(ME, {}, as);
    expect(one.errors).toBeUndefined();
    expect(h.upstreamRequests).toHaveLength(1);
  });
});
