/** Bindings for the caller's personal settings. Reading them goes through `registerQueue` (events.ts). */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import type {
  ColorScheme,
  DemoteInactiveStreams,
  Emojiset,
  UserListStyle,
  WebAnimateImagePreviews,
  WebChannelDefaultView,
  WebHomeView,
  WebStreamUnreadsCountDisplayPolicy,
} from '../model/settings.js';
import { json, raw, type WireParams, type WireValue } from '../params.js';

/**
 * Parameters of `PATCH /settings`, in camelCase; each is sent as its snake_case wire name only when
 * set. Every one is optional; the server reports the unchanged and unsupported ones in
 * `ignored_parameters_unsupported`.
 */
export interface UpdateSettingsOptions {
  fullName?: string;
  /** Starts a confirmation sequence; nothing changes until the user follows the emailed link. */
  email?: string;
  /** Required with newPassword. */
  oldPassword?: string;
  newPassword?: string;
  twentyFourHourTime?: boolean;
  webChannelDefaultView?: WebChannelDefaultView;
  starredMessageCounts?: boolean;
  receivesTypingNotifications?: boolean;
  webSuggestUpdateTimezone?: boolean;
  fluidLayoutWidth?: boolean;
  highContrastMode?: boolean;
  webFontSizePx?: number;
  webLineHeightPercent?: number;
  colorScheme?: ColorScheme;
  /** Turning it off deletes every draft stored on the server (no event). */
  enableDraftsSynchronization?: boolean;
  translateEmoticons?: boolean;
  displayEmojiReactionUsers?: boolean;
  defaultLanguage?: string;
  webHomeView?: WebHomeView;
  webEscapeNavigatesToHomeView?: boolean;
  leftSideUserlist?: boolean;
  emojiset?: Emojiset;
  demoteInactiveStreams?: DemoteInactiveStreams;
  userListStyle?: UserListStyle;
  webAnimateImagePreviews?: WebAnimateImagePreviews;
  webStreamUnreadsCountDisplayPolicy?: WebStreamUnreadsCountDisplayPolicy;
  hideAiFeatures?: boolean;
  /** IANA identifier. */
  timezone?: string;
  enableStreamDesktopNotifications?: boolean;
  enableStreamEmailNotifications?: boolean;
  enableStreamPushNotifications?: boolean;
  enableStreamAudibleNotifications?: boolean;
  notificationSound?: string;
  enableDesktopNotifications?: boolean;
  enableSounds?: boolean;
  emailNotificationsBatchingPeriodSeconds?: number;
  enableOfflineEmailNotifications?: boolean;
  enableOfflinePushNotifications?: boolean;
  enableOnlinePushNotifications?: boolean;
  enableFollowedTopicDesktopNotifications?: boolean;
  enableFollowedTopicEmailNotifications?: boolean;
  enableFollowedTopicPushNotifications?: boolean;
  enableFollowedTopicAudibleNotifications?: boolean;
  enableDigestEmails?: boolean;
  enableMarketingEmails?: boolean;
  enableLoginEmails?: boolean;
  messageContentInEmailNotifications?: boolean;
  pmContentInDesktopNotifications?: boolean;
  wildcardMentionsNotify?: boolean;
  enableFollowedTopicWildcardMentionsNotify?: boolean;
  desktopIconCountDisplay?: number;
  realmNameInEmailNotificationsPolicy?: number;
  automaticallyFollowTopicsPolicy?: number;
  automaticallyUnmuteTopicsInMutedStreamsPolicy?: number;
  automaticallyFollowTopicsWhereMentioned?: boolean;
  presenceEnabled?: boolean;
  enterSends?: boolean;
  sendPrivateTypingNotifications?: boolean;
  sendStreamTypingNotifications?: boolean;
  sendReadReceipts?: boolean;
  webMarkReadOnScrollPolicy?: number;
}

/**
 * How Zulip's json_change_settings reads each setting: the free-text and string-enum settings are
 * `str` (sent raw), every number and boolean is `Json[...]`. Typed over every option, so a new
 * option does not compile until its encoding is declared.
 */
