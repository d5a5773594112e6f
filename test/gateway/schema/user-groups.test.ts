/**
 * User groups end to end: GraphQL → gateway → REST → emulator. The `userGroups` / `userGroup`
 * queries with members, subgroups and group-setting values, the `createUserGroup`,
 * `updateUserGroup` and `updateUserGroupMembers` mutations with their errors, input validation
 * that never reaches the server, and upstream request counts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness, setupHarness, type Harness } from '../../helpers/harness.js';

const EMAIL = (login: string) => `${login}@zulip.example.com`;

interface GqlSetting {
  groupId: number | null;
  directMemberIds: number[] | null;
  directSubgroupIds: number[] | null;
  users: { zulipId: number }[];
  groups: { zulipId: number; name: string }[];
  allUsers: { zulipId: number }[];
}

interface GqlGroup {
  zulipId: number;
  name: string;
  description: string;
  memberIds: number[];
  members: { zulipId: number; fullName: string }[];
  allMembers: { zulipId: number }[];
  subgroupIds: number[];
  subgroups: { zulipId: number; name: string }[];
  isSystemGroup: boolean;
  dateCreated: number | null;
  creator: { zulipId: number } | null;
  deactivated: boolean;
  canManageGroup: GqlSetting;
  canMentionGroup: GqlSetting;
  canJoinGroup: GqlSetting;
}

const SETTING = 'groupId directMemberIds directSubgroupIds users { zulipId } groups { zulipId name } allUsers { zulipId }';
const GROUP_FIELDS = /* GraphQL */ `
  zulipId name description memberIds members { zulipId fullName } allMembers { zulipId } subgroupIds subgroups { zulipId name }
  isSystemGroup dateCreated creator { zulipId } deactivated
  canAddMembersGroup { groupId } canJoinGroup { ${SETTING} } canLeaveGroup { groupId }
  canManageGroup { ${SETTING} } canMentionGroup { ${SETTING} } canRemoveMembersGroup { groupId }
`;

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

function ids(h: Harness) {
  const store = h.emulator.store;
  return {
    user: h.userId,
    group: (name: string) => store.groupByName(name)!.id,
  };
}

describe('userGroups and userGroup', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const { user, group } = ids(h);

  it('lists groups with members, subgroups and settings for two upstream requests', async () => {
    h.resetUpstreamRequests();
    const { data, errors, extensions } = await h.gql<{ userGroups: GqlGroup[] }>(`{ userGroups { ${GROUP_FIELDS} } }`, {}, { as: EMAIL('hamlet') });
    expect(errors).toBeUndefined();
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET user_groups', 'GET users']);
    expect(extensions).toMatchObject({ upstreamRequests: 2 });
    const byName = new Map(data!.userGroups.map((g) => [g.name, g]));
    const engineers = byName.get('engineers')!;
    expect(engineers).toMatchObject({
      zulipId: group('engineers'),
      description: 'Everyone who ships code',
      memberIds: sorted([user('shiva'), user('hamlet')]),
      subgroupIds: [group('leadership')],
      subgroups: [{ zulipId: group('leadership'), name: 'leadership' }],
      isSystemGroup: false,
      creator: { zulipId: user('iago') },
      deactivated: false,
    });
    expect(engineers.members.map((m) => m.fullName).sort()).toEqual(['King Hamlet', 'Shiva']);
    expect(engineers.allMembers.map((m) => m.zulipId)).toEqual(sorted([user('desdemona'), user('iago'), user('shiva'), user('hamlet')]));
    expect(engineers.dateCreated).toEqual(expect.any(Number));
    // An anonymous group: the creator only.
    expect(engineers.canManageGroup).toMatchObject({ groupId: null, directMemberIds: [user('iago')], directSubgroupIds: [], users: [{ zulipId: user('iago') }], groups: [] });
    // A named group: role:everyone, whose users are everyone active, through subgroups.
    expect(engineers.canMentionGroup).toMatchObject({ groupId: group('role:everyone'), directMemberIds: null, users: [], groups: [{ name: 'role:everyone' }] });
    expect(engineers.canMentionGroup.allUsers).toHaveLength([...h.emulator.store.users.values()].filter((u) => u.is_active).length);
    const owners = byName.get('role:owners')!;
    expect(owners).toMatchObject({ isSystemGroup: true, creator: null, dateCreated: null, memberIds: [user('desdemona')] });
  });

  it('returns one group by ID, and NOT_FOUND for an unknown one', async () => {
    const { data, errors } = await h.gql<{ userGroup: GqlGroup; ghost: GqlGroup | null }>(
      'query($id: Long!) { userGroup(id: $id) { name allMembers { zulipId } } ghost: userGroup(id: 9999) { zulipId } }',
      { id: group('players') },
    );
    expect(data!.userGroup.name).toBe('players');
    expect(data!.userGroup.allMembers.map((m) => m.zulipId)).toEqual(sorted([user('hamlet'), user('cordelia'), user('othello'), user('polonius')]));
    expect(data!.ghost).toBeNull();
    expect(errors![0]).toMatchObject({ path: ['ghost'], extensions: { code: 'NOT_FOUND' } });
  });

  it('maps the guest refusal of the server', async () => {
    const { errors } = await h.gql('{ userGroups { zulipId } }', {}, { as: EMAIL('polonius') });
    expect(errors![0]).toMatchObject({ message: 'Not allowed for guest users', extensions: { code: 'BAD_REQUEST', route: 'get-user-groups' } });
  });
});

