/**
 * Wire types for user groups (https://zulip.com/api/get-user-groups), snake_case as sent.
 */
import type { GroupSettingValue } from './channels.js';

export type { GroupSettingValue };

/** A group-setting change as the update endpoints take it: the new value, optionally guarded by the old one. */
export interface GroupSettingValueUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

/** The six group-setting values of a user group. */
export type UserGroupSettingName =
  | 'can_add_members_group'
  | 'can_join_group'
  | 'can_leave_group'
  | 'can_manage_group'
  | 'can_mention_group'
  | 'can_remove_members_group';

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  /** User IDs of the direct members (deactivated users are left out since feature level 303). */
  members: number[];
  direct_subgroup_ids: number[];
  /** System groups (role:everyone, role:members...) cannot be modified by users. */
  is_system_group: boolean;
  /** UNIX seconds; null for system groups and groups older than the field. */
  date_created?: number | null;
  /** Null for system groups and when no creator is recorded. */
  creator_id?: number | null;
  /** Deactivated groups are hidden unless include_deactivated_groups is set. */
  deactivated?: boolean;
  /** Older servers send only can_mention_group, as a group ID. */
  can_add_members_group?: GroupSettingValue;
  can_join_group?: GroupSettingValue;
  can_leave_group?: GroupSettingValue;
  can_manage_group?: GroupSettingValue;
  can_mention_group?: GroupSettingValue;
  can_remove_members_group?: GroupSettingValue;
}

/** `GET /user_groups` success body. */
export interface GetUserGroupsResult {
  user_groups: UserGroup[];
}

/** `POST /user_groups/create` success body. */
export interface CreateUserGroupResult {
  /** Absent on servers older than the field. */
  group_id?: number;
}

/** `GET /user_groups/{id}/members` success body. */
export interface GetUserGroupMembersResult {
  members: number[];
}

/** `GET /user_groups/{id}/subgroups` success body. */
export interface GetUserGroupSubgroupsResult {
  subgroups: number[];
}

/** `GET /user_groups/{id}/members/{user_id}` success body. */
export interface GetIsUserGroupMemberResult {
  is_user_group_member: boolean;
}
