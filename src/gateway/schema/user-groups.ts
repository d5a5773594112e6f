/**
 * User groups: the `UserGroup` type (backed by the wire group of `GET /user_groups`), the
 * `userGroups` / `userGroup` / `userGroupMembers` / `userGroupSubgroups` / `isUserGroupMember`
 * queries and the `createUserGroup`, `updateUserGroup`, `updateUserGroupMembers` and
 * `deactivateUserGroup` mutations. https://zulip.com/api/get-user-groups
 */
import type { GroupSettingValue, UserGroup, UserGroupSettingName } from '../../zulip/model/user-groups.js';
import {
  createUserGroup,
  deactivateUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroupSubgroups,
  getUserGroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
  type UserGroupSettings,
} from '../../zulip/routes/user-groups.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput, notFoundError } from '../errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../upstream/feature-level.js';
import {
  GroupSettingUpdateInput,
  GroupSettingValueInput,
  GroupSettingValueRef,
  groupSettingUserIds,
  loadUserGroups,
  loadUsers,
  toWireGroupSettingUpdate,
  toWireGroupSettingValue,
  type GroupSettingUpdateInputShape,
  type GroupSettingValueInputShape,
} from './group-settings.js';
import { asNode, lookupNodeCost } from './node.js';
import { UserRef } from './users.js';
import { userGroupLookupCost, userLookupCost } from '../upstream/cost.js';

/** The six group-setting fields: GraphQL name, wire name, what it decides. */
const GROUP_SETTINGS = [
  ['canAddMembersGroup', 'can_add_members_group', 'Who may add members to the group.'],
  ['canJoinGroup', 'can_join_group', 'Who may join the group by themselves.'],
  ['canLeaveGroup', 'can_leave_group', 'Who may leave the group by themselves.'],
  ['canManageGroup', 'can_manage_group', 'Who may manage the group (rename it, change members and settings).'],
  ['canMentionGroup', 'can_mention_group', 'Who may mention the group.'],
  ['canRemoveMembersGroup', 'can_remove_members_group', 'Who may remove members from the group.'],
] as const satisfies readonly (readonly [keyof UserGroupSettings<unknown>, UserGroupSettingName, string])[];

export const UserGroupRef = builder.objectRef<UserGroup>('UserGroup');

// Added here rather than in group-settings.ts, so that file need not import this one.
builder.objectField(GroupSettingValueRef, 'groups', (t) =>
  t.field({
    type: [UserGroupRef],
    description: 'The group of the group-ID form, or the direct subgroups of an anonymous group.',
    zulip: { cost: userGroupLookupCost },
    resolve: (value, _args, ctx) => loadUserGroups(ctx, typeof value === 'number' ? [value] : value.direct_subgroups),
  }),
);

