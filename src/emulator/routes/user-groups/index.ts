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
import type { Route, StateContext } from '../../context.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';
import { deactivateUserGroup } from './deactivation.js';
import { serializeGroup } from './groups.js';
import { updateUserGroupMembers, updateUserGroupSubgroups } from './membership.js';
import { getUserGroups, getUserGroupMembers, getIsUserGroupMember, getUserGroupSubgroups } from './read.js';
import { createUserGroup, updateUserGroup } from './write.js';

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

export { USER_GROUP_SETTINGS, accessGroupToAddMembers, activeDirectMembers, parseUserGroupSetting, serializeGroup, serializeGroupSetting } from './groups.js';
