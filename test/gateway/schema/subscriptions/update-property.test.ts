/**
 * `updateSubscriptionProperty` end to end: one setting per call, two upstream requests (the change,
 * then the subscription as it now is), bad input refused before any call, Zulip's errors kept.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { setupHarness } from '../../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;
const MUTATION = 'mutation ($change: SubscriptionSettingsInput!) { updateSubscriptionProperty(change: $change) { pinToTop color } }';

describe('updateSubscriptionProperty', () => {
  it('changes one setting and returns the subscription', async () => {
    const h = setupHarness();
    const general = h.channelId('general');
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql(MUTATION, { change: { channelId: general, pinToTop: true } }, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data).toMatchObject({ updateSubscriptionProperty: { pinToTop: true } });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH users/me/subscriptions/${general}`, 'GET users/me/subscriptions']);
    expect(h.emulator.store.subscription(general, h.userId('hamlet'))!.pin_to_top).toBe(true);
  });

  it('refuses zero or two settings before any upstream call, and passes on a bad color as BAD_REQUEST', async () => {
    const h = setupHarness();
    const general = h.channelId('general');
    h.resetUpstreamRequests();
    for (const change of [{ channelId: general }, { channelId: general, pinToTop: true, isMuted: true }]) {
      const { errors } = await h.gql(MUTATION, { change }, { as: HAMLET });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    expect(h.upstreamRequests).toEqual([]);
    const { errors } = await h.gql(MUTATION, { change: { channelId: general, color: 'red' } }, { as: HAMLET });
    expect(errors?.[0]).toMatchObject({ message: 'color is not a valid hex color code', extensions: { code: 'BAD_REQUEST', route: 'update-subscription-property' } });
  });
});