UserGroupRef.implement({
  zulip: { entity: { resource: 'UserGroup', id: (group) => group.id } },
  description: 'A group of users (and of other groups). System groups (role:...) follow roles. https://zulip.com/help/user-groups',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The group ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (g) => g.id }),
    name: t.exposeString('name', { description: 'The group name; system groups are named role:<role>.' }),
    description: t.exposeString('description', { description: 'Human-readable description.' }),
    memberIds: t.field({ type: ['Long'], description: 'IDs of the direct members.', resolve: (g) => g.members }),
    members: t.field({
      type: [UserRef],
      description: 'The direct members (users the caller cannot see are left out).',
      zulip: { cost: userLookupCost },
      resolve: (g, _args, ctx) => loadUsers(ctx, g.members),
    }),
    allMembers: t.field({
      type: [UserRef],
      description: 'Every member, through subgroups at any depth.',
      zulip: { cost: { perBatch: 1, once: { key: 'user groups', calls: 1 }, directory: true } },
      resolve: async (g, _args, ctx) => loadUsers(ctx, await groupSettingUserIds(ctx, g.id)),
    }),
    subgroupIds: t.field({
      type: ['Long'],
      description: 'IDs of the direct subgroups.',
      resolve: (g) => g.direct_subgroup_ids,
    }),
    subgroups: t.field({
      zulip: { cost: userGroupLookupCost },
      type: [UserGroupRef],
      description: 'The direct subgroups.',
      resolve: (g, _args, ctx) => loadUserGroups(ctx, g.direct_subgroup_ids),
    }),
    isSystemGroup: t.exposeBoolean('is_system_group', {
      description: 'Whether this is a system group, which users cannot modify.',
    }),
    dateCreated: t.field({
      type: 'Long',
      nullable: true,
      description: 'When the group was created (UNIX seconds); null for system groups and when unknown.',
      resolve: (g) => g.date_created ?? null,
    }),
    creator: t.field({
      zulip: { cost: userLookupCost },
      type: UserRef,
      nullable: true,
      description: 'Who created the group; null when unknown or not visible.',
      resolve: async (g, _args, ctx) => (g.creator_id == null ? null : ((await loadUsers(ctx, [g.creator_id]))[0] ?? null)),
    }),
    deactivated: t.boolean({
      description: 'Whether the group is deactivated.',
      resolve: (g) => g.deactivated ?? false,
    }),
    ...Object.fromEntries(
      GROUP_SETTINGS.map(([field, wire, description]) => [
        field,
        t.field({
          type: GroupSettingValueRef,
          nullable: true,
          description: `${description} Null when the server does not report it.`,
          resolve: (g) => g[wire] ?? null,
        }),
      ]),
    ) as Record<(typeof GROUP_SETTINGS)[number][0], ReturnType<typeof t.field>>,
  }),
});

/** Loads every group fresh (after a change) and replaces what this request's loader cached. */
async function freshGroups(ctx: Context, includeDeactivatedGroups = false): Promise<UserGroup[]> {
  const { user_groups } = await getUserGroups(ctx.connection, { includeDeactivatedGroups });
  for (const group of user_groups) ctx.loaders.userGroups.clear(group.id).prime(group.id, group);
  return user_groups;
}

async function freshGroup(ctx: Context, groupId: number): Promise<UserGroup> {
  const group = (await freshGroups(ctx, true)).find((g) => g.id === groupId);
  if (!group) throw notFoundError(`No user group with ID ${groupId} exists or is visible to you.`);
  return group;
}

// ---- queries -------------------------------------------------------------------------------------

asNode(UserGroupRef, { key: (g) => g.id, load: (id, ctx) => ctx.loaders.userGroups.load(id), cost: lookupNodeCost });

builder.queryField('userGroups', (t) =>
  t.field({
    zulip: { reaches: ['get-user-groups'], live: ['UserGroups'] },
    type: [UserGroupRef],
    nullable: true,
    description: 'Every user group of the organization, system groups included. One upstream request.',
    args: {
      includeDeactivated: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: 'Include deactivated groups.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const groups = await freshGroups(ctx, args.includeDeactivated ?? false);
      return groups.filter((g) => args.includeDeactivated || !g.deactivated);
    },
  }),
);

builder.queryField('userGroup', (t) =>
  t.field({
    zulip: { reaches: ['get-user-groups'], live: ['UserGroups'] },
    type: UserGroupRef,
    nullable: true,
    description: 'One user group by ID; null with a NOT_FOUND error when it does not exist.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The group ID.' }) },
    resolve: (_root, args, ctx) => ctx.loaders.userGroups.load(args.id),
  }),
);

// ---- mutations -----------------------------------------------------------------------------------

/**
 * Where subgroup changes go on this server: the members endpoint (and `subgroups` of creation)
 * from feature level 311, the dedicated subgroups endpoint before; older servers than 127 have no
 * subgroups at all. Chosen by level, because an older server does not fail on the newer
 * parameters: it ignores them.
 */
