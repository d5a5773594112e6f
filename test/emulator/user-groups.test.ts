/**
 * The emulator's user group endpoints, driven through the REST bindings in
 * src/zulip/routes/user-groups.ts: listing (system groups included), creation with group-setting
 * values and their restrictions, membership and subgroup changes with every permission and
 * consistency rule, renaming, the `user_group` events and the register state.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import type { UserGroup } from '../../src/zulip/model/user-groups.js';
import {
  createUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from '../../src/zulip/routes/user-groups.js';
import { deactivateUser } from '../../src/zulip/routes/users.js';
import { caughtApiError, eventsOf, expectValidResponse, registerEventQueue, setupEmulator } from '../helpers/emulator.js';
import { json, raw } from '../../src/zulip/params.js';

const START = Date.UTC(2026, 0, 1);
const NOW = START / 1000;

/** Group fields newer than the facts fixture (feature level 247), documented at https://zulip.com/api/get-user-groups. */
const NEWER_GROUP_FIELDS = [
  'date_created',
  'creator_id',
  'deactivated',
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_remove_members_group',
];

function setup() {
  const t = setupEmulator({ clock: new ManualClock(START) });
  const group = (name: string) => t.store.groupByName(name)!;
  const system = (name: string) => t.store.systemGroupId(name as 'role:everyone');
  return { ...t, id: t.userId, group, system };
}

/** A group-setting value: a group ID, or an anonymous group of integer lists. */
function isGroupSettingValue(value: unknown): boolean {
  if (Number.isSafeInteger(value)) return true;
  if (!value || typeof value !== 'object') return false;
  const { direct_members: members, direct_subgroups: subgroups, ...rest } = value as Record<string, unknown>;
  const ints = (v: unknown) => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x));
  return Object.keys(rest).length === 0 && ints(members) && ints(subgroups);
}

const registerQueue = (conn: ZulipConnection) => registerEventQueue(conn, ['user_group']);

async function groupsOf(conn: ZulipConnection): Promise<Map<string, UserGroup>> {
  return new Map((await getUserGroups(conn)).user_groups.map((g) => [g.name, g]));
}

describe('GET /user_groups', () => {
  it('lists system and user-defined groups with every documented field', async () => {
    const { as, id, group, system } = setup();
    const body = await getUserGroups(as('hamlet'));
    // The file (feature level 247) types can_mention_group as a group ID; it is a group-setting value since.
    const { user_groups, ...envelope } = body;
    expectValidResponse('GET', '/user_groups', { ...envelope, user_groups: user_groups.map(({ can_mention_group: _c, ...g }) => g) }, NEWER_GROUP_FIELDS);
    for (const g of user_groups) {
      for (const setting of [...NEWER_GROUP_FIELDS.slice(3), 'can_mention_group'] as const) {
        expect(isGroupSettingValue(g[setting as keyof UserGroup]), `${g.name}.${setting}`).toBe(true);
      }
    }
    const byName = new Map(user_groups.map((g) => [g.name, g]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['role:everyone', 'role:members', 'role:owners', 'role:nobody', 'leadership', 'engineers', 'players']));
    expect(byName.get('role:owners')).toMatchObject({ is_system_group: true, members: [id('desdemona')], creator_id: null, date_created: null });
    expect(byName.get('role:administrators')).toMatchObject({ members: [id('iago')], direct_subgroup_ids: [system('role:owners')] });
    expect(byName.get('engineers')).toMatchObject({
      is_system_group: false,
      members: [id('shiva'), id('hamlet')].sort((a, b) => a - b),
      direct_subgroup_ids: [group('leadership').id],
      creator_id: id('iago'),
      deactivated: false,
      can_manage_group: { direct_members: [id('iago')], direct_subgroups: [] },
    });
  });

  it('is not available to guests', async () => {
    const { as } = setup();
    const e = await caughtApiError(getUserGroups(as('polonius')));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Not allowed for guest users', 400]);
  });

  it('leaves deactivated users out of member lists (feature level 303)', async () => {
    const { as, id, group } = setup();
    group('players').members.push(id('lear'));
    await deactivateUser(as('iago'), { userId: id('othello') });
    const players = (await groupsOf(as('hamlet'))).get('players')!;
    expect(players.members).toEqual([id('hamlet'), id('cordelia'), id('polonius')].sort((a, b) => a - b));
    const direct = await getUserGroupMembers(as('hamlet'), { userGroupId: players.id, directMemberOnly: true });
    expect(direct.members).not.toContain(id('othello'));
  });
});

