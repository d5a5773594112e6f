/**
 * The caller's personal settings: the `Settings` type (backed by the wire `user_settings` object),
 * `me { settings }` and the `updateSettings` mutation.
 * https://zulip.com/api/update-settings
 *
 * Zulip serves settings only in the initial state of `POST /register`. The cheapest correct read is
 * {@link fetchInitialState}: register a queue that accepts no events and fetches only the settings,
 * then delete it at once (two small requests, no queue left behind). Servers older than feature
 * level 89 have no `user_settings` object; their legacy top-level keys are read instead.
 */
import type { InputFieldBuilder } from '@pothos/core';
import { ZulipError } from '../../zulip/errors.js';
import type { RegisterQueueResult } from '../../zulip/model/events.js';
import type { UserSettings } from '../../zulip/model/settings.js';
import { deleteQueue, registerQueue, type RegisterQueueOptions } from '../../zulip/routes/events.js';
import { updateSettings, type UpdateSettingsOptions } from '../../zulip/routes/settings.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { memoKey } from '../loaders/index.js';
import { MeRef } from './users.js';

// ---- reading initial state -------------------------------------------------------------------------

/**
 * Reads initial state Zulip serves only through `POST /register`, without keeping a queue: the
 * queue accepts no events and is deleted right away. Failing to delete it is harmless (the server
 * drops idle queues after ten minutes), so that failure is not the caller's.
 */
export async function fetchInitialState(
  ctx: Context,
  options: Pick<RegisterQueueOptions, 'fetchEventTypes' | 'slimPresence' | 'clientCapabilities'>,
): Promise<RegisterQueueResult> {
  const state = await registerQueue(ctx.connection, { eventTypes: [], ...options });
  if (state.queue_id) {
    await deleteQueue(ctx.connection, { queueId: state.queue_id }).catch((error: unknown) => {
      if (!(error instanceof ZulipError)) throw error;
    });
  }
  return state;
}

// ---- enums -----------------------------------------------------------------------------------------

const ColorSchemeEnum = builder.enumType('ColorScheme', {
  description: 'Which color theme the apps use.',
  values: {
    AUTOMATIC: { value: 1, description: 'Follow the system setting (1).' },
    DARK: { value: 2, description: 'Dark theme (2).' },
    LIGHT: { value: 3, description: 'Light theme (3).' },
  } as const,
});

const WebHomeViewEnum = builder.enumType('WebHomeView', {
  description: 'The view the web app opens on.',
  values: {
    RECENT_TOPICS: { value: 'recent_topics', description: 'Recent conversations.' },
    INBOX: { value: 'inbox', description: 'Inbox.' },
    ALL_MESSAGES: { value: 'all_messages', description: 'All messages (the combined feed).' },
  } as const,
});

const EmojisetEnum = builder.enumType('Emojiset', {
  description: 'How emoji are drawn.',
  values: {
    GOOGLE: { value: 'google', description: 'Google modern.' },
    GOOGLE_BLOB: { value: 'google-blob', description: 'Google classic ("blobs").' },
    TWITTER: { value: 'twitter', description: 'Twitter.' },
    TEXT: { value: 'text', description: 'Plain text.' },
  } as const,
});

const DemoteInactiveChannelsEnum = builder.enumType('DemoteInactiveChannels', {
  description: 'Whether inactive channels are moved down in the channel list.',
  values: {
    AUTOMATIC: { value: 1, description: 'When there are many channels (1).' },
    ALWAYS: { value: 2, description: 'Always (2).' },
    NEVER: { value: 3, description: 'Never (3).' },
  } as const,
});

const UserListStyleEnum = builder.enumType('UserListStyle', {
  description: 'How the user list in the right sidebar looks.',
  values: {
    COMPACT: { value: 1, description: 'Compact (1).' },
    WITH_STATUS: { value: 2, description: 'With status (2).' },
    WITH_AVATAR_AND_STATUS: { value: 3, description: 'With avatar and status (3).' },
  } as const,
});

