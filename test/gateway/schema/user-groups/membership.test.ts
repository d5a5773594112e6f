/**
 * User group membership queries and deactivation end to end: GraphQL → gateway → REST → emulator.
 * `userGroupMembers`, `userGroupSubgroups` and `isUserGroupMember` answer from the caller's live
 * directory once it is ready (no upstream call), else with one call; the answers equal the
 * server's. `deactivateUserGroup` with its codes; both gated by feature level.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { featureLevels } from '../../../../src/zulip/feature-levels.js';
import { TEST_LIVE_DIRECTORY, setupHarness, type Harness } from '../../../helpers/harness.js';
import { until } from '../../../helpers/wait.js';

const HAMLET = demoUser('hamlet').email;
const calls = (h: Harness) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`).filter((c) => c !== 'GET server_settings');

/** Runs `query` until it costs no upstream call (the directory is ready), or once without the directory. */
async function warm(h: Harness, query: string, variables: Record<string, unknown>): Promise<{ data?: unknown; calls: string[] }> {
  let last: { data?: unknown; calls: string[] } = { calls: [] };
  const run = async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql(query, variables, { as: HAMLET });
    expect(errors).toBeUndefined();
    last = { data, calls: calls(h) };
    return last.calls.length === 0;
  };
  if (TEST_LIVE_DIRECTORY) await until(run, 5000, 'a query answered from the live directory');
  else await run();
  return last;
}

describe('user group membership queries', () => {
  const MEMBERS = 'query ($g: Long!, $d: Boolean) { userGroupMembers(groupId: $g, directOnly: $d) { groupId userIds users { zulipId } } }';

  it('lists members (through subgroups, or direct) as the server does: one call cold, none warm', async () => {
    const h = setupHarness();
    const engineers = h.emulator.store.groupByName('engineers')!.id;
    const first = await h.gql<{ userGroupMembers: { userIds: number[] } }>(MEMBERS, { g: engineers }, { as: HAMLET });
    const everyone = ['desdemona', 'iago', 'shiva', 'hamlet'].map((l) => h.userId(l)).sort((a, b) => a - b);
    expect(first.data?.userGroupMembers.userIds).toEqual(everyone);
    // The first lookup starts the directory, which is not ready yet: one call for the members.
    expect(calls(h).filter((c) => c.startsWith('GET user_groups'))).toEqual([`GET user_groups/${engineers}/members`]);
    const warmAll = await warm(h, 'query ($g: Long!) { userGroupMembers(groupId: $g) { userIds } }', { g: engineers });
    expect(warmAll.data).toEqual({ userGroupMembers: { userIds: everyone } });
    const direct = await warm(h, 'query ($g: Long!) { userGroupMembers(groupId: $g, directOnly: true) { userIds } }', { g: engineers });
    expect(direct.data).toEqual({ userGroupMembers: { userIds: [h.userId('shiva'), h.userId('hamlet')].sort((a, b) => a - b) } });
    expect(direct.calls).toEqual(TEST_LIVE_DIRECTORY ? [] : [`GET user_groups/${engineers}/members`]);
  });

  it('lists subgroups and answers membership, warm with no call', async () => {
    const h = setupHarness();
    const engineers = h.emulator.store.groupByName('engineers')!.id;
    const leadership = h.emulator.store.groupByName('leadership')!.id;
    const subgroups = await warm(h, 'query ($g: Long!) { userGroupSubgroups(groupId: $g) { subgroupIds subgroups { name } } }', { g: engineers });
    expect(subgroups.data).toEqual({ userGroupSubgroups: { subgroupIds: [leadership], subgroups: [{ name: 'leadership' }] } });
    const viaSubgroup = await warm(h, 'query ($g: Long!, $u: Long!) { isUserGroupMember(groupId: $g, userId: $u) }', { g: engineers, u: h.userId('iago') });
    expect(viaSubgroup.data).toEqual({ isUserGroupMember: true });
    const directOnly = await warm(h, 'query ($g: Long!, $u: Long!) { isUserGroupMember(groupId: $g, userId: $u, directOnly: true) }', { g: engineers, u: h.userId('iago') });
    expect(directOnly.data).toEqual({ isUserGroupMember: false });
    expect(directOnly.calls).toEqual(TEST_LIVE_DIRECTORY ? [] : [`GET user_groups/${engineers}/members/${h.userId('iago')}`]);
  });

  it('passes on the server\u2019s errors (unknown group, deactivated user) from the one call', async () => {
    const h = setupHarness();
    const unknown = await h.gql('{ userGroupMembers(groupId: 9999) { userIds } }', {}, { as: HAMLET });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Invalid user group', extensions: { code: 'BAD_REQUEST', route: 'get-user-group-members' } });
    const engineers = h.emulator.store.groupByName('engineers')!.id;
    const lear = await h.gql('query ($g: Long!, $u: Long!) { isUserGroupMember(groupId: $g, userId: $u) }', { g: engineers, u: h.userId('lear') }, { as: HAMLET });
    expect(lear.errors?.[0]).toMatchObject({ message: 'User is deactivated', extensions: { code: 'BAD_REQUEST', route: 'get-is-user-group-member' } });
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 127', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: featureLevels.userGroupMembershipQueries - 1 } });
    const { errors } = await h.gql('{ userGroupSubgroups(groupId: 1) { subgroupIds } }', {}, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 127 });
    expect(calls(h)).toEqual([]);
  });
});

describe('deactivateUserGroup', () => {
  const DEACTIVATE = 'mutation ($g: Long!) { deactivateUserGroup(groupId: $g) { zulipId deactivated } }';

  it('deactivates and returns the group; a group in use gets CANNOT_DEACTIVATE_GROUP_IN_USE with its objections', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: featureLevels.groupInUseCode } });
    const players = h.emulator.store.groupByName('players')!.id;
    const done = await h.gql(DEACTIVATE, { g: players }, { as: HAMLET });
    expect(done.data).toEqual({ deactivateUserGroup: { zulipId: players, deactivated: true } });
    expect(calls(h)).toEqual([`POST user_groups/${players}/deactivate`, 'GET user_groups']);
    const leadership = h.emulator.store.groupByName('leadership')!.id;
    const inUse = await h.gql(DEACTIVATE, { g: leadership }, { as: demoUser('desdemona').email });
    expect(inUse.errors?.[0]).toMatchObject({
      message: 'Cannot deactivate user group in use.',
      extensions: { code: 'CANNOT_DEACTIVATE_GROUP_IN_USE', route: 'deactivate-user-group', objections: [{ type: 'supergroup' }] },
    });
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 290', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: featureLevels.deactivateUserGroup - 1 } });
    const { errors } = await h.gql(DEACTIVATE, { g: 1 }, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 290 });
    expect(calls(h)).toEqual([]);
  });
});
