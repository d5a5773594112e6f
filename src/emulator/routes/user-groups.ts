/**
 * User groups: `GET /user_groups` (https://zulip.com/api/get-user-groups), `POST /user_groups/create`
 * (https://zulip.com/api/create-user-group), `PATCH /user_groups/{id}`
 * (https://zulip.com/api/update-user-group), `POST` and `GET /user_groups/{id}/members`
 * (https://zulip.com/api/update-user-group-members, https://zulip.com/api/get-user-group-members),
 * `GET /user_groups/{id}/members/{user_id}` (https://zulip.com/api/get-is-user-group-member),
 * `POST` and `GET /user_groups/{id}/subgroups` (https://zulip.com/api/update-user-group-subgroups,
 * https://zulip.com/api/get-user-group-subgroups), their `user_group` events and the
 * `realm_user_groups` register state.
 *
 * Deactivated users are left out of every member list (feature level 303); their stored membership
 * is kept, so a reactivated user is a member again.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { UserGroup as WireUserGroup, UserGroupSettingName } from '../../zulip/model/user-groups.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest, insufficientPermission } from '../errors.js';
import { groupSettingsEqual, parseGroupSettingValue } from '../group-settings.js';
import { checkNoNullBytes } from '../http.js';
import { addGroup } from '../factory.js';
import { CHANNEL_PERMISSION_SETTINGS, type GroupSettingValue, type Store, type User, type UserGroup } from '../store.js';
import { activeUserIds } from './users/index.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

export const USER_GROUP_SETTINGS: readonly UserGroupSettingName[] = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
];

/** System groups each setting may not be set to (Zulip's GroupPermissionSetting for user groups). */
const DISALLOWED_SYSTEM_GROUPS: Record<UserGroupSettingName, readonly string[]> = {
  can_add_members_group: ['role:internet'],
  can_join_group: ['role:internet'],
  can_leave_group: ['role:internet'],
  can_manage_group: ['role:internet', 'role:everyone'],
  can_mention_group: ['role:internet', 'role:owners'],
  can_remove_members_group: ['role:internet'],
};

const MAX_NAME_LENGTH = 100;
const MAX_DESCRIPTION_LENGTH = 1024;
const INVALID_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

// ---- serialization -----------------------------------------------------------------------------

const byId = (a: number, b: number) => a - b;

function isActiveUser(store: Store, id: number): boolean {
  return store.users.get(id)?.is_active === true;
}

/** Direct members as clients see them: active users only (feature level 303). */
export function activeDirectMembers(store: Store, group: UserGroup): number[] {
  return store.groupDirectMembers(group).filter((id) => isActiveUser(store, id)).sort(byId);
}

/** A group-setting value as the API returns it (a copy, deactivated users left out). */
export function serializeGroupSetting(store: Store, value: GroupSettingValue): GroupSettingValue {
  if (typeof value === 'number') return value;
  return {
    direct_members: value.direct_members.filter((id) => isActiveUser(store, id)).sort(byId),
    direct_subgroups: [...value.direct_subgroups].sort(byId),
  };
}

/** A group as `GET /user_groups` and `user_group` add events carry it. */
export function serializeGroup(store: Store, group: UserGroup): WireUserGroup {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    members: activeDirectMembers(store, group),
    direct_subgroup_ids: [...group.direct_subgroup_ids].sort(byId),
    is_system_group: group.is_system_group,
    date_created: group.date_created,
    creator_id: group.creator_id,
    deactivated: group.deactivated,
    ...Object.fromEntries(USER_GROUP_SETTINGS.map((s) => [s, serializeGroupSetting(store, group[s])])),
  };
}

/** Every subgroup below `groupId` (not the group itself), cycle-safe. */
function recursiveSubgroups(store: Store, groupId: number): Set<number> {
  const found = new Set<number>();
  const pending = [...(store.groups.get(groupId)?.direct_subgroup_ids ?? [])];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (found.has(id)) continue;
    found.add(id);
    pending.push(...(store.groups.get(id)?.direct_subgroup_ids ?? []));
  }
  return found;
}

// ---- access and validation ---------------------------------------------------------------------