const AnimateImagePreviewsEnum = builder.enumType('AnimateImagePreviews', {
  description: 'When animated image previews play.',
  values: {
    ALWAYS: { value: 'always', description: 'Always.' },
    ON_HOVER: { value: 'on_hover', description: 'When the pointer is over them.' },
    NEVER: { value: 'never', description: 'Never.' },
  } as const,
});

const ChannelUnreadsDisplayPolicyEnum = builder.enumType('ChannelUnreadsDisplayPolicy', {
  description: 'Which channels show a numeric unread count in the left sidebar (the others show a dot).',
  values: {
    ALL_CHANNELS: { value: 1, description: 'All channels (1).' },
    UNMUTED_CHANNELS_AND_TOPICS: { value: 2, description: 'Unmuted channels and topics (2).' },
    NO_CHANNELS: { value: 3, description: 'No channels (3).' },
  } as const,
});

const WebChannelDefaultViewEnum = builder.enumType('WebChannelDefaultView', {
  description: 'Where clicking a channel in the web app leads.',
  values: {
    TOP_TOPIC: { value: 1, description: 'The top topic in the channel (1).' },
    CHANNEL_FEED: { value: 2, description: 'The channel feed (2).' },
  } as const,
});

// ---- the setting table -----------------------------------------------------------------------------

type EnumRef =
  | typeof ColorSchemeEnum
  | typeof WebHomeViewEnum
  | typeof EmojisetEnum
  | typeof DemoteInactiveChannelsEnum
  | typeof UserListStyleEnum
  | typeof AnimateImagePreviewsEnum
  | typeof ChannelUnreadsDisplayPolicyEnum
  | typeof WebChannelDefaultViewEnum;

type Kind = 'Boolean' | 'Int' | 'String' | { ref: EnumRef; values: readonly (number | string)[] };

const oneOf = (ref: EnumRef, values: readonly (number | string)[]): Kind => ({ ref, values });

/**
 * Every setting the gateway exposes: GraphQL name, wire name, type, description. The GraphQL names
 * say "channel" where the wire still says "stream".
 */