const CREATE = /* GraphQL */ `
  mutation(
    $name: String!, $description: String!, $members: [Long!]!, $subgroups: [Long!],
    $canManageGroup: GroupSettingValueInput, $canMentionGroup: GroupSettingValueInput, $canJoinGroup: GroupSettingValueInput
  ) {
    createUserGroup(
      name: $name, description: $description, members: $members, subgroups: $subgroups,
      canManageGroup: $canManageGroup, canMentionGroup: $canMentionGroup, canJoinGroup: $canJoinGroup
    ) { ${GROUP_FIELDS} }
  }
`;

describe('createUserGroup', () => {
  it('creates a group with group-setting values in both forms and returns it', async () => {
    const h = setupHarness();
    const { user, group } = ids(h);
    const { data, errors } = await h.gql<{ createUserGroup: GqlGroup }>(
      CREATE,
      {
        name: 'gravediggers',
        description: 'Alas',
        members: [user('othello')],
        subgroups: [group('players')],
        canManageGroup: { directMembers: [user('cordelia')], directSubgroups: [group('leadership')] },
        canMentionGroup: { groupId: group('role:members') },
      },
      { as: EMAIL('hamlet') },
    );
    expect(errors).toBeUndefined();
    const created = data!.createUserGroup;
    expect(created).toMatchObject({
      name: 'gravediggers',
      description: 'Alas',
      memberIds: [user('othello')],
      subgroupIds: [group('players')],
      creator: { zulipId: user('hamlet') },
      canManageGroup: { groupId: null, directMemberIds: [user('cordelia')], directSubgroupIds: [group('leadership')], groups: [{ name: 'leadership' }] },
      canMentionGroup: { groupId: group('role:members') },
      canJoinGroup: { groupId: group('role:nobody') },
    });
    expect(h.emulator.store.groups.get(created.zulipId)!.name).toBe('gravediggers');
  });

  it('rejects an input with both forms, or neither, without calling the server', async () => {
    const h = setupHarness();
    const { user, group } = ids(h);
    const both = await h.gql(CREATE, { name: 'x', description: '', members: [], canManageGroup: { groupId: group('players'), directMembers: [user('hamlet')] } });
    expect(both.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(both.errors![0]!.message).toContain('canManageGroup');
    const neither = await h.gql(CREATE, { name: 'x', description: '', members: [], canJoinGroup: {} });
    expect(neither.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(h.upstreamRequests).toEqual([]);
  });

  it('maps server refusals: an invalid user ID, a forbidden system group, a duplicate name', async () => {
    const h = setupHarness();
    const { group } = ids(h);
    const before = h.emulator.store.groups.size;
    const invalid = await h.gql(CREATE, { name: 'ghosts', description: '', members: [500] });
    expect(invalid.errors![0]).toMatchObject({ message: 'Invalid user ID: 500', extensions: { code: 'BAD_REQUEST', route: 'create-user-group' } });
    const everyone = await h.gql(CREATE, { name: 'ghosts', description: '', members: [], canManageGroup: { groupId: group('role:everyone') } });
    expect(everyone.errors![0]!.message).toBe("'can_manage_group' setting cannot be set to 'role:everyone' group.");
    const owners = await h.gql(CREATE, { name: 'ghosts', description: '', members: [], canMentionGroup: { groupId: group('role:owners') } });
    expect(owners.errors![0]!.message).toBe("'can_mention_group' setting cannot be set to 'role:owners' group.");
    const dup = await h.gql(CREATE, { name: 'players', description: '', members: [] });
    expect(dup.errors![0]!.extensions).toMatchObject({ code: 'BAD_REQUEST' });
    expect(h.emulator.store.groups.size).toBe(before);
  });
});

const MEMBERS = /* GraphQL */ `
  mutation($groupId: Long!, $add: [Long!], $delete: [Long!], $addSubgroups: [Long!], $deleteSubgroups: [Long!]) {
    updateUserGroupMembers(groupId: $groupId, add: $add, delete: $delete, addSubgroups: $addSubgroups, deleteSubgroups: $deleteSubgroups) {
      zulipId memberIds subgroupIds
    }
  }
`;

describe('updateUserGroupMembers', () => {
  it('adds and removes members and subgroups in one request, returning the group', async () => {
    const h = setupHarness();
    const { user, group } = ids(h);
    const { data, errors } = await h.gql<{ updateUserGroupMembers: GqlGroup }>(
      MEMBERS,
      { groupId: group('players'), add: [user('iago')], delete: [user('othello')], addSubgroups: [group('leadership')] },
      { as: EMAIL('hamlet') },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateUserGroupMembers).toEqual({
      zulipId: group('players'),
      memberIds: sorted([user('hamlet'), user('cordelia'), user('polonius'), user('iago')]),
      subgroupIds: [group('leadership')],
    });
    const posts = h.upstreamRequests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posts).toEqual([`user_groups/${group('players')}/members`]);
    const removed = await h.gql<{ updateUserGroupMembers: GqlGroup }>(MEMBERS, { groupId: group('players'), deleteSubgroups: [group('leadership')] }, { as: EMAIL('hamlet') });
    expect(removed.data!.updateUserGroupMembers.subgroupIds).toEqual([]);
  });

  it('maps the errors of the server and applies nothing', async () => {
    const h = setupHarness();
    const { user, group } = ids(h);
    const before = [...h.emulator.store.groupByName('players')!.members];
    const dup = await h.gql(MEMBERS, { groupId: group('players'), add: [user('iago'), user('hamlet')] }, { as: EMAIL('hamlet') });
    expect(dup.errors![0]).toMatchObject({ message: `User ${user('hamlet')} is already a member of this group`, extensions: { code: 'BAD_REQUEST' } });
    const absent = await h.gql(MEMBERS, { groupId: group('players'), delete: [user('iago')] }, { as: EMAIL('hamlet') });
    expect(absent.errors![0]!.message).toBe(`There is no member '${user('iago')}' in this user group`);
    const cycle = await h.gql(MEMBERS, { groupId: group('leadership'), addSubgroups: [group('engineers')] }, { as: EMAIL('iago') });
    expect(cycle.errors![0]!.message).toBe(`User group ${group('leadership')} is already a subgroup of one of the passed subgroups.`);
    const denied = await h.gql(MEMBERS, { groupId: group('leadership'), add: [user('othello')] }, { as: EMAIL('othello') });
    expect(denied.errors![0]!.message).toBe('Insufficient permission');
    expect(h.emulator.store.groupByName('players')!.members).toEqual(before);
  });

  it('refuses an empty change before calling the server', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(MEMBERS, { groupId: ids(h).group('players'), add: [] });
    expect(errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(h.upstreamRequests).toEqual([]);
  });
});

const UPDATE_GROUP = /* GraphQL */ `
  mutation($id: Long!, $name: String, $description: String, $canMentionGroup: GroupSettingUpdateInput) {
    updateUserGroup(id: $id, name: $name, description: $description, canMentionGroup: $canMentionGroup) {
      zulipId name description canMentionGroup { groupId }
    }
  }
`;

describe('updateUserGroup', () => {
  it('renames a group and changes a setting guarded by its old value', async () => {
    const h = setupHarness();
    const { group } = ids(h);
    const players = group('players');
    const { data, errors } = await h.gql(
      UPDATE_GROUP,
      { id: players, name: 'cast', description: 'Everyone on stage', canMentionGroup: { new: { groupId: group('role:members') }, old: { groupId: group('role:everyone') } } },
      { as: EMAIL('hamlet') },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ updateUserGroup: { zulipId: players, name: 'cast', description: 'Everyone on stage', canMentionGroup: { groupId: group('role:members') } } });
  });

  it('maps a stale old value and validates the input first', async () => {
    const h = setupHarness();
    const { group } = ids(h);
    const stale = await h.gql(UPDATE_GROUP, { id: group('players'), canMentionGroup: { new: { groupId: group('role:members') }, old: { groupId: group('role:owners') } } }, { as: EMAIL('hamlet') });
    expect(stale.errors![0]).toMatchObject({ message: "'old' value does not match the expected value.", extensions: { code: 'BAD_REQUEST' } });
    h.resetUpstreamRequests();
    const nothing = await h.gql(UPDATE_GROUP, { id: group('players') }, { as: EMAIL('hamlet') });
    expect(nothing.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const bad = await h.gql(UPDATE_GROUP, { id: group('players'), canMentionGroup: { new: {} } }, { as: EMAIL('hamlet') });
    expect(bad.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('subgroup changes by feature level', () => {
  const posts = (h: Harness) => h.upstreamRequests.filter((r) => r.method === 'POST').map((r) => r.path);
  /** updateUserGroupMembers as hamlet. */
  const updateMembers = (h: Harness, variables: Record<string, unknown>) =>
    h.gql<{ updateUserGroupMembers: GqlGroup }>(MEMBERS, variables, { as: EMAIL('hamlet') });
  /** createUserGroup as hamlet: `gravediggers`, with othello and the players subgroup. */
  const createGravediggers = (h: Harness) => {
    const { user, group } = ids(h);
    return h.gql<{ createUserGroup: GqlGroup }>(
      CREATE,
      { name: 'gravediggers', description: 'Alas', members: [user('othello')], subgroups: [group('players')] },
      { as: EMAIL('hamlet') },
    );
  };

  it('from feature level 311: users and subgroups in one members request', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 372 } });
    const { user, group } = ids(h);
    const [players, leadership] = [group('players'), group('leadership')];
    const only = await updateMembers(h, { groupId: players, addSubgroups: [leadership] });
    expect(only.errors).toBeUndefined();
    expect(only.data!.updateUserGroupMembers.subgroupIds).toEqual([leadership]);
    expect(posts(h)).toEqual([`user_groups/${players}/members`]);
    h.resetUpstreamRequests();
    const both = await updateMembers(h, { groupId: players, add: [user('iago')], deleteSubgroups: [leadership] });
    expect(both.errors).toBeUndefined();
    expect(both.data!.updateUserGroupMembers).toMatchObject({ subgroupIds: [] });
    expect(both.data!.updateUserGroupMembers.memberIds).toContain(user('iago'));
    expect(posts(h)).toEqual([`user_groups/${players}/members`]);
  });

  it('below 311: subgroups through POST /user_groups/{id}/subgroups, the members request only for users', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 310 } });
    const { user, group } = ids(h);
    const [players, leadership] = [group('players'), group('leadership')];
    // A subgroup-only change: one request, to the subgroups endpoint (the members endpoint would
    // answer "Nothing to do", as an older server does).
    const only = await updateMembers(h, { groupId: players, addSubgroups: [leadership] });
    expect(only.errors).toBeUndefined();
    expect(only.data!.updateUserGroupMembers.subgroupIds).toEqual([leadership]);
    expect(posts(h)).toEqual([`user_groups/${players}/subgroups`]);
    expect(h.emulator.store.groups.get(players)!.direct_subgroup_ids).toEqual([leadership]);
    h.resetUpstreamRequests();
    const both = await updateMembers(h, { groupId: players, add: [user('iago')], deleteSubgroups: [leadership] });
    expect(both.errors).toBeUndefined();
    expect(both.data!.updateUserGroupMembers.subgroupIds).toEqual([]);
    expect(both.data!.updateUserGroupMembers.memberIds).toContain(user('iago'));
    expect(posts(h)).toEqual([`user_groups/${players}/members`, `user_groups/${players}/subgroups`]);
    // The members request carried no subgroup parameters for the server to ignore.
    h.resetUpstreamRequests();
    const usersOnly = await h.gql(MEMBERS, { groupId: players, delete: [user('iago')] }, { as: EMAIL('hamlet') });
    expect(usersOnly.errors).toBeUndefined();
    expect(posts(h)).toEqual([`user_groups/${players}/members`]);
  });

  it('below 311: createUserGroup adds the subgroups once the group exists, after checking them', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 310 } });
    const { group } = ids(h);
    const created = await createGravediggers(h);
    expect(created.errors).toBeUndefined();
    expect(created.data!.createUserGroup).toMatchObject({ name: 'gravediggers', subgroupIds: [group('players')] });
    const id = created.data!.createUserGroup.zulipId;
    expect(posts(h)).toEqual(['user_groups/create', `user_groups/${id}/subgroups`]);

    h.resetUpstreamRequests();
    const before = h.emulator.store.groups.size;
    const unknown = await h.gql(CREATE, { name: 'ghosts', description: '', members: [], subgroups: [9999] }, { as: EMAIL('hamlet') });
    expect(unknown.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'subgroups' });
    expect(posts(h)).toEqual([]);
    expect(h.emulator.store.groups.size).toBe(before);
  });

  it('from 311: createUserGroup sends the subgroups with the creation', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 311 } });
    const { group } = ids(h);
    const created = await createGravediggers(h);
    expect(created.errors).toBeUndefined();
    expect(created.data!.createUserGroup.subgroupIds).toEqual([group('players')]);
    expect(posts(h)).toEqual(['user_groups/create']);
  });

  it('below 127: UNSUPPORTED_BY_SERVER before any change, users alone still work', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 126 } });
    const { user, group } = ids(h);
    const players = group('players');
    const { data, errors } = await h.gql(MEMBERS, { groupId: players, add: [user('iago')], addSubgroups: [group('leadership')] }, { as: EMAIL('hamlet') });
    expect(data).toBeNull();
    expect(errors![0]!.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 127, featureLevel: 126 });
    expect(posts(h)).toEqual([]);
    const create = await h.gql(CREATE, { name: 'x', description: '', members: [], subgroups: [players] }, { as: EMAIL('hamlet') });
    expect(create.errors![0]!.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 127 });
    expect(posts(h)).toEqual([]);
    const usersOnly = await h.gql(MEMBERS, { groupId: players, add: [user('iago')] }, { as: EMAIL('hamlet') });
    expect(usersOnly.errors).toBeUndefined();
    expect(posts(h)).toEqual([`user_groups/${players}/members`]);
  });
});
