/**
 * A channel's subscribers and one user's subscription status end to end: `Channel.subscriberIds`,
 * `Channel.subscribers` (one upstream request per channel, shared by both fields) and
 * `Channel.isSubscribed`, with Zulip's errors and the feature-level gate of the status.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const CORDELIA = demoUser('cordelia').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, calls };
}

const SUBSCRIBERS = /* GraphQL */ `
  query ($id: Long!, $userId: Long!) {
    channel(id: $id) { subscriberIds subscribers { zulipId } isSubscribed(userId: $userId) }
  }
`;

describe('channel subscribers', () => {
  it('lists the subscribers with one upstream request for both fields, and answers the subscription status', async () => {
    const { h, calls } = harness();
    const engineering = h.channelId('engineering');
    const expected = [...h.emulator.store.subscriberIds(engineering)].filter((id) => h.emulator.store.users.get(id)!.is_active).sort((a, b) => a - b);
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ channel: { subscriberIds: number[]; subscribers: { zulipId: number }[]; isSubscribed: boolean } }>(
      SUBSCRIBERS,
      { id: engineering, userId: h.userId('iago') },
      { as: IAGO },
    );
    expect(errors).toBeUndefined();
    expect(data!.channel.subscriberIds).toEqual(expected);
    expect(data!.channel.subscribers.map((u) => u.zulipId)).toEqual(expected);
    expect(data!.channel.isSubscribed).toBe(expected.includes(h.userId('iago')));
    expect(calls().filter((c) => c === `GET streams/${engineering}/members`)).toHaveLength(1);
    expect(calls().filter((c) => c.startsWith('GET users/') && c.includes('/subscriptions/'))).toEqual([
      `GET users/${h.userId('iago')}/subscriptions/${engineering}`,
    ]);
  });

  it('passes on BAD_REQUEST for an unknown user and refuses a non-positive ID before any upstream call', async () => {
    const { h, calls } = harness();
    const general = h.channelId('general');
    const unknown = await h.gql('query ($id: Long!) { channel(id: $id) { isSubscribed(userId: 99999) } }', { id: general }, { as: CORDELIA });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'No such user', extensions: { code: 'BAD_REQUEST', route: 'get-subscription-status' } });
    h.resetUpstreamRequests();
    const bad = await h.gql('query ($id: Long!) { channel(id: $id) { isSubscribed(userId: 0) } }', { id: general }, { as: CORDELIA });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(calls().filter((c) => c.includes('/subscriptions/'))).toEqual([]);
  });
});
