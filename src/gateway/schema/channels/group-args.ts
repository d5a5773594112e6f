/**
 * The permission arguments of channels a mutation creates (`subscribe`, `createChannel`): each
 * group setting, with the feature level the server needs for it.
 */
import type { GroupSettingValue } from '../../../zulip/model/channels.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { ArgBuilder } from '@pothos/core';
import { type builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { GroupSettingValueInput, toWireGroupSettingValue, type GroupSettingValueInputShape } from '../group-settings.js';

const GROUP_ARGS = [
  ['canAddSubscribersGroup', featureLevels.canAddSubscribersGroup],
  ['canRemoveSubscribersGroup', 0],
  ['canAdministerChannelGroup', featureLevels.canAdministerChannelGroup],
  ['canSendMessageGroup', featureLevels.canSendMessageGroup],
  ['canSubscribeGroup', featureLevels.canSubscribeGroup],
] as const;

/** The permission arguments of a channel to create, as `GROUP_ARGS` names them. */
export type ChannelGroupArgs = Partial<Record<(typeof GROUP_ARGS)[number][0], GroupSettingValueInputShape | null>>;

/** The permission arguments of channels a mutation creates (subscribe, createChannel). */
export function channelGroupArgs(t: { arg: ArgBuilder<typeof builder.$inferSchemaTypes> }, what: string) {
  return Object.fromEntries(
    GROUP_ARGS.map(([name, level]) => [
      name,
      t.arg({ type: GroupSettingValueInput, required: false, description: `${name} of ${what}${level ? ` (feature level ${level})` : ''}.` }),
    ]),
  ) as Record<(typeof GROUP_ARGS)[number][0], ReturnType<typeof t.arg>>;
}

/** The wire values of the permission arguments given, once the server is new enough for each. */
export async function channelGroupSettings(ctx: Context, a: ChannelGroupArgs): Promise<Record<string, GroupSettingValue>> {
  const groups: Record<string, GroupSettingValue> = {};
  let needed = 0;
  for (const [name, level] of GROUP_ARGS) {
    const input = a[name];
    if (input == null) continue;
    groups[name] = toWireGroupSettingValue(input, name);
    needed = Math.max(needed, level);
  }
  if (needed > 0) await requireFeatureLevel(ctx, needed, 'This channel setting');
  return groups;
}
