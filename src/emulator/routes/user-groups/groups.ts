/** User-group serialization, access checks and input validation shared by the user-group routes. */
import type { UserGroup as WireUserGroup, UserGroupSettingName } from '../../../zulip/model/user-groups.js';
import { badRequest, insufficientPermission } from '../../errors.js';
import { parseGroupSettingValue } from '../../group-settings.js';
import { checkNoNullBytes } from '../../http.js';
import { type GroupSettingValue, type Store, type User, type UserGroup } from '../../store.js';


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

export const byId = (a: number, b: number) => a - b;

export function isActiveUser(store: Store, id: number): boolean {
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
export function recursiveSubgroups(store: Store, groupId: number): Set<number> {
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
export function requireMember(user: User): void {
  if (user.role === 600) throw badRequest('Not allowed for guest users');
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

export function accessGroup(store: Store, groupId: number): UserGroup {
  const group = store.groups.get(groupId);
  if (!group) throw badRequest('Invalid user group');
  return group;
}

/**
 * A group whose members or subgroups the caller wants to change: not a system group. Deactivated
 * groups are allowed, as Zulip's access_user_group_for_update(allow_deactivated=True) does for
 * membership changes (zerver/views/user_groups.py, zerver/lib/user_groups.py).
 */
export function accessGroupForMembership(store: Store, groupId: number): UserGroup {
  const group = accessGroup(store, groupId);
  if (group.is_system_group) throw insufficientPermission();
  return group;
}

export function holds(store: Store, user: User, value: GroupSettingValue): boolean {
  return store.userHasGroupSetting(user.user_id, value);
}

export function canManage(store: Store, user: User, group: UserGroup): boolean {
  return store.isAdmin(user) || holds(store, user, group.can_manage_group);
}

/** Zulip's access_user_group_for_update(permission_setting="can_add_members_group"), as invitations use it. */
export function accessGroupToAddMembers(store: Store, user: User, groupId: number): UserGroup {
  const group = accessGroupForMembership(store, groupId);
  if (!canManage(store, user, group) && !holds(store, user, group.can_add_members_group)) throw insufficientPermission();
  return group;
}

export function checkGroupName(store: Store, raw: string, except?: UserGroup): string {
  const name = checkNoNullBytes('name', raw);
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if (name.length > MAX_NAME_LENGTH) throw badRequest(`User group name cannot exceed ${MAX_NAME_LENGTH} characters.`);
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  const existing = store.groupByName(name);
  if (existing && existing !== except) throw badRequest(`User group '${name}' already exists.`);
  return name;
}

export function checkDescription(raw: string): string {
  const description = checkNoNullBytes('description', raw);
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw badRequest(`description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
  }
  return description;
}

/** User IDs that must name active users ("Invalid user ID" otherwise, as Zulip's user_ids_to_users). */
export function checkActiveUsers(store: Store, ids: number[]): number[] {
  for (const id of ids) if (!isActiveUser(store, id)) throw badRequest(`Invalid user ID: ${id}`);
  return [...new Set(ids)];
}

export function checkSubgroupIds(store: Store, ids: number[]): number[] {
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