export const SETTINGS: readonly (readonly [name: string, wire: keyof UserSettings & string, kind: Kind, description: string])[] = [
  ['twentyFourHourTime', 'twenty_four_hour_time', 'Boolean', 'Whether times are shown in 24-hour notation.'],
  ['webChannelDefaultView', 'web_channel_default_view', oneOf(WebChannelDefaultViewEnum, [1, 2]), 'Where clicking a channel in the web app leads.'],
  ['starredMessageCounts', 'starred_message_counts', 'Boolean', 'Whether clients show the number of starred messages.'],
  ['receivesTypingNotifications', 'receives_typing_notifications', 'Boolean', 'Whether the user receives typing notifications from others.'],
  ['webSuggestUpdateTimezone', 'web_suggest_update_timezone', 'Boolean', 'Whether the web app offers to update the profile time zone when the browser\u2019s differs.'],
  ['fluidLayoutWidth', 'fluid_layout_width', 'Boolean', 'Whether the web app uses the full width of wide screens.'],
  ['highContrastMode', 'high_contrast_mode', 'Boolean', 'Reserved for a high-contrast variant of the design.'],
  ['webFontSizePx', 'web_font_size_px', 'Int', 'Base font size of the web app, in pixels.'],
  ['webLineHeightPercent', 'web_line_height_percent', 'Int', 'Base line height of the web app, in percent (120 means 1.2).'],
  ['colorScheme', 'color_scheme', oneOf(ColorSchemeEnum, [1, 2, 3]), 'The color theme.'],
  ['enableDraftsSynchronization', 'enable_drafts_synchronization', 'Boolean', 'Whether drafts are stored on the server. Turning it off deletes the stored drafts.'],
  ['translateEmoticons', 'translate_emoticons', 'Boolean', 'Whether emoticons like :) become emoji in sent messages.'],
  ['displayEmojiReactionUsers', 'display_emoji_reaction_users', 'Boolean', 'Whether reactions show who reacted rather than a count.'],
  ['defaultLanguage', 'default_language', 'String', 'Language code of the interface and emails, e.g. "en" or "de".'],
  ['webHomeView', 'web_home_view', oneOf(WebHomeViewEnum, ['recent_topics', 'inbox', 'all_messages']), 'The view the web app opens on.'],
  ['webEscapeNavigatesToHomeView', 'web_escape_navigates_to_home_view', 'Boolean', 'Whether the Escape key leads to the home view.'],
  ['leftSideUserlist', 'left_side_userlist', 'Boolean', 'Whether the user list is in the left sidebar in narrow windows.'],
  ['emojiset', 'emojiset', oneOf(EmojisetEnum, ['google', 'google-blob', 'twitter', 'text']), 'How emoji are drawn.'],
  ['demoteInactiveChannels', 'demote_inactive_streams', oneOf(DemoteInactiveChannelsEnum, [1, 2, 3]), 'Whether inactive channels are moved down in the channel list.'],
  ['userListStyle', 'user_list_style', oneOf(UserListStyleEnum, [1, 2, 3]), 'How the user list looks.'],
  ['webAnimateImagePreviews', 'web_animate_image_previews', oneOf(AnimateImagePreviewsEnum, ['always', 'on_hover', 'never']), 'When animated image previews play.'],
  ['webChannelUnreadsCountDisplayPolicy', 'web_stream_unreads_count_display_policy', oneOf(ChannelUnreadsDisplayPolicyEnum, [1, 2, 3]), 'Which channels show a numeric unread count.'],
  ['hideAiFeatures', 'hide_ai_features', 'Boolean', 'Whether AI features are hidden.'],
  ['timezone', 'timezone', 'String', 'IANA time zone of the profile, e.g. "Europe/Paris"; empty when unset.'],
  ['enableChannelDesktopNotifications', 'enable_stream_desktop_notifications', 'Boolean', 'Desktop notifications for channel messages.'],
  ['enableChannelEmailNotifications', 'enable_stream_email_notifications', 'Boolean', 'Email notifications for channel messages.'],
  ['enableChannelPushNotifications', 'enable_stream_push_notifications', 'Boolean', 'Mobile push notifications for channel messages.'],
  ['enableChannelAudibleNotifications', 'enable_stream_audible_notifications', 'Boolean', 'Sounds for channel messages.'],
  ['notificationSound', 'notification_sound', 'String', 'Name of the notification sound, or "none".'],
  ['enableDesktopNotifications', 'enable_desktop_notifications', 'Boolean', 'Desktop notifications for direct messages and mentions.'],
  ['enableSounds', 'enable_sounds', 'Boolean', 'Sounds for direct messages and mentions.'],
  ['emailNotificationsBatchingPeriodSeconds', 'email_notifications_batching_period_seconds', 'Int', 'How long to wait before emailing about new messages, in seconds (at most a week).'],
  ['enableOfflineEmailNotifications', 'enable_offline_email_notifications', 'Boolean', 'Email notifications for direct messages and mentions while offline.'],
  ['enableOfflinePushNotifications', 'enable_offline_push_notifications', 'Boolean', 'Push notifications for direct messages and mentions while offline.'],
  ['enableOnlinePushNotifications', 'enable_online_push_notifications', 'Boolean', 'Push notifications even while online.'],
  ['enableFollowedTopicDesktopNotifications', 'enable_followed_topic_desktop_notifications', 'Boolean', 'Desktop notifications for followed topics.'],
  ['enableFollowedTopicEmailNotifications', 'enable_followed_topic_email_notifications', 'Boolean', 'Email notifications for followed topics.'],
  ['enableFollowedTopicPushNotifications', 'enable_followed_topic_push_notifications', 'Boolean', 'Push notifications for followed topics.'],
  ['enableFollowedTopicAudibleNotifications', 'enable_followed_topic_audible_notifications', 'Boolean', 'Sounds for followed topics.'],
  ['enableFollowedTopicWildcardMentionsNotify', 'enable_followed_topic_wildcard_mentions_notify', 'Boolean', 'Whether wildcard mentions in followed topics notify like personal mentions.'],
  ['enableDigestEmails', 'enable_digest_emails', 'Boolean', 'Digest emails while away.'],
  ['enableMarketingEmails', 'enable_marketing_emails', 'Boolean', 'Marketing emails (Zulip Cloud only).'],
  ['enableLoginEmails', 'enable_login_emails', 'Boolean', 'Emails about new logins to the account.'],
  ['messageContentInEmailNotifications', 'message_content_in_email_notifications', 'Boolean', 'Whether notification emails include the message content.'],
  ['dmContentInDesktopNotifications', 'pm_content_in_desktop_notifications', 'Boolean', 'Whether desktop notifications include direct message content.'],
  ['wildcardMentionsNotify', 'wildcard_mentions_notify', 'Boolean', 'Whether wildcard mentions (@**all**) notify like personal mentions.'],
  ['automaticallyFollowTopicsWhereMentioned', 'automatically_follow_topics_where_mentioned', 'Boolean', 'Whether topics where the user is mentioned are followed automatically.'],
  ['presenceEnabled', 'presence_enabled', 'Boolean', 'Whether others see when the user is online.'],
  ['enterSends', 'enter_sends', 'Boolean', 'Whether Enter sends a message (otherwise Ctrl+Enter does).'],
  ['sendDirectTypingNotifications', 'send_private_typing_notifications', 'Boolean', 'Whether others see when the user types a direct message.'],
  ['sendChannelTypingNotifications', 'send_stream_typing_notifications', 'Boolean', 'Whether others see when the user types in a channel.'],
  ['sendReadReceipts', 'send_read_receipts', 'Boolean', 'Whether others may see which messages the user has read.'],
];