describe('POST /user_groups/create', () => {
  it('creates a group with default settings, answers its ID and announces it to everyone', async () => {
    const { as, id, system, store } = setup();
    const polonius = as('polonius');
    const queue = await registerQueue(polonius);
    const body = await createUserGroup(as('hamlet'), { name: 'gravediggers', description: 'Alas, poor Yorick', members: [id('othello'), id('hamlet')] });
    expectValidResponse('POST', '/user_groups/create', body, ['group_id']);
    expect(body.group_id).toEqual(expect.any(Number));
    const created = (await groupsOf(as('hamlet'))).get('gravediggers')!;
    const expected = {
      id: body.group_id,
      name: 'gravediggers',
      description: 'Alas, poor Yorick',
      members: [id('hamlet'), id('othello')],
      direct_subgroup_ids: [],
      is_system_group: false,
      date_created: NOW,
      creator_id: id('hamlet'),
      deactivated: false,
      can_add_members_group: { direct_members: [id('hamlet')], direct_subgroups: [] },
      can_join_group: system('role:nobody'),
      can_leave_group: system('role:everyone'),
      can_manage_group: { direct_members: [id('hamlet')], direct_subgroups: [] },
      can_mention_group: system('role:everyone'),
      can_remove_members_group: system('role:nobody'),
    };
    expect(created).toEqual(expected);
    expect(await eventsOf(polonius, queue)).toEqual([{ type: 'user_group', op: 'add', group: expected }]);
    expect(store.groups.get(body.group_id!)!.name).toBe('gravediggers');
  });

  it('takes subgroups and group-setting values, normalized as Zulip stores them', async () => {
    const { as, id, group, system } = setup();
    const { group_id } = await createUserGroup(as('hamlet'), {
      name: 'court',
      description: '',
      members: [],
      subgroups: [group('players').id],
      canManageGroup: { direct_members: [id('cordelia')], direct_subgroups: [group('leadership').id] },
      canMentionGroup: { direct_members: [], direct_subgroups: [system('role:members')] },
      canJoinGroup: { direct_members: [], direct_subgroups: [] },
      canLeaveGroup: system('role:members'),
    });
    const court = (await groupsOf(as('hamlet'))).get('court')!;
    expect(court).toMatchObject({
      id: group_id,
      direct_subgroup_ids: [group('players').id],
      can_manage_group: { direct_members: [id('cordelia')], direct_subgroups: [group('leadership').id] },
      can_mention_group: system('role:members'),
      can_join_group: system('role:nobody'),
      can_leave_group: system('role:members'),
    });
  });

  it('answers BAD_REQUEST for an invalid or deactivated user ID and creates nothing', async () => {
    const { as, id, store } = setup();
    const before = store.groups.size;
    const unknown = await caughtApiError(createUserGroup(as('hamlet'), { name: 'ghosts', description: '', members: [id('hamlet'), 500] }));
    expect([unknown.code, unknown.message, unknown.httpStatus]).toEqual(['BAD_REQUEST', 'Invalid user ID: 500', 400]);
    const inactive = await caughtApiError(createUserGroup(as('hamlet'), { name: 'ghosts', description: '', members: [id('lear')] }));
    expect(inactive.message).toBe(`Invalid user ID: ${id('lear')}`);
    expect(store.groups.size).toBe(before);
  });

  it('refuses a duplicate name and reserved prefixes', async () => {
    const { as } = setup();
    const dup = await caughtApiError(createUserGroup(as('hamlet'), { name: 'players', description: '', members: [] }));
    expect([dup.code, dup.message]).toEqual(['BAD_REQUEST', "User group 'players' already exists."]);
    const role = await caughtApiError(createUserGroup(as('hamlet'), { name: 'role:players', description: '', members: [] }));
    expect(role.message).toBe("User group name cannot start with 'role:'.");
    const empty = await caughtApiError(createUserGroup(as('hamlet'), { name: '  ', description: '', members: [] }));
    expect(empty.message).toBe("User group name can't be empty!");
  });

  it('enforces the system groups each setting may not hold', async () => {
    const { as, system, store } = setup();
    const before = store.groups.size;
    const create = (options: Parameters<typeof createUserGroup>[1]) => caughtApiError(createUserGroup(as('hamlet'), options));
    const cases: [Parameters<typeof createUserGroup>[1], string][] = [
      [{ name: 'x', description: '', members: [], canManageGroup: system('role:everyone') }, "'can_manage_group' setting cannot be set to 'role:everyone' group."],
      [{ name: 'x', description: '', members: [], canManageGroup: system('role:internet') }, "'can_manage_group' setting cannot be set to 'role:internet' group."],
      [{ name: 'x', description: '', members: [], canMentionGroup: system('role:owners') }, "'can_mention_group' setting cannot be set to 'role:owners' group."],
      [{ name: 'x', description: '', members: [], canMentionGroup: system('role:internet') }, "'can_mention_group' setting cannot be set to 'role:internet' group."],
      [
        { name: 'x', description: '', members: [], canManageGroup: { direct_members: [], direct_subgroups: [system('role:everyone')] } },
        "'can_manage_group' setting cannot be set to 'role:everyone' group.",
      ],
      [{ name: 'x', description: '', members: [], canAddMembersGroup: 9999 }, 'Invalid user group'],
      [{ name: 'x', description: '', members: [], canJoinGroup: { direct_members: [9999], direct_subgroups: [] } }, 'Invalid user ID: 9999'],
    ];
    for (const [options, message] of cases) {
      const e = await create(options);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
    }
    // Allowed: members may manage, everyone may mention, owners may manage.
    await createUserGroup(as('hamlet'), { name: 'ok', description: '', members: [], canManageGroup: system('role:owners'), canMentionGroup: system('role:everyone') });
    expect(store.groups.size).toBe(before + 1);
  });

  it('requires name, description and members, and is refused to guests', async () => {
    const { as } = setup();
    const missing = await caughtApiError(as('hamlet').request('create-user-group', 'POST', 'user_groups/create', { name: raw('n'), description: raw('d') }));
    expect([missing.code, missing.data]).toEqual(['REQUEST_VARIABLE_MISSING', { var_name: 'members' }]);
    const guest = await caughtApiError(createUserGroup(as('polonius'), { name: 'spies', description: '', members: [] }));
    expect([guest.code, guest.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
  });
});

describe('POST /user_groups/{id}/members', () => {
  it('adds and removes members in one request, with one event each', async () => {
    const { as, id, group } = setup();
    const cordelia = as('cordelia');
    const queue = await registerQueue(cordelia);
    const players = group('players').id;
    const body = await updateUserGroupMembers(as('hamlet'), { userGroupId: players, add: [id('iago'), id('shiva')], delete: [id('othello')] });
    expectValidResponse('POST', `/user_groups/${players}/members`, body);
    expect((await groupsOf(cordelia)).get('players')!.members).toEqual(
      [id('hamlet'), id('cordelia'), id('polonius'), id('iago'), id('shiva')].sort((a, b) => a - b),
    );
    expect(await eventsOf(cordelia, queue)).toEqual([
      { type: 'user_group', op: 'add_members', group_id: players, user_ids: [id('iago'), id('shiva')] },
      { type: 'user_group', op: 'remove_members', group_id: players, user_ids: [id('othello')] },
    ]);
  });

  it('refuses an existing member, a non-member, a deactivated user, and applies nothing of the request', async () => {
    const { as, id, group } = setup();
    const players = group('players');
    const snapshot = [...players.members];
    const dup = await caughtApiError(updateUserGroupMembers(as('hamlet'), { userGroupId: players.id, add: [id('iago'), id('cordelia')] }));
    expect([dup.code, dup.message]).toEqual(['BAD_REQUEST', `User ${id('cordelia')} is already a member of this group`]);
    const absent = await caughtApiError(updateUserGroupMembers(as('hamlet'), { userGroupId: players.id, add: [id('iago')], delete: [id('desdemona')] }));
    expect(absent.message).toBe(`There is no member '${id('desdemona')}' in this user group`);
    const inactive = await caughtApiError(updateUserGroupMembers(as('hamlet'), { userGroupId: players.id, add: [id('lear')] }));
    expect(inactive.message).toBe(`Invalid user ID: ${id('lear')}`);
    expect(players.members).toEqual(snapshot);
  });

  it('checks the group and the permission', async () => {
    const { as, id, group, system } = setup();
    const nothing = await caughtApiError(updateUserGroupMembers(as('hamlet'), { userGroupId: group('players').id }));
    expect(nothing.message).toBe('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    const unknown = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: 9999, add: [id('hamlet')] }));
    expect([unknown.code, unknown.message]).toEqual(['BAD_REQUEST', 'Invalid user group']);
    const systemGroup = await caughtApiError(updateUserGroupMembers(as('desdemona'), { userGroupId: system('role:members'), add: [id('hamlet')] }));
    expect(systemGroup.message).toBe('Insufficient permission');
    // Othello neither manages "leadership" nor may add members to it.
    const denied = await caughtApiError(updateUserGroupMembers(as('othello'), { userGroupId: group('leadership').id, add: [id('othello')] }));
    expect([denied.code, denied.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    // Administrators may change any group.
    await updateUserGroupMembers(as('iago'), { userGroupId: group('players').id, delete: [id('othello')] });
    expect(group('players').members).not.toContain(id('othello'));
  });

  it('lets users join through can_join_group and leave through can_leave_group, but only themselves', async () => {
    const { as, id, group, system } = setup();
    const leadership = group('leadership');
    leadership.can_join_group = system('role:members');
    await updateUserGroupMembers(as('othello'), { userGroupId: leadership.id, add: [id('othello')] });
    expect(leadership.members).toContain(id('othello'));
    const others = await caughtApiError(updateUserGroupMembers(as('hamlet'), { userGroupId: leadership.id, add: [id('hamlet'), id('cordelia')] }));
    expect(others.message).toBe('Insufficient permission');
    // can_leave_group defaults to everyone.
    await updateUserGroupMembers(as('othello'), { userGroupId: leadership.id, delete: [id('othello')] });
    expect(leadership.members).not.toContain(id('othello'));
    const kick = await caughtApiError(updateUserGroupMembers(as('othello'), { userGroupId: leadership.id, delete: [id('iago')] }));
    expect(kick.message).toBe('Insufficient permission');
    leadership.can_remove_members_group = { direct_members: [id('othello')], direct_subgroups: [] };
    await updateUserGroupMembers(as('othello'), { userGroupId: leadership.id, delete: [id('iago')] });
    expect(leadership.members).toEqual([id('desdemona')]);
  });

  it('adds and removes subgroups, and rejects cycles', async () => {
    const { as, group } = setup();
    const hamlet = as('hamlet');
    const queue = await registerQueue(hamlet);
    const [players, leadership, engineers] = [group('players').id, group('leadership').id, group('engineers').id];
    await updateUserGroupMembers(as('iago'), { userGroupId: players, addSubgroups: [leadership] });
    expect(group('players').direct_subgroup_ids).toEqual([leadership]);
    // engineers ⊃ leadership, so leadership may not contain engineers; no group may contain itself.
    const cycle = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: leadership, addSubgroups: [engineers] }));
    expect([cycle.code, cycle.message]).toEqual(['BAD_REQUEST', `User group ${leadership} is already a subgroup of one of the passed subgroups.`]);
    const self = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: players, addSubgroups: [players] }));
    expect(self.message).toBe(`User group ${players} is already a subgroup of one of the passed subgroups.`);
    const again = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: players, addSubgroups: [leadership] }));
    expect(again.message).toBe(`User group ${leadership} is already a subgroup of this group.`);
    const invalid = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: players, addSubgroups: [9999] }));
    expect(invalid.message).toBe('Invalid user group ID: 9999');
    await updateUserGroupMembers(as('iago'), { userGroupId: players, deleteSubgroups: [leadership] });
    const notSub = await caughtApiError(updateUserGroupMembers(as('iago'), { userGroupId: players, deleteSubgroups: [leadership] }));
    expect(notSub.message).toBe(`User group ${leadership} is not a subgroup of this group.`);
    expect(await eventsOf(hamlet, queue)).toEqual([
      { type: 'user_group', op: 'add_subgroups', group_id: players, direct_subgroup_ids: [leadership] },
      { type: 'user_group', op: 'remove_subgroups', group_id: players, direct_subgroup_ids: [leadership] },
    ]);
  });
});