/** Zulip's require_member_or_admin. */
function requireMember(user: User): void {
  if (user.role === 600) throw badRequest('Not allowed for guest users');
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

function accessGroup(store: Store, groupId: number): UserGroup {
  const group = store.groups.get(groupId);
  if (!group) throw badRequest('Invalid user group');
  return group;
}

/**
 * A group whose members or subgroups the caller wants to change: not a system group. Deactivated
 * groups are allowed, as Zulip's access_user_group_for_update(allow_deactivated=True) does for
 * membership changes (zerver/views/user_groups.py, zerver/lib/user_groups.py).
 */
function accessGroupForMembership(store: Store, groupId: number): UserGroup {
  const group = accessGroup(store, groupId);
  if (group.is_system_group) throw insufficientPermission();
  return group;
}

function holds(store: Store, user: User, value: GroupSettingValue): boolean {
  return store.userHasGroupSetting(user.user_id, value);
}

function canManage(store: Store, user: User, group: UserGroup): boolean {
  return store.isAdmin(user) || holds(store, user, group.can_manage_group);
}

/** Zulip's access_user_group_for_update(permission_setting="can_add_members_group"), as invitations use it. */
export function accessGroupToAddMembers(store: Store, user: User, groupId: number): UserGroup {
  const group = accessGroupForMembership(store, groupId);
  if (!canManage(store, user, group) && !holds(store, user, group.can_add_members_group)) throw insufficientPermission();
  return group;
}

function checkGroupName(store: Store, raw: string, except?: UserGroup): string {
  const name = checkNoNullBytes('name', raw);
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if (name.length > MAX_NAME_LENGTH) throw badRequest(`User group name cannot exceed ${MAX_NAME_LENGTH} characters.`);
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  const existing = store.groupByName(name);
  if (existing && existing !== except) throw badRequest(`User group '${name}' already exists.`);
  return name;
}

function checkDescription(raw: string): string {
  const description = checkNoNullBytes('description', raw);
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw badRequest(`description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
  }
  return description;
}

/** User IDs that must name active users ("Invalid user ID" otherwise, as Zulip's user_ids_to_users). */
function checkActiveUsers(store: Store, ids: number[]): number[] {
  for (const id of ids) if (!isActiveUser(store, id)) throw badRequest(`Invalid user ID: ${id}`);
  return [...new Set(ids)];
}

function checkSubgroupIds(store: Store, ids: number[]): number[] {
  for (const id of ids) {
    const group = store.groups.get(id);
    if (!group || group.deactivated) throw badRequest(`Invalid user group ID: ${id}`);
  }
  return [...new Set(ids)];
}

/** A group-setting value for a user-group permission, validated and normalized (group-settings.ts). */
export function parseUserGroupSetting(
  store: Store,
  setting: UserGroupSettingName,
  raw: unknown,
  { restrict = true }: { restrict?: boolean } = {},
): GroupSettingValue {
  const rule = restrict ? { disallowed: DISALLOWED_SYSTEM_GROUPS[setting], eachSubgroup: true } : undefined;
  return parseGroupSettingValue(store, setting, raw, rule);
}

// ---- reads -------------------------------------------------------------------------------------

function getUserGroups(ctx: RouteContext) {
  requireMember(ctx.user);
  const includeDeactivated = ctx.params.bool('include_deactivated_groups', false);
  const groups = [...ctx.store.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => serializeGroup(ctx.store, g));
  return { user_groups: groups };
}

function getUserGroupMembers(ctx: RouteContext) {
  requireMember(ctx.user);
  const group = accessGroup(ctx.store, ctx.pathInt('user_group_id'));
  const direct = ctx.params.bool('direct_member_only', false);
  const members = direct
    ? activeDirectMembers(ctx.store, group)
    : [...ctx.store.groupMembersRecursive(group.id)].filter((id) => isActiveUser(ctx.store, id)).sort(byId);
  return { members };
}

function getIsUserGroupMember(ctx: RouteContext) {
  requireMember(ctx.user);
  const { store } = ctx;
  const group = accessGroup(store, ctx.pathInt('user_group_id'));
  const target = store.users.get(ctx.pathInt('user_id'));
  if (!target) throw badRequest('No such user');
  if (!target.is_active) throw badRequest('User is deactivated');
  const direct = ctx.params.bool('direct_member_only', false);
  const member = direct ? activeDirectMembers(store, group).includes(target.user_id) : store.groupMembersRecursive(group.id).has(target.user_id);
  return { is_user_group_member: member };
}

function getUserGroupSubgroups(ctx: RouteContext) {
  requireMember(ctx.user);
  const group = accessGroup(ctx.store, ctx.pathInt('user_group_id'));
  const direct = ctx.params.bool('direct_subgroup_only', false);
  const subgroups = direct ? [...group.direct_subgroup_ids] : [...recursiveSubgroups(ctx.store, group.id)];
  return { subgroups: subgroups.filter((id) => id !== group.id).sort(byId) };
}

// ---- create and update -------------------------------------------------------------------------

function createUserGroup(ctx: RouteContext) {
  const { store, user, params } = ctx;
  if (store.isGuest(user)) throw insufficientPermission();
  const name = checkGroupName(store, params.str('name'));
  const description = checkDescription(params.str('description'));
  const members = checkActiveUsers(store, params.intArray('members'));
  // Below level 311 `subgroups` is not read: it comes back in ignored_parameters_unsupported.
  // TODO(server-10): groupSubgroupsOnMembers (311); drop the older branch once every supported server has it.
  const subgroupsRaw = ctx.settings.featureLevel >= featureLevels.groupSubgroupsOnMembers ? params.optIntArray('subgroups') : undefined;
  const subgroups = checkSubgroupIds(store, subgroupsRaw ?? []);
  const creatorOnly: GroupSettingValue = { direct_members: [user.user_id], direct_subgroups: [] };
  const defaults: Record<UserGroupSettingName, GroupSettingValue> = {
    can_add_members_group: creatorOnly,
    can_join_group: store.systemGroupId('role:nobody'),
    can_leave_group: store.systemGroupId('role:everyone'),
    can_manage_group: creatorOnly,
    can_mention_group: store.systemGroupId('role:everyone'),
    can_remove_members_group: store.systemGroupId('role:nobody'),
  };
  const settings = { ...defaults };
  for (const setting of USER_GROUP_SETTINGS) {
    const raw = params.optJson<unknown>(setting);
    if (raw !== undefined) settings[setting] = parseUserGroupSetting(store, setting, raw);
  }
  const group = addGroup(
    store,
    {
      name,
      description,
      members,
      direct_subgroup_ids: subgroups,
      creator_id: user.user_id,
      date_created: ctx.nowSeconds(),
      ...structuredClone(settings),
    },
    ctx.clock.now(),
  );
  ctx.events.notify(activeUserIds(store), { type: 'user_group', op: 'add', group: serializeGroup(store, group) });
  return { group_id: group.id };
}

function updateUserGroup(ctx: RouteContext) {
  // edit_user_group is @require_member_or_admin, checked before the parameters.
  requireMember(ctx.user);
  const { store, user, params } = ctx;
  const group = accessGroup(store, ctx.pathInt('user_group_id'));
  const nameRaw = params.optStr('name');
  const descriptionRaw = params.optStr('description');
  const rawSettings = USER_GROUP_SETTINGS.map((s) => [s, params.optJson<unknown>(s)] as const).filter(([, v]) => v !== undefined);
  if (nameRaw === undefined && descriptionRaw === undefined && rawSettings.length === 0) {
    throw badRequest('No new data supplied');
  }
  if (group.is_system_group) throw insufficientPermission();
  if (!canManage(store, user, group)) throw insufficientPermission();
  if (group.deactivated && (descriptionRaw !== undefined || rawSettings.length > 0)) {
    throw badRequest('You can only change the name of a deactivated group');
  }
  const name = nameRaw !== undefined && nameRaw !== group.name ? checkGroupName(store, nameRaw, group) : undefined;
  const description = descriptionRaw !== undefined && descriptionRaw !== group.description ? checkDescription(descriptionRaw) : undefined;
  const changes: [UserGroupSettingName, GroupSettingValue][] = [];
  for (const [setting, raw] of rawSettings) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('new' in raw)) {
      throw badRequest(`${setting} must be an object with "new" and optionally "old"`);
    }
    const update = raw as { new: unknown; old?: unknown };
    const next = parseUserGroupSetting(store, setting, update.new);
    if (update.old !== undefined && update.old !== null) {
      // The expected value is only compared, so the restrictions on new values do not apply to it.
      const expected = parseUserGroupSetting(store, setting, update.old, { restrict: false });
      if (!groupSettingsEqual(expected, group[setting])) throw badRequest("'old' value does not match the expected value.");
    }
    if (!groupSettingsEqual(next, group[setting])) changes.push([setting, next]);
  }

  const audience = activeUserIds(store);
  const notify = (data: Record<string, unknown>) => ctx.events.notify(audience, { type: 'user_group', op: 'update', group_id: group.id, data });
  if (name !== undefined) {
    group.name = name;
    notify({ name });
  }
  if (description !== undefined) {
    group.description = description;
    notify({ description });
  }
  for (const [setting, value] of changes) {
    group[setting] = value;
    notify({ [setting]: serializeGroupSetting(store, value) });
  }
  return {};
}

// ---- membership --------------------------------------------------------------------------------

interface MembershipChange {
  add: number[];
  remove: number[];
  addSubgroups: number[];
  removeSubgroups: number[];
}

/** Validates a membership change completely (permission, users, subgroups, cycles) without applying it. */
function checkMembershipChange(ctx: RouteContext, group: UserGroup, change: MembershipChange): MembershipChange {
  const { store, user } = ctx;
  const manage = canManage(store, user, group);
  const self = (ids: number[]) => ids.length > 0 && ids.every((id) => id === user.user_id);
  if (change.add.length > 0 || change.addSubgroups.length > 0) {
    const adder = manage || holds(store, user, group.can_add_members_group);
    const joining = change.addSubgroups.length === 0 && self(change.add) && holds(store, user, group.can_join_group);
    if (!adder && !joining) throw insufficientPermission();
  }
  if (change.remove.length > 0) {
    const remover = manage || holds(store, user, group.can_remove_members_group);
    const leaving = self(change.remove) && holds(store, user, group.can_leave_group);
    if (!remover && !leaving) throw insufficientPermission();
  }
  // Zulip's remove_subgroups_from_group_backend checks can_manage_group, not can_remove_members_group.
  if (change.removeSubgroups.length > 0 && !manage) throw insufficientPermission();

  const add = checkActiveUsers(store, change.add);
  for (const id of add) {
    if (group.members.includes(id)) throw badRequest(`User ${id} is already a member of this group`);
  }
  const remove = checkActiveUsers(store, change.remove);
  for (const id of remove) {
    if (!group.members.includes(id)) throw badRequest(`There is no member '${id}' in this user group`);
  }
  const addSubgroups = checkSubgroupIds(store, change.addSubgroups);
  for (const id of addSubgroups) {
    if (group.direct_subgroup_ids.includes(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
  }
  for (const id of addSubgroups) {
    if (id === group.id || recursiveSubgroups(store, id).has(group.id)) {
      throw badRequest(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
    }
  }
  const removeSubgroups = checkSubgroupIds(store, change.removeSubgroups);
  for (const id of removeSubgroups) {
    if (!group.direct_subgroup_ids.includes(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
  }
  return { add, remove, addSubgroups, removeSubgroups };
}

function applyMembershipChange(ctx: RouteContext, group: UserGroup, change: MembershipChange): void {
  const audience = activeUserIds(ctx.store);
  const send = (op: string, payload: Record<string, unknown>) =>
    ctx.events.notify(audience, { type: 'user_group', op, group_id: group.id, ...payload });
  if (change.add.length > 0) {
    group.members.push(...change.add);
    send('add_members', { user_ids: [...change.add].sort(byId) });
  }
  if (change.remove.length > 0) {
    group.members = group.members.filter((id) => !change.remove.includes(id));
    send('remove_members', { user_ids: [...change.remove].sort(byId) });
  }
  if (change.addSubgroups.length > 0) {
    group.direct_subgroup_ids.push(...change.addSubgroups);
    send('add_subgroups', { direct_subgroup_ids: [...change.addSubgroups].sort(byId) });
  }
  if (change.removeSubgroups.length > 0) {
    group.direct_subgroup_ids = group.direct_subgroup_ids.filter((id) => !change.removeSubgroups.includes(id));
    send('remove_subgroups', { direct_subgroup_ids: [...change.removeSubgroups].sort(byId) });
  }
}


function updateUserGroupMembers(ctx: RouteContext) {
  // @require_member_or_admin runs before the parameters are read.
  requireMember(ctx.user);
  const { params, store } = ctx;
  // Below level 311 the subgroup parameters are not read, so they come back in
  // ignored_parameters_unsupported, and the error names only add/delete, as an older server does.
  // TODO(server-10): groupSubgroupsOnMembers (311); drop the older branch once every supported server has it.
  const withSubgroups = ctx.settings.featureLevel >= featureLevels.groupSubgroupsOnMembers;
  const change: MembershipChange = {
    add: params.optIntArray('add') ?? [],
    remove: params.optIntArray('delete') ?? [],
    addSubgroups: (withSubgroups ? params.optIntArray('add_subgroups') : undefined) ?? [],
    removeSubgroups: (withSubgroups ? params.optIntArray('delete_subgroups') : undefined) ?? [],
  };
  if (Object.values(change).every((list) => list.length === 0)) {
    throw badRequest(
      withSubgroups
        ? 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".'
        : 'Nothing to do. Specify at least one of "add" or "delete".',
    );
  }
  const group = accessGroupForMembership(store, ctx.pathInt('user_group_id'));
  applyMembershipChange(ctx, group, checkMembershipChange(ctx, group, change));
  return {};
}

function updateUserGroupSubgroups(ctx: RouteContext) {
  requireMember(ctx.user);
  const { params, store } = ctx;
  const change: MembershipChange = {
    add: [],
    remove: [],
    addSubgroups: params.optIntArray('add') ?? [],
    removeSubgroups: params.optIntArray('delete') ?? [],
  };
  if (change.addSubgroups.length === 0 && change.removeSubgroups.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  }
  const group = accessGroupForMembership(store, ctx.pathInt('user_group_id'));
  applyMembershipChange(ctx, group, checkMembershipChange(ctx, group, change));
  return {};
}

// ---- deactivation --------------------------------------------------------------------------------

/** Whether a group-setting value names the group (as the group, or as a subgroup of an anonymous one). */
function namesGroup(value: GroupSettingValue, groupId: number): boolean {
  return typeof value === 'number' ? value === groupId : value.direct_subgroups.includes(groupId);
}

function isGroupSettingValue(value: unknown): value is GroupSettingValue {
  return typeof value === 'number' || (typeof value === 'object' && value !== null && 'direct_subgroups' in value);
}

/** Zulip's objections to deactivating a group: every setting that holds it, and its supergroups. */
function deactivationObjections(store: Store, groupId: number): Record<string, unknown>[] {
  const objections: Record<string, unknown>[] = [];
  const realmSettings = Object.entries(store.realm.settings)
    .filter(([name, value]) => name.endsWith('_group') && isGroupSettingValue(value) && namesGroup(value, groupId))
    .map(([name]) => name);
  if (realmSettings.length > 0) objections.push({ type: 'realm', settings: realmSettings.sort() });
  for (const channel of store.channels.values()) {
    const settings = CHANNEL_PERMISSION_SETTINGS.filter((name) => namesGroup(channel[name], groupId));
    if (settings.length > 0 && !channel.is_archived) objections.push({ type: 'channel', channel_id: channel.stream_id, settings });
  }
  const supergroups: number[] = [];
  for (const other of store.groups.values()) {
    if (other.id === groupId || other.deactivated) continue;
    const settings = USER_GROUP_SETTINGS.filter((name) => namesGroup(other[name], groupId));
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: other.id, settings });
    if (other.direct_subgroup_ids.includes(groupId)) supergroups.push(other.id);
  }
  if (supergroups.length > 0) objections.push({ type: 'supergroup', supergroup_ids: supergroups.sort(byId) });
  return objections;
}

/**
 * https://zulip.com/api/deactivate-user-group (feature level 290): Zulip's
 * access_user_group_for_deactivation: not a system group, not already deactivated, the caller can
 * manage it, and nothing uses it (CANNOT_DEACTIVATE_GROUP_IN_USE with the objections; BAD_REQUEST
 * before feature level 298).
 */
function deactivateUserGroup(ctx: RouteContext) {
  requireMember(ctx.user);
  const { store, user } = ctx;
  const group = accessGroup(store, ctx.pathInt('user_group_id'));
  if (group.is_system_group || !canManage(store, user, group)) throw insufficientPermission();
  if (group.deactivated) throw badRequest('User group is deactivated.');
  const objections = deactivationObjections(store, group.id);
  if (objections.length > 0) {
    // TODO(server-10): groupInUseCode (298); drop the older branch once every supported server has it.
    const code = ctx.settings.featureLevel >= featureLevels.groupInUseCode ? 'CANNOT_DEACTIVATE_GROUP_IN_USE' : 'BAD_REQUEST';
    throw new ApiError(code, 'Cannot deactivate user group in use.', 400, { objections });
  }
  group.deactivated = true;
  ctx.events.notify(activeUserIds(store), { type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: true } });
  return {};
}

// ---- register state ----------------------------------------------------------------------------

export function initialState(ctx: StateContext): Record<string, unknown> {
  if (!ctx.wants('realm_user_groups')) return {};
  const includeDeactivated = ctx.options.capabilities.include_deactivated_groups === true;
  const groups = [...ctx.store.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => serializeGroup(ctx.store, g));
  return { realm_user_groups: groups };
}

export const routes: Route[] = [
  { operation: ops.getUserGroups, handler: getUserGroups },
  { operation: ops.createUserGroup, handler: createUserGroup },
  { operation: ops.updateUserGroup, handler: updateUserGroup },
  { operation: ops.updateUserGroupMembers, handler: updateUserGroupMembers },
  { operation: ops.getUserGroupMembers, handler: getUserGroupMembers },
  { operation: ops.getIsUserGroupMember, handler: getIsUserGroupMember },
  { operation: ops.updateUserGroupSubgroups, handler: updateUserGroupSubgroups },
  { operation: ops.getUserGroupSubgroups, handler: getUserGroupSubgroups },
  { operation: ops.deactivateUserGroup, handler: deactivateUserGroup },
];