/** Account fields that `updateSettings` takes besides the settings. */
const ACCOUNT_FIELDS = { fullName: 'full_name', email: 'email', oldPassword: 'old_password', newPassword: 'new_password' } as const;
/** GraphQL name by wire name, of the settings and the account fields. */
const WIRE_TO_NAME: ReadonlyMap<string, string> = new Map([
  ...SETTINGS.map(([name, wire]): [string, string] => [wire, name]),
  ...Object.entries(ACCOUNT_FIELDS).map(([name, wire]): [string, string] => [wire, name]),
]);

// ---- types -----------------------------------------------------------------------------------------

export const SettingsRef = builder.objectRef<UserSettings>('Settings');

SettingsRef.implement({
  description:
    'The caller\u2019s personal settings. A field is null when the server does not have that setting ' +
    '(older servers) or sends a value this gateway does not know. https://zulip.com/api/update-settings',
  fields: (t) => ({
    ...Object.fromEntries(
      SETTINGS.map(([name, wire, kind, description]) => {
        const read = (s: UserSettings) => (s[wire] ?? null) as never;
        if (kind === 'Boolean') return [name, t.boolean({ nullable: true, description, resolve: read })];
        if (kind === 'Int') return [name, t.int({ nullable: true, description, resolve: read })];
        if (kind === 'String') return [name, t.string({ nullable: true, description, resolve: read })];
        return [
          name,
          t.field({
            type: kind.ref as typeof ColorSchemeEnum,
            nullable: true,
            description,
            resolve: (s) => (kind.values.includes(s[wire] as number | string) ? (s[wire] as never) : null),
          }),
        ];
      }),
    ),
    availableNotificationSounds: t.stringList({
      nullable: true,
      description: 'The notification sounds the server offers (besides "none").',
      resolve: (s) => s.available_notification_sounds ?? null,
    }),
  }),
});

/** The legacy top-level keys of old servers (before feature level 89), as a settings object. */
function legacySettings(state: RegisterQueueResult): UserSettings {
  const settings: Record<string, unknown> = {};
  for (const [, wire] of SETTINGS) if (wire in state) settings[wire] = state[wire];
  if (Array.isArray(state.available_notification_sounds)) settings.available_notification_sounds = state.available_notification_sounds;
  return settings as UserSettings;
}

const SETTINGS_FETCH_TYPES = ['user_settings', 'update_display_settings', 'update_global_notifications'];
const callerSettings = memoKey<UserSettings>('caller settings');

/** The caller's settings, read once per request. */
function loadSettings(ctx: Context, fresh = false): Promise<UserSettings> {
  return ctx.loaders.memo.get(
    callerSettings,
    () =>
      fetchInitialState(ctx, {
        fetchEventTypes: SETTINGS_FETCH_TYPES,
        // With it, servers since feature level 89 send the object and leave the legacy keys out.
        clientCapabilities: { notification_settings_null: true, user_settings_object: true },
      }).then((state) => state.user_settings ?? legacySettings(state)),
    fresh,
  );
}