async function subgroupRoute(ctx: Context): Promise<'members' | 'subgroups'> {
  await requireFeatureLevel(ctx, featureLevels.groupSubgroups, 'Changing the subgroups of a user group');
  return (await getFeatureLevel(ctx)) >= featureLevels.groupSubgroupsOnMembers ? 'members' : 'subgroups';
}

/**
 * Before a creation that takes two requests: refuses subgroup IDs the second would refuse
 * (unknown or deactivated groups), so that the group is not created without them.
 */
async function checkSubgroupsExist(ctx: Context, ids: readonly number[]): Promise<void> {
  const active = new Set((await freshGroups(ctx)).filter((g) => !g.deactivated).map((g) => g.id));
  const unknown = ids.filter((id) => !active.has(id));
  if (unknown.length > 0) {
    throw badInput(`createUserGroup: no active user group with ID ${unknown.join(', ')}.`, { argument: 'subgroups' });
  }
}

function settingValues(args: Partial<Record<(typeof GROUP_SETTINGS)[number][0], GroupSettingValueInputShape | null>>) {
  const out: UserGroupSettings<GroupSettingValue> = {};
  for (const [field] of GROUP_SETTINGS) {
    const value = args[field];
    if (value != null) out[field] = toWireGroupSettingValue(value, field);
  }
  return out;
}

function settingUpdates(args: Partial<Record<(typeof GROUP_SETTINGS)[number][0], GroupSettingUpdateInputShape | null>>) {
  const out: UserGroupSettings<ReturnType<typeof toWireGroupSettingUpdate>> = {};
  for (const [field] of GROUP_SETTINGS) {
    const value = args[field];
    if (value != null) out[field] = toWireGroupSettingUpdate(value, field);
  }
  return out;
}

builder.mutationField('createUserGroup', (t) =>
  t.field({
    zulip: { reaches: ['create-user-group'], writes: ['user_group'] },
    type: UserGroupRef,
    description: 'Creates a user group and returns it.',
    args: {
      name: t.arg.string({ required: true, description: 'The group name (unique in the organization).' }),
      description: t.arg.string({ required: true, description: 'The group description.' }),
      members: t.arg({ type: ['Long'], required: true, description: 'User IDs of the initial members.' }),
      subgroups: t.arg({
        type: ['Long'],
        required: false,
        description:
          `Group IDs of the initial subgroups. Needs feature level ${featureLevels.groupSubgroups}; before ` +
          `${featureLevels.groupSubgroupsOnMembers} they are added by a second request once the group exists.`,
      }),
      ...Object.fromEntries(
        GROUP_SETTINGS.map(([field, , description]) => [
          field,
          t.arg({ type: GroupSettingValueInput, required: false, description: `${description} Server default when omitted.` }),
        ]),
      ),
    },
    resolve: async (_root, args, ctx) => {
      const settings = settingValues(args as Parameters<typeof settingValues>[0]);
      const subgroups = args.subgroups != null && args.subgroups.length > 0 ? args.subgroups : undefined;
      const route = subgroups ? await subgroupRoute(ctx) : 'members';
      if (subgroups && route === 'subgroups') await checkSubgroupsExist(ctx, subgroups);
      const result = await createUserGroup(ctx.connection, {
        name: args.name,
        description: args.description,
        members: args.members,
        ...(subgroups && route === 'members' && { subgroups }),
        ...settings,
      });
      let groups = await freshGroups(ctx);
      // Servers older than `group_id` in the response: find the group by its (unique) name.
      const find = () => groups.find((g) => (result.group_id !== undefined ? g.id === result.group_id : g.name === args.name));
      let group = find();
      if (!group) throw notFoundError('The new user group is not visible to you.');
      if (subgroups && route === 'subgroups') {
        // Before feature level 311 creation ignores `subgroups`: add them once the group exists.
        await updateUserGroupSubgroups(ctx.connection, { userGroupId: group.id, add: subgroups });
        groups = await freshGroups(ctx);
        group = find() ?? group;
      }
      return group;
    },
  }),
);

