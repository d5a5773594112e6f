/** The user-group reads: https://zulip.com/api/get-user-groups, get-user-group-members, get-is-user-group-member, get-user-group-subgroups. */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { byId, isActiveUser, activeDirectMembers, serializeGroup, recursiveSubgroups, requireMember, accessGroup } from './groups.js';

// ---- reads -------------------------------------------------------------------------------------

export function getUserGroups(ctx: RouteContext) {
  requireMember(ctx.user);
  const includeDeactivated = ctx.params.bool('include_deactivated_groups', false);
  const groups = [...ctx.store.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => serializeGroup(ctx.store, g));
  return { user_groups: groups };
}

export function getUserGroupMembers(ctx: RouteContext) {
  requireMember(ctx.user);
  const group = accessGroup(ctx.store, ctx.pathInt('user_group_id'));
  const direct = ctx.params.bool('direct_member_only', false);
  const members = direct
    ? activeDirectMembers(ctx.store, group)
    : [...ctx.store.groupMembersRecursive(group.id)].filter((id) => isActiveUser(ctx.store, id)).sort(byId);
  return { members };
}

export function getIsUserGroupMember(ctx: RouteContext) {
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

export function getUserGroupSubgroups(ctx: RouteContext) {
  requireMember(ctx.user);
  const group = accessGroup(ctx.store, ctx.pathInt('user_group_id'));
  const direct = ctx.params.bool('direct_subgroup_only', false);
  const subgroups = direct ? [...group.direct_subgroup_ids] : [...recursiveSubgroups(ctx.store, group.id)];
  return { subgroups: subgroups.filter((id) => id !== group.id).sort(byId) };
}
