/** Membership changes: https://zulip.com/api/update-user-group-members, https://zulip.com/api/update-user-group-subgroups. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { badRequest, insufficientPermission } from '../../errors.js';
import type { UserGroup } from '../../store.js';
import { activeUserIds } from '../users/index.js';
import { byId, recursiveSubgroups, requireMember, accessGroupForMembership, holds, canManage, checkActiveUsers, checkSubgroupIds } from './groups.js';

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


export function updateUserGroupMembers(ctx: RouteContext) {
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

export function updateUserGroupSubgroups(ctx: RouteContext) {
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