builder.mutationField('updateUserGroup', (t) =>
  t.field({
    zulip: { reaches: ['update-user-group'], writes: ['user_group'] },
    type: UserGroupRef,
    description: 'Renames a group, changes its description or its group-setting values; returns the group.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The group ID.' }),
      name: t.arg.string({ required: false, description: 'New name.' }),
      description: t.arg.string({ required: false, description: 'New description.' }),
      ...Object.fromEntries(
        GROUP_SETTINGS.map(([field, , description]) => [
          field,
          t.arg({ type: GroupSettingUpdateInput, required: false, description: `New value: ${description.toLowerCase()}` }),
        ]),
      ),
    },
    resolve: async (_root, args, ctx) => {
      const updates = settingUpdates(args as Parameters<typeof settingUpdates>[0]);
      if (args.name == null && args.description == null && Object.keys(updates).length === 0) {
        throw badInput('updateUserGroup: give at least one change.');
      }
      await updateUserGroup(ctx.connection, {
        userGroupId: args.id,
        ...(args.name != null && { name: args.name }),
        ...(args.description != null && { description: args.description }),
        ...updates,
      });
      return freshGroup(ctx, args.id);
    },
  }),
);

builder.mutationField('updateUserGroupMembers', (t) =>
  t.field({
    zulip: { reaches: ['update-user-group-members', 'update-user-group-subgroups'], writes: ['user_group'] },
    type: UserGroupRef,
    description:
      'Adds and removes members and subgroups of a group in one request; returns the group. Adding a member ' +
      'twice, removing a non-member, or creating a subgroup cycle fails and changes nothing. Servers before ' +
      `feature level ${featureLevels.groupSubgroupsOnMembers} take users and subgroups in two requests (users first): ` +
      'should the second fail, the users are changed already. Subgroups need feature level ' +
      `${featureLevels.groupSubgroups} (UNSUPPORTED_BY_SERVER below).`,
    args: {
      groupId: t.arg({ type: 'Long', required: true, description: 'The group ID.' }),
      add: t.arg({ type: ['Long'], required: false, description: 'User IDs to add (active users).' }),
      delete: t.arg({ type: ['Long'], required: false, description: 'User IDs to remove.' }),
      addSubgroups: t.arg({ type: ['Long'], required: false, description: 'Group IDs to add as subgroups.' }),
      deleteSubgroups: t.arg({ type: ['Long'], required: false, description: 'Group IDs to remove from the subgroups.' }),
    },
    resolve: async (_root, args, ctx) => {
      const lists = { add: args.add, delete: args.delete, addSubgroups: args.addSubgroups, deleteSubgroups: args.deleteSubgroups };
      const given = Object.fromEntries(Object.entries(lists).filter(([, v]) => v != null && v.length > 0)) as {
        add?: number[];
        delete?: number[];
        addSubgroups?: number[];
        deleteSubgroups?: number[];
      };
      if (Object.keys(given).length === 0) {
        throw badInput('updateUserGroupMembers: give at least one user or group to add or remove.');
      }
      const { addSubgroups, deleteSubgroups, ...users } = given;
      const route = addSubgroups || deleteSubgroups ? await subgroupRoute(ctx) : 'members';
      if (route === 'members') {
        await updateUserGroupMembers(ctx.connection, { userGroupId: args.groupId, ...given });
      } else {
        // Before feature level 311 the members endpoint ignores subgroups: users there (only when
        // there are any), subgroups on their own endpoint.
        if (users.add || users.delete) await updateUserGroupMembers(ctx.connection, { userGroupId: args.groupId, ...users });
        await updateUserGroupSubgroups(ctx.connection, {
          userGroupId: args.groupId,
          ...(addSubgroups && { add: addSubgroups }),
          ...(deleteSubgroups && { delete: deleteSubgroups }),
        });
      }
      return freshGroup(ctx, args.groupId);
    },
  }),
);

// ---- membership queries and deactivation ---------------------------------------------------------

