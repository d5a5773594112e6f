/**
 * The caller's personal settings of their subscriptions: `updateSubscriptionProperty` (one setting)
 * and `updateSubscriptionSettings` (several, in one call).
 * https://zulip.com/api/update-subscription-settings
 */
import type { Subscription } from '../../../zulip/model/subscriptions.js';
import {
  getSubscriptions,
  updateSubscriptionProperty,
  updateSubscriptionSettings,
  type SubscriptionSettingChange,
} from '../../../zulip/routes/subscriptions.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { reaches } from '../../zulip-operations.js';
import { SubscriptionRef } from './index.js';

interface SubscriptionSettingsInputShape {
  channelId: number;
  color?: string | null;
  isMuted?: boolean | null;
  pinToTop?: boolean | null;
  desktopNotifications?: boolean | null;
  emailNotifications?: boolean | null;
  pushNotifications?: boolean | null;
  audibleNotifications?: boolean | null;
  wildcardMentionsNotify?: boolean | null;
}

/** GraphQL input field → wire property of update-subscription-settings. */
const SETTING_PROPERTIES = [
  ['color', 'color'],
  ['isMuted', 'is_muted'],
  ['pinToTop', 'pin_to_top'],
  ['desktopNotifications', 'desktop_notifications'],
  ['emailNotifications', 'email_notifications'],
  ['pushNotifications', 'push_notifications'],
  ['audibleNotifications', 'audible_notifications'],
  ['wildcardMentionsNotify', 'wildcard_mentions_notify'],
] as const satisfies readonly (readonly [keyof SubscriptionSettingsInputShape, SubscriptionSettingChange['property']])[];

const SubscriptionSettingsInput = builder.inputRef<SubscriptionSettingsInputShape>('SubscriptionSettingsInput').implement({
  description: "New personal settings for one of the caller's subscriptions; only the fields given change.",
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: true, description: 'The channel.' }),
    color: t.string({ required: false, description: 'Color, #rrggbb.' }),
    isMuted: t.boolean({ required: false, description: 'Mute or unmute the channel.' }),
    pinToTop: t.boolean({ required: false, description: 'Pin the channel to the top.' }),
    desktopNotifications: t.boolean({ required: false, description: 'Desktop notifications for every message.' }),
    emailNotifications: t.boolean({ required: false, description: 'Email notifications for every message.' }),
    pushNotifications: t.boolean({ required: false, description: 'Push notifications for every message.' }),
    audibleNotifications: t.boolean({ required: false, description: 'A sound for every message.' }),
    wildcardMentionsNotify: t.boolean({ required: false, description: 'Wildcard mentions notify like personal mentions.' }),
  }),
});

builder.mutationFields((t) => ({
  updateSubscriptionProperty: t.field({
    extensions: reaches('update-subscription-property'),
    type: SubscriptionRef,
    nullable: true,
    description:
      "Changes exactly one personal setting of one of the caller's subscriptions (else BAD_USER_INPUT, before any " +
      'upstream call), then returns the subscription as it now is (a second upstream request). BAD_REQUEST "Not ' +
      'subscribed to channel ID \u2026" when the caller is not subscribed.',
    args: {
      change: t.arg({ type: SubscriptionSettingsInput, required: true, description: 'The channel and the one setting to change.' }),
    },
    resolve: async (_root, args, ctx) => {
      const given = SETTING_PROPERTIES.filter(([field]) => args.change[field] != null);
      if (given.length !== 1) throw badInput('updateSubscriptionProperty: give exactly one setting.', { argument: 'change' });
      const [field, property] = given[0]!;
      await updateSubscriptionProperty(ctx.connection, { streamId: args.change.channelId, property, value: args.change[field]! });
      const { subscriptions } = await getSubscriptions(ctx.connection);
      return subscriptions.find((s) => s.stream_id === args.change.channelId) ?? null;
    },
  }),
  updateSubscriptionSettings: t.field({
    extensions: reaches('update-subscription-settings'),
    type: [SubscriptionRef],
    description:
      "Changes the caller's personal settings of channels they are subscribed to, in one upstream call after one " +
      'read of the subscriptions: a channel the caller is not subscribed to fails with BAD_USER_INPUT before ' +
      'any change (the server would apply the changes before it, then stop). Returns the changed subscriptions.',
    args: {
      changes: t.arg({ type: [SubscriptionSettingsInput], required: true, description: 'The changes, per channel.' }),
    },
    resolve: async (_root, args, ctx) => {
      const subscriptionData: SubscriptionSettingChange[] = [];
      for (const change of args.changes) {
        for (const [field, property] of SETTING_PROPERTIES) {
          const value = change[field];
          if (value != null) subscriptionData.push({ streamId: change.channelId, property, value });
        }
      }
      if (subscriptionData.length === 0) throw badInput('changes: give at least one setting to change.');
      // Zulip applies the list entry by entry and stops at the first channel the caller is not
      // subscribed to (update_subscription_properties_backend): check them all first.
      const { subscriptions } = await getSubscriptions(ctx.connection);
      const byId = new Map(subscriptions.map((s) => [s.stream_id, s]));
      const missing = args.changes.find((c) => !byId.has(c.channelId));
      if (missing) throw badInput(`Not subscribed to channel ID ${missing.channelId}`, { argument: 'changes' });
      await updateSubscriptionSettings(ctx.connection, { subscriptionData });
      // The server took the values as sent: the subscriptions as they now are, without a second read.
      const changed = new Map<number, Subscription>();
      for (const { streamId, property, value } of subscriptionData) {
        const current = changed.get(streamId) ?? { ...byId.get(streamId)! };
        Object.assign(current, { [property]: value }, property === 'is_muted' && 'in_home_view' in current ? { in_home_view: !value } : {});
        changed.set(streamId, current);
      }
      return subscriptions.filter((s) => changed.has(s.stream_id)).map((s) => changed.get(s.stream_id)!);
    },
  }),
}));
