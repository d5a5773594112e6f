/** Bindings for user groups: listing, creation, membership, subgroups and deactivation. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type {
  CreateUserGroupResult,
  GetIsUserGroupMemberResult,
  GetUserGroupMembersResult,
  GetUserGroupSubgroupsResult,
  GetUserGroupsResult,
  GroupSettingValue,
  GroupSettingValueUpdate,
} from '../model/user-groups.js';
import * as ops from '../generated/user-groups.js';

export interface GetUserGroupsOptions {
  /** Include deactivated groups. @default false (server side) */
  includeDeactivatedGroups?: boolean;
}

/**
 * All user groups of the organization, system groups included.
 * https://zulip.com/api/get-user-groups
 */
export function getUserGroups(
  connection: ZulipConnection,
  options: GetUserGroupsOptions = {},
  call: SendOptions = {},
): Promise<GetUserGroupsResult> {
  return ops.getUserGroups(connection, options, call);
}

/** The six group-setting values of a user group, as options. */
export interface UserGroupSettings<V> {
  /** Who may add members. */
  canAddMembersGroup?: V;
  /** Who may join by themselves. */
  canJoinGroup?: V;
  /** Who may leave by themselves. */
  canLeaveGroup?: V;
  /** Who may manage the group; never role:internet or role:everyone. */
  canManageGroup?: V;
  /** Who may mention the group; never role:internet or role:owners. */
  canMentionGroup?: V;
  /** Who may remove members. */
  canRemoveMembersGroup?: V;
}

export interface CreateUserGroupOptions extends UserGroupSettings<GroupSettingValue> {
  name: string;
  description: string;
  /** User IDs of the initial members. */
  members: number[];
  /** Group IDs of the initial subgroups. */
  subgroups?: number[];
}

/**
 * Creates a user group.
 * https://zulip.com/api/create-user-group
 */
export function createUserGroup(
  connection: ZulipConnection,
  options: CreateUserGroupOptions,
  call: SendOptions = {},
): Promise<CreateUserGroupResult> {
  return ops.createUserGroup(connection, options, call);
}

export interface UpdateUserGroupOptions extends UserGroupSettings<GroupSettingValueUpdate> {
  userGroupId: number;
  name?: string;
  description?: string;
}

/**
 * Renames a group, changes its description or its group-setting values.
 * https://zulip.com/api/update-user-group
 */
export function updateUserGroup(
  connection: ZulipConnection,
  options: UpdateUserGroupOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.updateUserGroup(connection, options, call);
}

export interface UpdateUserGroupMembersOptions {
  userGroupId: number;
  /** User IDs to add (active users that are not members yet). */
  add?: number[];
  /** User IDs to remove (current members). */
  delete?: number[];
  /** Group IDs to add as subgroups. */
  addSubgroups?: number[];
  /** Group IDs to remove from the subgroups. */
  deleteSubgroups?: number[];
}

/**
 * Adds and removes members (and subgroups) of a group in one request.
 * https://zulip.com/api/update-user-group-members
 */
export function updateUserGroupMembers(
  connection: ZulipConnection,
  options: UpdateUserGroupMembersOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.updateUserGroupMembers(connection, options, call);
}

export interface UpdateUserGroupSubgroupsOptions {
  userGroupId: number;
  /** Group IDs to add as subgroups. */
  add?: number[];
  /** Group IDs to remove from the subgroups. */
  delete?: number[];
}

/**
 * Adds and removes subgroups of a group (feature level 127).
 * https://zulip.com/api/update-user-group-subgroups
 */
export function updateUserGroupSubgroups(
  connection: ZulipConnection,
  options: UpdateUserGroupSubgroupsOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.updateUserGroupSubgroups(connection, options, call);
}

export interface GetUserGroupMembersOptions {
  userGroupId: number;
  /** Only direct members, not members of subgroups. @default false (server side) */
  directMemberOnly?: boolean;
}

/**
 * Members of a group, through subgroups unless `directMemberOnly` (feature level 127).
 * https://zulip.com/api/get-user-group-members
 */
export function getUserGroupMembers(
  connection: ZulipConnection,
  options: GetUserGroupMembersOptions,
  call: SendOptions = {},
): Promise<GetUserGroupMembersResult> {
  return ops.getUserGroupMembers(connection, options, call);
}

export interface GetUserGroupSubgroupsOptions {
  userGroupId: number;
  /** Only direct subgroups, not subgroups of subgroups. @default false (server side) */
  directSubgroupOnly?: boolean;
}

/**
 * Subgroups of a group, at any depth unless `directSubgroupOnly` (feature level 127).
 * https://zulip.com/api/get-user-group-subgroups
 */
export function getUserGroupSubgroups(
  connection: ZulipConnection,
  options: GetUserGroupSubgroupsOptions,
  call: SendOptions = {},
): Promise<GetUserGroupSubgroupsResult> {
  return ops.getUserGroupSubgroups(connection, options, call);
}

export interface GetIsUserGroupMemberOptions {
  userGroupId: number;
  userId: number;
  /** Only direct membership counts. @default false (server side) */
  directMemberOnly?: boolean;
}

/**
 * Whether a user is a member of a group (feature level 127).
 * https://zulip.com/api/get-is-user-group-member
 */
export function getIsUserGroupMember(
  connection: ZulipConnection,
  options: GetIsUserGroupMemberOptions,
  call: SendOptions = {},
): Promise<GetIsUserGroupMemberResult> {
  return ops.getIsUserGroupMember(connection, options, call);
}

/**
 * Deactivates a group (feature level 290; those who can manage it). A group still used by a
 * setting or as a subgroup is refused with CANNOT_DEACTIVATE_GROUP_IN_USE (feature level 298) and
 * its `objections`. https://zulip.com/api/deactivate-user-group
 */
export const deactivateUserGroup = (c: ZulipConnection, p: ops.DeactivateUserGroupParams, call?: SendOptions): Promise<object> =>
  ops.deactivateUserGroup(c, p, call);
