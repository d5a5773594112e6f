/** Deactivating a user group: https://zulip.com/api/deactivate-user-group. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest, insufficientPermission } from '../../errors.js';
import { CHANNEL_PERMISSION_SETTINGS, type GroupSettingValue, type Store } from '../../store.js';
import { activeUserIds } from '../users/index.js';
import { USER_GROUP_SETTINGS, byId, requireMember, accessGroup, canManage } from './groups.js';

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
export function deactivateUserGroup(ctx: RouteContext) {
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