describe('POST /user_groups/{id}/subgroups', () => {
  it('adds and removes subgroups with the same rules', async () => {
    const { as, group } = setup();
    const [players, leadership] = [group('players').id, group('leadership').id];
    const body = await updateUserGroupSubgroups(as('iago'), { userGroupId: players, add: [leadership] });
    expectValidResponse('POST', `/user_groups/${players}/subgroups`, body);
    expect(group('players').direct_subgroup_ids).toEqual([leadership]);
    await updateUserGroupSubgroups(as('iago'), { userGroupId: players, delete: [leadership] });
    expect(group('players').direct_subgroup_ids).toEqual([]);
    const nothing = await caughtApiError(updateUserGroupSubgroups(as('iago'), { userGroupId: players }));
    expect(nothing.message).toBe('Nothing to do. Specify at least one of "add" or "delete".');
    const cycle = await caughtApiError(updateUserGroupSubgroups(as('iago'), { userGroupId: leadership, add: [group('engineers').id] }));
    expect(cycle.code).toBe('BAD_REQUEST');
  });
});

describe('GET /user_groups/{id}/members, /subgroups and /members/{user_id}', () => {
  it('answers members through subgroups unless direct_member_only', async () => {
    const { as, id, group } = setup();
    const engineers = group('engineers').id;
    const all = await getUserGroupMembers(as('hamlet'), { userGroupId: engineers });
    expectValidResponse('GET', `/user_groups/${engineers}/members`, all);
    expect(all.members).toEqual([id('desdemona'), id('iago'), id('shiva'), id('hamlet')].sort((a, b) => a - b));
    expect((await getUserGroupMembers(as('hamlet'), { userGroupId: engineers, directMemberOnly: true })).members).toEqual(
      [id('shiva'), id('hamlet')].sort((a, b) => a - b),
    );
    const unknown = await caughtApiError(getUserGroupMembers(as('hamlet'), { userGroupId: 9999 }));
    expect(unknown.message).toBe('Invalid user group');
  });

  it('answers subgroups at any depth unless direct_subgroup_only', async () => {
    const { as, system } = setup();
    const members = system('role:members');
    const all = await getUserGroupSubgroups(as('hamlet'), { userGroupId: members });
    expectValidResponse('GET', `/user_groups/${members}/subgroups`, all);
    expect(all.subgroups).toEqual(['role:fullmembers', 'role:moderators', 'role:administrators', 'role:owners'].map(system).sort((a, b) => a - b));
    expect((await getUserGroupSubgroups(as('hamlet'), { userGroupId: members, directSubgroupOnly: true })).subgroups).toEqual([system('role:fullmembers')]);
  });

  it('answers whether a user is a member', async () => {
    const { as, id, group } = setup();
    const engineers = group('engineers').id;
    const body = await getIsUserGroupMember(as('hamlet'), { userGroupId: engineers, userId: id('iago') });
    expectValidResponse('GET', `/user_groups/${engineers}/members/${id('iago')}`, body);
    expect(body.is_user_group_member).toBe(true);
    expect((await getIsUserGroupMember(as('hamlet'), { userGroupId: engineers, userId: id('iago'), directMemberOnly: true })).is_user_group_member).toBe(false);
    expect((await caughtApiError(getIsUserGroupMember(as('hamlet'), { userGroupId: engineers, userId: 9999 }))).message).toBe('No such user');
  });
});