const SETTING_ENCODING: { readonly [K in keyof UpdateSettingsOptions]-?: (value: UpdateSettingsOptions[K]) => WireValue | undefined } = {
  fullName: raw,
  email: raw,
  oldPassword: raw,
  newPassword: raw,
  twentyFourHourTime: json,
  webChannelDefaultView: json,
  starredMessageCounts: json,
  receivesTypingNotifications: json,
  webSuggestUpdateTimezone: json,
  fluidLayoutWidth: json,
  highContrastMode: json,
  webFontSizePx: json,
  webLineHeightPercent: json,
  colorScheme: json,
  enableDraftsSynchronization: json,
  translateEmoticons: json,
  displayEmojiReactionUsers: json,
  defaultLanguage: raw,
  webHomeView: raw,
  webEscapeNavigatesToHomeView: json,
  leftSideUserlist: json,
  emojiset: raw,
  demoteInactiveStreams: json,
  userListStyle: json,
  webAnimateImagePreviews: raw,
  webStreamUnreadsCountDisplayPolicy: json,
  hideAiFeatures: json,
  timezone: raw,
  enableStreamDesktopNotifications: json,
  enableStreamEmailNotifications: json,
  enableStreamPushNotifications: json,
  enableStreamAudibleNotifications: json,
  notificationSound: raw,
  enableDesktopNotifications: json,
  enableSounds: json,
  emailNotificationsBatchingPeriodSeconds: json,
  enableOfflineEmailNotifications: json,
  enableOfflinePushNotifications: json,
  enableOnlinePushNotifications: json,
  enableFollowedTopicDesktopNotifications: json,
  enableFollowedTopicEmailNotifications: json,
  enableFollowedTopicPushNotifications: json,
  enableFollowedTopicAudibleNotifications: json,
  enableDigestEmails: json,
  enableMarketingEmails: json,
  enableLoginEmails: json,
  messageContentInEmailNotifications: json,
  pmContentInDesktopNotifications: json,
  wildcardMentionsNotify: json,
  enableFollowedTopicWildcardMentionsNotify: json,
  desktopIconCountDisplay: json,
  realmNameInEmailNotificationsPolicy: json,
  automaticallyFollowTopicsPolicy: json,
  automaticallyUnmuteTopicsInMutedStreamsPolicy: json,
  automaticallyFollowTopicsWhereMentioned: json,
  presenceEnabled: json,
  enterSends: json,
  sendPrivateTypingNotifications: json,
  sendStreamTypingNotifications: json,
  sendReadReceipts: json,
  webMarkReadOnScrollPolicy: json,
};

/** `twentyFourHourTime` → `twenty_four_hour_time`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The wire parameters for a settings change (shared with the deprecated aliases). */
function settingsParams(options: UpdateSettingsOptions): WireParams {
  const params: Record<string, WireValue | undefined> = {};
  for (const name of Object.keys(options) as (keyof UpdateSettingsOptions)[]) {
    const encode = SETTING_ENCODING[name] as ((value: unknown) => WireValue | undefined) | undefined;
    // An unknown key (a JavaScript caller) has no declared encoding: it is not sent.
    if (encode !== undefined) params[snakeCase(name)] = encode(options[name]);
  }
  return params;
}

/**
 * Changes the caller's settings (and name, email, password). Every value is validated before any is
 * applied.
 * https://zulip.com/api/update-settings
 */
export function updateSettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return connection.request<object>('update-settings', 'PATCH', 'settings', settingsParams(options), call);
}

/**
 * Deprecated alias of {@link updateSettings} (before feature level 80: display settings).
 * https://zulip.com/api/update-settings
 */
export function updateDisplaySettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return connection.request<object>(
    'update-display-settings',
    'PATCH',
    'settings/display',
    settingsParams(options),
    call,
  );
}

/**
 * Deprecated alias of {@link updateSettings} (before feature level 80: notification settings).
 * https://zulip.com/api/update-settings
 */
export function updateNotificationSettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return connection.request<object>(
    'update-notification-settings',
    'PATCH',
    'settings/notifications',
    settingsParams(options),
    call,
  );
}
