/**
 * Group-setting values (https://zulip.com/api/group-setting-values) as channel and user-group
 * permissions take them: one parser, so both kinds of setting validate and normalize alike.
 */
import { badRequest } from './errors.js';
import type { GroupSettingValue, Store } from './store.js';

/** What a permission setting refuses (Zulip's GroupPermissionSetting). */
export interface GroupSettingRule {
  /** The system groups (by name) the setting may not be set to. */
  readonly disallowed: readonly string[];
  /**
   * Whether each subgroup of an anonymous group is held to `disallowed` (user-group settings), or
   * only a lone subgroup the value collapses to (channel settings).
   */
  readonly eachSubgroup: boolean;
}

const byId = (a: number, b: number) => a - b;

function checkAllowed(store: Store, setting: string, rule: GroupSettingRule, groupId: number): void {
  const group = store.groups.get(groupId)!;
  if (group.is_system_group && rule.disallowed.includes(group.name)) {
    throw badRequest(`'${setting}' setting cannot be set to '${group.name}' group.`);
  }
}

/**
 * Validates a group-setting value and normalizes it as Zulip stores it: an anonymous group with
 * one subgroup and no members is that group, an empty one is role:nobody. Without a `rule` no
 * system group is refused (an `old` value names what is stored, allowed or not).
 */
export function parseGroupSettingValue(store: Store, setting: string, raw: unknown, rule?: GroupSettingRule): GroupSettingValue {
  if (typeof raw === 'number') {
    const group = store.groups.get(raw);
    if (!Number.isSafeInteger(raw) || !group || group.deactivated) throw badRequest('Invalid user group');
    if (rule) checkAllowed(store, setting, rule, raw);
    return raw;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`${setting} is not a valid group-setting value`);
  const { direct_members: members, direct_subgroups: subgroups, ...rest } = raw as Record<string, unknown>;
  const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x));
  if (Object.keys(rest).length > 0 || !isIds(members) || !isIds(subgroups)) {
    throw badRequest(`${setting} is not a valid group-setting value`);
  }
  // "Invalid user ID", as Zulip's user_ids_to_users.
  for (const id of members) if (store.users.get(id)?.is_active !== true) throw badRequest(`Invalid user ID: ${id}`);
  const directMembers = [...new Set(members)].sort(byId);
  const directSubgroups = [...new Set(subgroups)].sort(byId);
  for (const id of directSubgroups) {
    const group = store.groups.get(id);
    if (!group || group.deactivated) throw badRequest('Invalid user group');
    if (rule?.eachSubgroup) checkAllowed(store, setting, rule, id);
  }
  if (directMembers.length === 0 && directSubgroups.length === 0) return store.systemGroupId('role:nobody');
  if (directMembers.length === 0 && directSubgroups.length === 1) {
    if (rule) checkAllowed(store, setting, rule, directSubgroups[0]!);
    return directSubgroups[0]!;
  }
  return { direct_members: directMembers, direct_subgroups: directSubgroups };
}

/** Whether two group-setting values name the same groups and users (order and repeats ignored). */
export function groupSettingsEqual(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: number[], y: number[]) => {
    const xs = [...new Set(x)].sort(byId);
    const ys = [...new Set(y)].sort(byId);
    return xs.length === ys.length && xs.every((v, i) => v === ys[i]);
  };
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}
