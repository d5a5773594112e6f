/**
 * Each credential's upstream budget (issue 19), from the X-RateLimit-* headers the emulator sends
 * like Zulip (per user, configurable limit), reported in the response `extensions`.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { setupHarness } from '../helpers/harness.js';

const ME = '{ me { id } }';

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