describe('PATCH /user_groups/{id}', () => {
  it('renames a group and changes its description and settings, one event per change', async () => {
    const { as, group, system } = setup();
    const othello = as('othello');
    const queue = await registerQueue(othello);
    const players = group('players').id;
    const body = await updateUserGroup(as('hamlet'), {
      userGroupId: players,
      name: 'the players',
      description: 'The whole cast',
      canMentionGroup: { new: system('role:members'), old: system('role:everyone') },
    });
    expectValidResponse('PATCH', `/user_groups/${players}`, body);
    expect(group('the players')).toMatchObject({ id: players, description: 'The whole cast', can_mention_group: system('role:members') });
    expect(await eventsOf(othello, queue)).toEqual([
      { type: 'user_group', op: 'update', group_id: players, data: { name: 'the players' } },
      { type: 'user_group', op: 'update', group_id: players, data: { description: 'The whole cast' } },
      { type: 'user_group', op: 'update', group_id: players, data: { can_mention_group: system('role:members') } },
    ]);
  });

  it('refuses a stale old value, missing data, a duplicate name and non-managers, changing nothing', async () => {
    const { as, group, system } = setup();
    const players = group('players');
    const stale = await caughtApiError(
      updateUserGroup(as('hamlet'), { userGroupId: players.id, name: 'renamed', canMentionGroup: { new: system('role:members'), old: system('role:owners') } }),
    );
    expect([stale.code, stale.message]).toEqual(['BAD_REQUEST', "'old' value does not match the expected value."]);
    expect(players.name).toBe('players');
    expect((await caughtApiError(updateUserGroup(as('hamlet'), { userGroupId: players.id }))).message).toBe('No new data supplied');
    expect((await caughtApiError(updateUserGroup(as('hamlet'), { userGroupId: players.id, name: 'leadership' }))).message).toBe("User group 'leadership' already exists.");
    expect((await caughtApiError(updateUserGroup(as('othello'), { userGroupId: players.id, name: 'mine' }))).message).toBe('Insufficient permission');
    expect((await caughtApiError(updateUserGroup(as('desdemona'), { userGroupId: system('role:members'), name: 'x' }))).message).toBe('Insufficient permission');
    expect(players.name).toBe('players');
  });
});

