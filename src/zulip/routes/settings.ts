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

/** `twentyFourHourTime` → `twenty_four_hour_time`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The wire parameters for a settings change (exported for the deprecated aliases and for tests). */
export function settingsParams(options: UpdateSettingsOptions): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) if (value !== undefined) params[snakeCase(name)] = value;
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
  return connection.send<object>('update-settings', 'PATCH', 'settings', settingsParams(options), call);
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
  return connection.send<object>(
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
  return connection.send<object>(
    'update-notification-settings',
    'PATCH',
    'settings/notifications',
    settingsParams(options),
    call,
  );
}
