/**
 * Default channels end to end: GraphQL → gateway → REST → emulator. The two mutations, their one
 * upstream call, the linked channel, the server's errors and the input refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const ADD = 'mutation ($id: Long!) { addDefaultChannel(channelId: $id) { channelId isDefault channel { name } } }';
const REMOVE = 'mutation ($id: Long!) { removeDefaultChannel(channelId: $id) { channelId isDefault } }';

describe('default channels', () => {
  it('adds a default channel with one write and links the channel', async () => {
    const h = setupHarness();
    const design = h.channelId('design');
    const { data, errors } = await h.gql(ADD, { id: design }, { as: IAGO });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ addDefaultChannel: { channelId: design, isDefault: true, channel: { name: 'design' } } });
    expect(h.emulator.store.defaultChannelIds.has(design)).toBe(true);
    expect(h.upstreamRequests.filter((r) => r.path === 'default_streams').map((r) => r.method)).toEqual(['POST']);
  });

  it('removes a default channel with exactly one upstream call', async () => {
    const h = setupHarness();
    const general = h.channelId('general');
    const { data } = await h.gql(REMOVE, { id: general }, { as: IAGO });
    expect(data).toEqual({ removeDefaultChannel: { channelId: general, isDefault: false } });
    expect(h.emulator.store.defaultChannelIds.has(general)).toBe(false);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE default_streams']);
  });

  it('keeps the server\u2019s errors: private channel, not an administrator', async () => {
    const h = setupHarness();
    const priv = await h.gql(ADD, { id: h.channelId('engineering') }, { as: IAGO });
    expect(priv.errors?.[0]).toMatchObject({
      message: 'Private channels cannot be made default.',
      extensions: { code: 'BAD_REQUEST', route: 'add-default-stream' },
    });
    const member = await h.gql(ADD, { id: h.channelId('design') }, { as: demoUser('hamlet').email });
    expect(member.errors?.[0]).toMatchObject({
      message: 'Must be an organization administrator',
      extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'add-default-stream' },
    });
  });

  it('refuses a non-positive channel ID before any upstream call', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(ADD, { id: 0 }, { as: IAGO });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'channelId' });
    expect(h.upstreamRequests).toEqual([]);
  });
});