describe('POST /register realm_user_groups', () => {
  it('returns every active group in the GET /user_groups shape, also to guests', async () => {
    const { as, store } = setup();
    const state = await as('polonius').request<{ realm_user_groups: UserGroup[] }>('register-queue', 'POST', 'register', {
      fetch_event_types: json(['realm_user_groups']),
    });
    expect(state.realm_user_groups.map((g) => g.id)).toEqual([...store.groups.keys()].sort((a, b) => a - b));
    expect(state.realm_user_groups).toEqual((await getUserGroups(as('hamlet'))).user_groups);
  });
});

describe('POST /user_groups/{id}/members subgroups by feature level', () => {
  it('reads add_subgroups / delete_subgroups from feature level 311', async () => {
    const t = setupEmulator({ settings: { featureLevel: 311 } });
    const [players, leadership] = ['players', 'leadership'].map((name) => [...t.store.groups.values()].find((g) => g.name === name)!);
    const nothing = await caughtApiError(updateUserGroupMembers(t.as('desdemona'), { userGroupId: players!.id }));
    expect(nothing.message).toBe('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    const body = await t.as('desdemona').request<Record<string, unknown>>('update-user-group-members', 'POST', `user_groups/${players!.id}/members`, {
      add_subgroups: json([leadership!.id]),
    });
    expect(body.ignored_parameters_unsupported).toBeUndefined();
    expect(players!.direct_subgroup_ids).toContain(leadership!.id);
  });

  it('ignores them below feature level 311, with the older server\'s error when nothing else is asked', async () => {
    const t = setupEmulator({ settings: { featureLevel: 310 } });
    const [players, leadership] = ['players', 'leadership'].map((name) => [...t.store.groups.values()].find((g) => g.name === name)!);
    const before = [...players!.direct_subgroup_ids];
    const only = await caughtApiError(
      t.as('desdemona').request('update-user-group-members', 'POST', `user_groups/${players!.id}/members`, { add_subgroups: json([leadership!.id]) }),
    );
    expect([only.code, only.message]).toEqual(['BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".']);
    const body = await t.as('desdemona').request<Record<string, unknown>>('update-user-group-members', 'POST', `user_groups/${players!.id}/members`, {
      add: json([t.user('iago').user_id]),
      add_subgroups: json([leadership!.id]),
    });
    expect(body.ignored_parameters_unsupported).toEqual(['add_subgroups']);
    expect(players!.direct_subgroup_ids).toEqual(before);
    expect(players!.members).toContain(t.user('iago').user_id);
  });
});

