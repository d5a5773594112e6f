/**
 * `updateSubscriptions` end to end: GraphQL → gateway → REST → emulator. Joining and leaving in
 * one upstream call, the changed subscriptions (one more request, only when selected), Zulip's
 * STREAM_DOES_NOT_EXIST with nothing changed, and bad input refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { setupHarness } from '../../../helpers/harness.js';

const HAMLET = { as: demoUser('hamlet').email };

function harness() {
  const h = setupHarness();
  return { h, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

describe('updateSubscriptions', () => {
  it('joins and leaves channels in one upstream call', async () => {
    const { h, calls } = harness();
    const { data, errors } = await h.gql(
      `mutation {
        updateSubscriptions(add: [{ name: "kitchen", color: "#123456" }, { name: "general" }], remove: ["design"]) {
          subscribed { userId channelNames } alreadySubscribed { userId channelNames } removed notRemoved
        }
      }`,
      {},
      HAMLET,
    );
    expect(errors).toBeUndefined();
    const hamlet = h.userId('hamlet');
    expect(data).toEqual({
      updateSubscriptions: {
        subscribed: [{ userId: hamlet, channelNames: ['kitchen'] }],
        alreadySubscribed: [{ userId: hamlet, channelNames: ['general'] }],
        removed: ['design'],
        notRemoved: [],
      },
    });
    expect(calls()).toEqual(['PATCH users/me/subscriptions']);
    expect(h.emulator.store.isSubscribed(hamlet, h.channelId('design'))).toBe(false);
  });

  it('returns the changed subscriptions with their channel IDs when selected', async () => {
    const { h, calls } = harness();
    const { data } = await h.gql<{ updateSubscriptions: { subscriptions: { channelId: number; color: string }[] } }>(
      'mutation { updateSubscriptions(add: [{ name: "Kitchen", color: "#123456" }]) { subscriptions { channelId color } } }',
      {},
      HAMLET,
    );
    const kitchen = h.emulator.store.channelByName('kitchen')!.stream_id;
    expect(data!.updateSubscriptions.subscriptions).toEqual([{ channelId: kitchen, color: '#123456' }]);
    expect(calls()).toEqual(['PATCH users/me/subscriptions', 'GET users/me/subscriptions']);
  });

  it('keeps STREAM_DOES_NOT_EXIST with nothing changed, and refuses an empty or blank request before any call', async () => {
    const { h, calls } = harness();
    const missing = await h.gql('mutation { updateSubscriptions(add: [{ name: "kitchen" }], remove: ["nowhere"]) { removed } }', {}, HAMLET);
    expect(missing.errors?.[0]).toMatchObject({ message: "Channel 'nowhere' does not exist", extensions: { code: 'STREAM_DOES_NOT_EXIST', route: 'update-subscriptions' } });
    expect(h.emulator.store.channelByName('kitchen')).toBeUndefined();
    h.resetUpstreamRequests();
    for (const args of ['', '(add: [], remove: [])', '(remove: [" "])', '(add: [{ name: "" }])']) {
      const { errors } = await h.gql(`mutation { updateSubscriptions${args} { removed } }`, {}, HAMLET);
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(calls()).toEqual([]);
  });
});
