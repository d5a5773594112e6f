/**
 * Group-setting values: who holds a permission, either a user group (by ID) or an anonymous group
 * of direct members and direct subgroups. Used by user groups (can_manage_group...), channels
 * (can_administer_channel_group...) and organization settings.
 * https://zulip.com/api/group-setting-values
 *
 * `GroupSettingValue.groups` is added by user-groups.ts, which owns the `UserGroup` type (so this
 * file does not import it and user-groups.ts can import this one).
 */
import type { GroupSettingValue } from '../../zulip/model/channels.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import { builder } from '../builder.js';
import { upstreamCost, userLookupCost } from '../upstream/cost.js';
import type { Context } from '../context.js';
import { badInput, isNotFound } from '../errors.js';
import { UserRef } from './users.js';

/** The `update` form a setting change is sent in: the new value, and optionally the expected current one. */
export interface GroupSettingUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

/** Loads users by ID, leaving out those the caller cannot see (other failures propagate). */
export async function loadUsers(ctx: Context, ids: readonly number[]): Promise<User[]> {
  return keepFound(await ctx.loaders.users.loadMany(ids));
}

/** Loads user groups by ID, leaving out those the caller cannot see (other failures propagate). */
export async function loadUserGroups(ctx: Context, ids: readonly number[]): Promise<UserGroup[]> {
  return keepFound(await ctx.loaders.userGroups.loadMany(ids));
}

function keepFound<T>(loaded: (T | Error)[]): T[] {
  const found: T[] = [];
  for (const item of loaded) {
    if (!(item instanceof Error)) found.push(item);
    else if (!isNotFound(item)) throw item;
  }
  return found;
}

/**
 * Every user who holds the value, through subgroups at any depth (cycle-safe). Uses the group
 * loader only, so it costs one `GET /user_groups` per request however deep the nesting.
 */
export async function groupSettingUserIds(ctx: Context, value: GroupSettingValue): Promise<number[]> {
  const users = new Set<number>(typeof value === 'number' ? [] : value.direct_members);
  const seen = new Set<number>();
  let pending = typeof value === 'number' ? [value] : [...value.direct_subgroups];
  for (let depth = 0; pending.length > 0 && depth < 1000; depth++) {
    const fresh = pending.filter((id) => !seen.has(id));
    fresh.forEach((id) => seen.add(id));
    const groups = await loadUserGroups(ctx, fresh);
    for (const group of groups) group.members.forEach((id) => users.add(id));
    pending = groups.flatMap((group) => group.direct_subgroup_ids);
  }
  return [...users].sort((a, b) => a - b);
}

export const GroupSettingValueRef = builder.objectRef<GroupSettingValue>('GroupSettingValue').implement({
  description:
    'Who holds a permission: either one user group (`groupId` set, `groups` holds it), or an anonymous ' +
    'group of users and subgroups (`directMemberIds` and `directSubgroupIds` set). ' +
    'See https://zulip.com/api/group-setting-values',
  fields: (t) => ({
    groupId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The user group that holds the permission; null for the anonymous-group form.',
      resolve: (value) => (typeof value === 'number' ? value : null),
    }),
    directMemberIds: t.field({
      type: ['Long'],
      nullable: true,
      description: 'IDs of the users named directly in an anonymous group; null for the group-ID form.',
      resolve: (value) => (typeof value === 'number' ? null : value.direct_members),
    }),
    directSubgroupIds: t.field({
      type: ['Long'],
      nullable: true,
      description: 'IDs of the groups named directly in an anonymous group; null for the group-ID form.',
      resolve: (value) => (typeof value === 'number' ? null : value.direct_subgroups),
    }),
    users: t.field({
      type: [UserRef],
      description:
        'The users named directly (the direct members of an anonymous group); empty for the group-ID form. ' +
        'Users the caller cannot see are left out.',
      extensions: userLookupCost,
      resolve: (value, _args, ctx) => (typeof value === 'number' ? [] : loadUsers(ctx, value.direct_members)),
    }),
    allUsers: t.field({
      type: [UserRef],
      description: 'Every user who holds the permission, through subgroups at any depth.',
      // The groups' members (one GET /user_groups), then the users.
      extensions: upstreamCost({ perBatch: 1, once: { key: 'user groups', calls: 1 }, directory: true }),
      resolve: async (value, _args, ctx) => loadUsers(ctx, await groupSettingUserIds(ctx, value)),
    }),
  }),
});

/** The input form of {@link GroupSettingValueRef}, before validation. */
export interface GroupSettingValueInputShape {
  groupId?: number | null;
  directMembers?: number[] | null;
  directSubgroups?: number[] | null;
}

export const GroupSettingValueInput = builder.inputRef<GroupSettingValueInputShape>('GroupSettingValueInput').implement({
  description:
    'A group-setting value: either `groupId` alone, or `directMembers` and/or `directSubgroups` ' +
    '(an anonymous group; a missing list counts as empty). Exactly one form must be given.',
  fields: (t) => ({
    groupId: t.field({ type: 'Long', required: false, description: 'A user group that holds the permission.' }),
    directMembers: t.field({
      type: ['Long'],
      required: false,
      description: 'Users who hold the permission directly (anonymous-group form).',
    }),
    directSubgroups: t.field({
      type: ['Long'],
      required: false,
      description: 'Groups whose members hold the permission (anonymous-group form).',
    }),
  }),
});

export interface GroupSettingUpdateInputShape {
  new: GroupSettingValueInputShape;
  old?: GroupSettingValueInputShape | null;
}

export const GroupSettingUpdateInput = builder.inputRef<GroupSettingUpdateInputShape>('GroupSettingUpdateInput').implement({
  description:
    'A change of a group-setting value. With `old`, the server refuses the change unless the current ' +
    'value is `old` (protection against concurrent edits).',
  fields: (t) => ({
    new: t.field({ type: GroupSettingValueInput, required: true, description: 'The new value.' }),
    old: t.field({ type: GroupSettingValueInput, required: false, description: 'The value expected to be current.' }),
  }),
});

/**
 * The wire form of a {@link GroupSettingValueInput}; throws `BAD_USER_INPUT` unless exactly one form is given.
 * @param what the argument name, for the message.
 */
export function toWireGroupSettingValue(input: GroupSettingValueInputShape, what = 'group-setting value'): GroupSettingValue {
  const hasGroup = input.groupId != null;
  const hasAnonymous = input.directMembers != null || input.directSubgroups != null;
  if (hasGroup === hasAnonymous) {
    throw badInput(`${what}: give either groupId, or directMembers and/or directSubgroups (exactly one form).`);
  }
  if (hasGroup) return input.groupId!;
  return { direct_members: input.directMembers ?? [], direct_subgroups: input.directSubgroups ?? [] };
}

/** The wire form of a {@link GroupSettingUpdateInput} (`{new, old?}`), validated like {@link toWireGroupSettingValue}. */
export function toWireGroupSettingUpdate(input: GroupSettingUpdateInputShape, what = 'group-setting update'): GroupSettingUpdate {
  const update: GroupSettingUpdate = { new: toWireGroupSettingValue(input.new, `${what}.new`) };
  if (input.old != null) update.old = toWireGroupSettingValue(input.old, `${what}.old`);
  return update;
}