describe('subgroups below feature levels 311 and 127', () => {
  const groupNamed = (t: ReturnType<typeof setupEmulator>, name: string) => [...t.store.groups.values()].find((g) => g.name === name)!;

  it('ignores `subgroups` of POST /user_groups/create below 311, and reads it from 311', async () => {
    for (const [level, expected] of [[310, false], [311, true]] as const) {
      const t = setupEmulator({ settings: { featureLevel: level } });
      const leadership = groupNamed(t, 'leadership').id;
      const body = await t.as('hamlet').request<Record<string, unknown>>('create-user-group', 'POST', 'user_groups/create', {
        name: raw('gravediggers'),
        description: raw('Alas'),
        members: raw(JSON.stringify([t.user('othello').user_id])),
        subgroups: raw(JSON.stringify([leadership])),
      });
      expect(body.ignored_parameters_unsupported, `level ${level}`).toEqual(expected ? undefined : ['subgroups']);
      expect(groupNamed(t, 'gravediggers').direct_subgroup_ids, `level ${level}`).toEqual(expected ? [leadership] : []);
    }
  });

  it('has no /user_groups/{id}/subgroups before 127: 404 as for any unknown path', async () => {
    const t = setupEmulator({ settings: { featureLevel: 126 } });
    const [players, leadership] = [groupNamed(t, 'players'), groupNamed(t, 'leadership')];
    const post = await caughtApiError(updateUserGroupSubgroups(t.as('iago'), { userGroupId: players.id, add: [leadership.id] }));
    expect([post.httpStatus, post.message]).toEqual([404, 'Not Found']);
    const get = await caughtApiError(getUserGroupSubgroups(t.as('iago'), { userGroupId: players.id }));
    expect([get.httpStatus, get.message]).toEqual([404, 'Not Found']);
    expect(players.direct_subgroup_ids).toEqual([]);
  });
});