/**
 * What the caller's live directory can answer exactly about a group's membership: the group and
 * its subgroups at any depth (with `direct`, only the group), when the directory is ready and the
 * caller is a human member (guests and bots get the server's refusal), the group is known, none of
 * the groups is deactivated (the server's answer for those is its own), and every member is a user
 * the directory holds. Otherwise undefined: ask the server.
 */
function liveMembership(ctx: Context, groupId: number, direct: boolean): { members: number[]; subgroups: number[] } | undefined {
  const directory = ctx.loaders.directory();
  const groups = directory?.allUserGroups();
  const self = directory?.selfId;
  if (!directory || !groups || self === undefined) return undefined;
  const [caller] = directory.usersById([self]) ?? [];
  if (!caller || caller.is_bot || caller.role === 600) return undefined;
  const byId = new Map(groups.map((g) => [g.id, g]));
  const closure: UserGroup[] = [];
  const seen = new Set<number>();
  let pending = [groupId];
  while (pending.length > 0) {
    const next: number[] = [];
    for (const id of pending) {
      if (seen.has(id)) continue;
      seen.add(id);
      const group = byId.get(id);
      if (!group || group.deactivated) return undefined;
      closure.push(group);
      if (!direct) next.push(...group.direct_subgroup_ids);
    }
    pending = next;
  }
  const ids = [...new Set(closure.flatMap((g) => g.members))];
  const users = directory.usersById(ids);
  if (!users || users.some((u) => u === undefined)) return undefined;
  const members = ids.filter((_, i) => users[i]!.is_active).sort((a, b) => a - b);
  const subgroups = direct ? [...closure[0]!.direct_subgroup_ids] : closure.slice(1).map((g) => g.id);
  return { members, subgroups: subgroups.sort((a, b) => a - b) };
}

const requireMembershipQueries = (ctx: Context) =>
  requireFeatureLevel(ctx, featureLevels.userGroupMembershipQueries, 'Reading a user group\u2019s members or subgroups');

interface MemberList {
  groupId: number;
  userIds: number[];
}

const UserGroupMembersRef = builder.objectRef<MemberList>('UserGroupMembers').implement({
  description: 'The members of a user group (active users only).',
  fields: (t) => ({
    groupId: t.field({ type: 'Long', description: 'The group.', resolve: (m) => m.groupId }),
    group: t.field({ zulip: { cost: userGroupLookupCost }, type: UserGroupRef, description: 'The group (through the group loader).', resolve: (m, _args, ctx) => ctx.loaders.userGroups.load(m.groupId) }),
    userIds: t.field({ type: ['Long'], description: 'The members\u2019 user IDs, ascending.', resolve: (m) => m.userIds }),
    users: t.field({ zulip: { cost: userLookupCost }, type: [UserRef], description: 'The members (users the caller cannot see are left out).', resolve: (m, _args, ctx) => loadUsers(ctx, m.userIds) }),
  }),
});

interface SubgroupList {
  groupId: number;
  subgroupIds: number[];
}

const UserGroupSubgroupsRef = builder.objectRef<SubgroupList>('UserGroupSubgroups').implement({
  description: 'The subgroups of a user group.',
  fields: (t) => ({
    groupId: t.field({ type: 'Long', description: 'The group.', resolve: (m) => m.groupId }),
    group: t.field({ zulip: { cost: userGroupLookupCost }, type: UserGroupRef, description: 'The group (through the group loader).', resolve: (m, _args, ctx) => ctx.loaders.userGroups.load(m.groupId) }),
    subgroupIds: t.field({ type: ['Long'], description: 'The subgroups\u2019 IDs, ascending.', resolve: (m) => m.subgroupIds }),
    subgroups: t.field({ zulip: { cost: userGroupLookupCost }, type: [UserGroupRef], description: 'The subgroups (through the group loader).', resolve: (m, _args, ctx) => loadUserGroups(ctx, m.subgroupIds) }),
  }),
});

const COST = 'From the caller\u2019s live directory when it is ready (no upstream call), else one call.';

