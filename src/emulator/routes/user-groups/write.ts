/** Creating and updating a user group: https://zulip.com/api/create-user-group, https://zulip.com/api/update-user-group. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { UserGroupSettingName } from '../../../zulip/model/user-groups.js';
import type { RouteContext } from '../../context.js';
import { badRequest, insufficientPermission } from '../../errors.js';
import { groupSettingsEqual } from '../../group-settings.js';
import { addGroup } from '../../factory.js';
import { type GroupSettingValue } from '../../store.js';
import { activeUserIds } from '../users/index.js';
import { USER_GROUP_SETTINGS, serializeGroupSetting, serializeGroup, requireMember, accessGroup, canManage, checkGroupName, checkDescription, checkActiveUsers, checkSubgroupIds, parseUserGroupSetting } from './groups.js';

// ---- create and update -------------------------------------------------------------------------

export function createUserGroup(ctx: RouteContext) {
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

export function updateUserGroup(ctx: RouteContext) {
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