builder.objectField(MeRef, 'settings', (t) =>
  t.field({
    zulip: { reaches: ['register-queue'] },
    type: SettingsRef,
    description: 'The caller\u2019s personal settings (two upstream requests: register and delete a queue).',
    resolve: (_me, _args, ctx) => loadSettings(ctx),
  }),
);

// ---- updateSettings --------------------------------------------------------------------------------

/** Optional input fields for `settings` (of SETTINGS), for an input type's `fields`. */
export function settingInputFields(t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>, settings: typeof SETTINGS) {
  return Object.fromEntries(
    settings.map(([name, , kind, description]) => {
      if (kind === 'Boolean') return [name, t.boolean({ required: false, description })];
      if (kind === 'Int') return [name, t.int({ required: false, description })];
      if (kind === 'String') return [name, t.string({ required: false, description })];
      return [name, t.field({ type: kind.ref as typeof ColorSchemeEnum, required: false, description })];
    }),
  );
}

const SettingsInput = builder.inputType('SettingsInput', {
  description:
    'Changes to the caller\u2019s settings and account. Leave out (or set to null) what should stay as it is.',
  fields: (t) => ({
    fullName: t.string({ required: false, description: 'New full name (2 to 100 characters, no * ` \\ > " @).' }),
    email: t.string({
      required: false,
      description: 'New email address: starts a confirmation; nothing changes until the emailed link is followed.',
    }),
    oldPassword: t.string({ required: false, description: 'The current password; required with newPassword.' }),
    newPassword: t.string({ required: false, description: 'New password; needs oldPassword.' }),
    ...settingInputFields(t, SETTINGS),
  }),
});

/** What `updateSettings` returns. */
interface UpdateSettingsPayload {
  settings: UserSettings;
  ignored: string[];
}

const UpdateSettingsPayloadRef = builder.objectRef<UpdateSettingsPayload>('UpdateSettingsPayload').implement({
  description: 'The outcome of updateSettings.',
  fields: (t) => ({
    settings: t.field({ type: SettingsRef, description: 'The settings after the change, as the server now holds them.', resolve: (p) => p.settings }),
    ignoredParametersUnsupported: t.stringList({
      description:
        'SettingsInput fields the server did not apply because they were unchanged or unsupported ' +
        '(its ignored_parameters_unsupported; the response extensions carry the wire names).',
      resolve: (p) => p.ignored,
    }),
  }),
});

/** `web_font_size_px` → `webFontSizePx`: the binding's option name for a wire name. */
export function camelCase(wire: string): string {
  return wire.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

builder.mutationField('updateSettings', (t) =>
  t.field({
    zulip: { reaches: ['update-settings'], writes: ['user_settings', 'realm_user'] },
    type: UpdateSettingsPayloadRef,
    description:
      'Changes the caller\u2019s settings, name, email or password. The server validates every value before ' +
      'applying any: an invalid one fails the whole change with BAD_REQUEST (REQUEST_VARIABLE_MISSING when ' +
      'newPassword comes without oldPassword).',
    args: { input: t.arg({ type: SettingsInput, required: true, description: 'What to change.' }) },
    resolve: async (_root, args, ctx) => {
      const input = args.input as Record<string, unknown>;
      const options: Record<string, unknown> = {};
      for (const [name, wire] of Object.entries(ACCOUNT_FIELDS)) if (input[name] != null) options[camelCase(wire)] = input[name];
      for (const [name, wire] of SETTINGS) if (input[name] != null) options[camelCase(wire)] = input[name];
      if (Object.keys(options).length === 0) {
        throw badInput('updateSettings: give at least one change.');
      }
      const result = await updateSettings(ctx.connection, options as UpdateSettingsOptions);
      const ignored = (result.ignored_parameters_unsupported ?? []).map((wire) => WIRE_TO_NAME.get(wire) ?? wire);
      return { settings: await loadSettings(ctx, true), ignored };
    },
  }),
);
