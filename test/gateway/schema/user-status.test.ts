/**
 * User status end to end: GraphQL → gateway → REST → emulator. `updateStatus`, `userStatus`,
 * their upstream calls, input checks, the server's errors and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;
const calls = (h: ReturnType<typeof setupHarness>) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);

describe('user status', () => {
  it('updates the caller\u2019s status and reads it back, counting upstream calls', async () => {
    const h = setupHarness();
    const hamlet = h.userId('hamlet');
    const updated = await h.gql('mutation { updateStatus(text: "On stage", emojiName: "smile") { ok } }', {}, { as: HAMLET });
    expect(updated.errors).toBeUndefined();
    expect(calls(h)).toEqual(['POST users/me/status']);
    h.resetUpstreamRequests();
    const read = await h.gql('query ($id: Long!) { userStatus(userId: $id) { userId text emojiName emojiCode reactionType away user { fullName } } }', { id: hamlet });
    expect(read.data).toEqual({
      userStatus: { userId: hamlet, text: 'On stage', emojiName: 'smile', emojiCode: '1f604', reactionType: 'unicode_emoji', away: false, user: { fullName: expect.any(String) } },
    });
    expect(calls(h).filter((c) => c.endsWith('/status'))).toEqual([`GET users/${hamlet}/status`]);
  });

  it('returns the new status from the mutation when selected', async () => {
    const h = setupHarness();
    const { data } = await h.gql<{ updateStatus: { status: { text: string } } }>('mutation { updateStatus(text: "Away") { status { text } } }', {}, { as: HAMLET });
    expect(data!.updateStatus.status.text).toBe('Away');
  });

  it('refuses bad input before any upstream call, and passes on the server\u2019s BAD_REQUEST', async () => {
    const h = setupHarness();
    for (const query of [
      `mutation { updateStatus(text: "${'x'.repeat(61)}") { ok } }`,
      'mutation { updateStatus(emojiCode: "1f604") { ok } }',
      'mutation { updateStatus { ok } }',
    ]) {
      const { errors } = await h.gql(query, {}, { as: HAMLET });
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(calls(h)).toEqual([]);
    const { errors } = await h.gql('mutation { updateStatus(emojiName: "invalid") { ok } }', {}, { as: HAMLET });
    expect(errors?.[0]).toMatchObject({ message: "Emoji 'invalid' does not exist", extensions: { code: 'BAD_REQUEST', route: 'update-status' } });
  });

  it('answers UNSUPPORTED_BY_SERVER for userStatus below feature level 262', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 261 } });
    const { errors } = await h.gql('query ($id: Long!) { userStatus(userId: $id) { text } }', { id: h.userId('iago') });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 262, featureLevel: 261 });
    expect(calls(h)).toEqual(['GET server_settings']);
  });
});

describe('update status for user', () => {
  const FL = 407;

  it('lets an administrator change another user\u2019s status in one call, the status only when selected', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: FL } });
    const hamlet = h.userId('hamlet');
    const done = await h.gql('mutation ($id: Long!) { updateStatusForUser(userId: $id, text: "In a meeting") { userId } }', { id: hamlet }, { as: demoUser('iago').email });
    expect(done.data).toEqual({ updateStatusForUser: { userId: hamlet } });
    expect(calls(h).filter((c) => c !== 'GET server_settings')).toEqual([`POST users/${hamlet}/status`]);
    h.resetUpstreamRequests();
    const read = await h.gql<{ updateStatusForUser: { status: { text: string } } }>(
      'mutation ($id: Long!) { updateStatusForUser(userId: $id, emojiName: "smile") { status { text emojiName } } }',
      { id: hamlet },
      { as: demoUser('iago').email },
    );
    expect(read.data?.updateStatusForUser.status).toEqual({ text: 'In a meeting', emojiName: 'smile' });
    expect(calls(h)).toEqual([`POST users/${hamlet}/status`, `GET users/${hamlet}/status`]);
  });

  it('refuses bad input before any call and passes on Insufficient permission', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: FL } });
    const hamlet = h.userId('hamlet');
    const empty = await h.gql('mutation ($id: Long!) { updateStatusForUser(userId: $id) { userId } }', { id: hamlet }, { as: demoUser('iago').email });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(calls(h)).toEqual([]);
    const member = await h.gql('mutation ($id: Long!) { updateStatusForUser(userId: $id, text: "x") { userId } }', { id: hamlet }, { as: demoUser('othello').email });
    expect(member.errors?.[0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST', route: 'update-status-for-user' } });
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 407', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: FL - 1 } });
    const { errors } = await h.gql('mutation ($id: Long!) { updateStatusForUser(userId: $id, text: "x") { userId } }', { id: h.userId('hamlet') }, { as: demoUser('iago').email });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: FL, featureLevel: FL - 1 });
    expect(calls(h)).toEqual(['GET server_settings']);
  });
});