describe('membership changes as current Zulip checks them (zerver/views/user_groups.py)', () => {
  it('refuses guests before reading anything (@require_member_or_admin), on every endpoint that changes a group', async () => {
    const { as, id, group } = setup();
    const players = group('players');
    // Polonius is a member of "players" and could leave it through can_leave_group, were he not a guest.
    const leave = await caughtApiError(updateUserGroupMembers(as('polonius'), { userGroupId: players.id, delete: [id('polonius')] }));
    expect([leave.code, leave.message]).toEqual(['BAD_REQUEST', 'Not allowed for guest users']);
    const nothing = await caughtApiError(updateUserGroupMembers(as('polonius'), { userGroupId: players.id }));
    expect(nothing.message).toBe('Not allowed for guest users');
    const subgroups = await caughtApiError(updateUserGroupSubgroups(as('polonius'), { userGroupId: players.id, add: [group('leadership').id] }));
    expect(subgroups.message).toBe('Not allowed for guest users');
    // PATCH /user_groups/{id} (edit_user_group) too, before "No new data supplied".
    expect((await caughtApiError(updateUserGroup(as('polonius'), { userGroupId: players.id }))).message).toBe('Not allowed for guest users');
    expect(players.members).toContain(id('polonius'));
  });

  it('removes subgroups only with can_manage_group, not can_remove_members_group', async () => {
    const { as, id, group } = setup();
    const [players, leadership] = [group('players'), group('leadership')];
    players.direct_subgroup_ids.push(leadership.id);
    players.can_remove_members_group = { direct_members: [id('othello')], direct_subgroups: [] };
    const denied = await caughtApiError(updateUserGroupSubgroups(as('othello'), { userGroupId: players.id, delete: [leadership.id] }));
    expect(denied.message).toBe('Insufficient permission');
    const viaMembers = await caughtApiError(updateUserGroupMembers(as('othello'), { userGroupId: players.id, deleteSubgroups: [leadership.id] }));
    expect(viaMembers.message).toBe('Insufficient permission');
    expect(players.direct_subgroup_ids).toEqual([leadership.id]);
    // The same setting still lets him remove users.
    await updateUserGroupMembers(as('othello'), { userGroupId: players.id, delete: [id('cordelia')] });
    expect(players.members).not.toContain(id('cordelia'));
  });

  it('changes the members and subgroups of a deactivated group (allow_deactivated=True)', async () => {
    const { as, id, group } = setup();
    const [players, leadership] = [group('players'), group('leadership')];
    players.deactivated = true;
    await updateUserGroupMembers(as('iago'), { userGroupId: players.id, add: [id('iago')], addSubgroups: [leadership.id] });
    await updateUserGroupSubgroups(as('iago'), { userGroupId: players.id, delete: [leadership.id] });
    expect(players.members).toContain(id('iago'));
    expect(players.direct_subgroup_ids).toEqual([]);
  });
});
