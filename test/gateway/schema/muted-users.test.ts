/**
 * Muting users end to end: GraphQL → gateway → REST → emulator. The two mutations, their upstream
 * calls, the server's errors with their codes, input checks and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;
const calls = (h: ReturnType<typeof setupHarness>) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);

const MUTE = 'mutation ($id: Long!) { muteUser(userId: $id) { userId muted user { fullName } } }';
const UNMUTE = 'mutation ($id: Long!) { unmuteUser(userId: $id) { userId muted } }';

describe('muteUser and unmuteUser', () => {
  it('mutes and unmutes a user, one upstream call each beside the feature level', async () => {
    const h = setupHarness();
    const iago = h.userId('iago');
    const muted = await h.gql(MUTE, { id: iago }, { as: HAMLET });
    expect(muted.errors).toBeUndefined();
    expect(muted.data).toEqual({ muteUser: { userId: iago, muted: true, user: { fullName: 'Iago' } } });
    expect(h.emulator.store.mutedUsers.get(h.userId('hamlet'))?.has(iago)).toBe(true);
    expect(calls(h).filter((c) => c.includes('muted_users'))).toEqual([`POST users/me/muted_users/${iago}`]);
    expect(calls(h)).toContain('GET server_settings');

    h.resetUpstreamRequests();
    const unmuted = await h.gql(UNMUTE, { id: iago }, { as: HAMLET });
    expect(unmuted.data).toEqual({ unmuteUser: { userId: iago, muted: false } });
    expect(calls(h)).toEqual([`DELETE users/me/muted_users/${iago}`]);
  });

  it('passes on the server\u2019s BAD_REQUEST with its message and route', async () => {
    const h = setupHarness();
    const self = await h.gql(MUTE, { id: h.userId('hamlet') }, { as: HAMLET });
    expect(self.errors?.[0]).toMatchObject({
      message: 'Cannot mute self',
      path: ['muteUser'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'mute-user' },
    });
    const notMuted = await h.gql(UNMUTE, { id: h.userId('iago') }, { as: HAMLET });
    expect(notMuted.errors?.[0]).toMatchObject({ message: 'User is not muted', extensions: { code: 'BAD_REQUEST', route: 'unmute-user' } });
  });

  it('refuses a non-positive ID with BAD_USER_INPUT before any upstream call', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(MUTE, { id: 0 }, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'userId' });
    expect(calls(h)).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 48, without calling the operation', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 47 } });
    const { errors } = await h.gql(UNMUTE, { id: h.userId('iago') }, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 48, featureLevel: 47 });
    expect(calls(h)).toEqual(['GET server_settings']);
  });
});
