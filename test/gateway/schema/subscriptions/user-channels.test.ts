/**
 * `User.subscribedChannelIds` and `User.subscribedChannels` end to end (feature level 440): one
 * upstream request per user for both fields, the caller's view of private channels, and
 * UNSUPPORTED_BY_SERVER below the level.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { featureLevels } from '../../../../src/zulip/feature-levels.js';
import { setupHarness } from '../../../helpers/harness.js';

const FL = featureLevels.userChannels;
const QUERY = 'query ($id: Long!) { user(id: $id) { subscribedChannelIds subscribedChannels { zulipId name } } }';

function harness(featureLevel: number = FL) {
  const h = setupHarness({ emulatorSettings: { featureLevel } });
  return { h, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

type Data = { user: { subscribedChannelIds: number[]; subscribedChannels: { zulipId: number; name: string }[] } };

describe('a user\u2019s subscribed channels', () => {
  it('answers both fields from one upstream request, linked to the channels', async () => {
    const { h, calls } = harness();
    const names = ['general', 'design', 'engineering', 'announce'];
    const ids = names.map((n) => h.channelId(n)).sort((a, b) => a - b);
    const { data, errors } = await h.gql<Data>(QUERY, { id: h.userId('hamlet') }, { as: demoUser('iago').email });
    expect(errors).toBeUndefined();
    expect(data!.user.subscribedChannelIds).toEqual(ids);
    expect(data!.user.subscribedChannels.map((c) => c.zulipId)).toEqual(ids);
    expect(data!.user.subscribedChannels.map((c) => c.name).sort()).toEqual([...names].sort());
    expect(calls().filter((c) => c.includes('/channels'))).toEqual([`GET users/${h.userId('hamlet')}/channels`]);
  });

  it('shows the caller only the channels whose subscribers they may see', async () => {
    const { h } = harness();
    const { data } = await h.gql<Data>(QUERY, { id: h.userId('hamlet') }, { as: demoUser('cordelia').email });
    expect(data!.user.subscribedChannelIds).not.toContain(h.channelId('engineering'));
    expect(data!.user.subscribedChannelIds).toHaveLength(3);
    expect(data!.user.subscribedChannels.map((c) => c.name)).not.toContain('engineering');
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 440, before calling the endpoint', async () => {
    const { h, calls } = harness(FL - 1);
    const { errors } = await h.gql(QUERY, { id: h.userId('hamlet') }, { as: demoUser('iago').email });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: FL, featureLevel: FL - 1 });
    expect(calls().some((c) => c.endsWith('/channels'))).toBe(false);
  });
});