builder.queryFields((t) => ({
  userGroupMembers: t.field({
    zulip: { reaches: ['get-user-group-members'], live: ['UserGroups', 'Users'] },
    type: UserGroupMembersRef,
    description: `The members of a user group, through its subgroups unless directOnly. ${COST} Feature level ${featureLevels.userGroupMembershipQueries}; an unknown group is BAD_REQUEST.`,
    args: {
      groupId: t.arg({ type: 'Long', required: true, description: 'The group.' }),
      directOnly: t.arg.boolean({ required: false, defaultValue: false, description: 'Only direct members.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireMembershipQueries(ctx);
      const direct = args.directOnly ?? false;
      const live = liveMembership(ctx, args.groupId, direct);
      const userIds = live?.members ?? (await getUserGroupMembers(ctx.connection, { userGroupId: args.groupId, directMemberOnly: direct })).members;
      return { groupId: args.groupId, userIds };
    },
  }),
  userGroupSubgroups: t.field({
    zulip: { reaches: ['get-user-group-subgroups'], live: ['UserGroups'] },
    type: UserGroupSubgroupsRef,
    description: `The subgroups of a user group, at any depth unless directOnly. ${COST} Feature level ${featureLevels.userGroupMembershipQueries}.`,
    args: {
      groupId: t.arg({ type: 'Long', required: true, description: 'The group.' }),
      directOnly: t.arg.boolean({ required: false, defaultValue: false, description: 'Only direct subgroups.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireMembershipQueries(ctx);
      const direct = args.directOnly ?? false;
      const live = liveMembership(ctx, args.groupId, direct);
      const subgroupIds = live?.subgroups ?? (await getUserGroupSubgroups(ctx.connection, { userGroupId: args.groupId, directSubgroupOnly: direct })).subgroups;
      return { groupId: args.groupId, subgroupIds };
    },
  }),
  isUserGroupMember: t.boolean({
    zulip: { reaches: ['get-is-user-group-member'], live: ['UserGroups', 'Users'] },
    description: `Whether a user is a member of a user group, through its subgroups unless directOnly. ${COST} Feature level ${featureLevels.userGroupMembershipQueries}; an unknown or deactivated user is BAD_REQUEST.`,
    args: {
      groupId: t.arg({ type: 'Long', required: true, description: 'The group.' }),
      userId: t.arg({ type: 'Long', required: true, description: 'The user.' }),
      directOnly: t.arg.boolean({ required: false, defaultValue: false, description: 'Only direct membership counts.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireMembershipQueries(ctx);
      const direct = args.directOnly ?? false;
      const live = liveMembership(ctx, args.groupId, direct);
      const [target] = ctx.loaders.directory()?.usersById([args.userId]) ?? [];
      if (live && target?.is_active) return live.members.includes(args.userId);
      const { is_user_group_member } = await getIsUserGroupMember(ctx.connection, { userGroupId: args.groupId, userId: args.userId, directMemberOnly: direct });
      return is_user_group_member;
    },
  }),
}));

builder.mutationField('deactivateUserGroup', (t) =>
  t.field({
    zulip: { reaches: ['deactivate-user-group'], writes: ['user_group'], gate: 'deactivate-user-group' },
    type: UserGroupRef,
    description:
      `Deactivates a user group (those who can manage it; feature level ${featureLevels.deactivateUserGroup}). Returns the group. ` +
      'A group still used by a setting or as a subgroup is refused with CANNOT_DEACTIVATE_GROUP_IN_USE and `objections` ' +
      `(BAD_REQUEST before feature level ${featureLevels.groupInUseCode}); system groups with BAD_REQUEST "Insufficient permission".`,
    args: { groupId: t.arg({ type: 'Long', required: true, description: 'The group to deactivate.' }) },
    resolve: async (_root, args, ctx) => {
      await deactivateUserGroup(ctx.connection, { userGroupId: args.groupId });
      return freshGroup(ctx, args.groupId);
    },
  }),
);
