/**
 * Named Zulip API feature levels: the first level at which the server has an API change the
 * gateway or client depends on. One table so a level is spelled (and checked against the
 * changelog) once; each entry names the release and the changelog line.
 *
 * Releases: Zulip 5.0 ends at level 122, 6.0 at 156, 7.0 at 185, 8.0 at 237, 9.0 at 277,
 * 10.0 at 371; later levels are Zulip 11.0. https://zulip.com/api/changelog
 */
import { zulipOperations } from './generated/operations.js';

/**
 * The oldest Zulip server supported: Zulip 2.1, which reports no feature level (read as 0; feature
 * levels start with Zulip 3.0). Every branch for a server older than a level is marked
 * `TODO(server-N)`, N being the Zulip release that brought the level: raising this floor to
 * release N deletes those branches.
 */
export const OLDEST_SUPPORTED_SERVER = { featureLevel: 0, release: 'Zulip 2.1' };

/**
 * Levels that are no operation's own (a parameter, a field, an error code, a behaviour). An
 * operation's own level is its table entry's `featureLevel` (src/zulip/generated/operations.ts,
 * `operationGate`); the entries below that name one alias it, so the level is stated once.
 */
export const featureLevels = {
  /** Zulip 3.0 (2): reactions carry `user_id` (before, only the deprecated `user` object). */
  reactionUserId: 2,
  /** Zulip 3.0 (9): `principals` of (un)subscribe may be user IDs instead of emails. */
  principalIds: 9,
  /** Zulip 5.0 (87): the drafts API (`GET/POST/PATCH/DELETE /drafts`). */
  drafts: 87,
  /** Zulip 5.0 (89): `user_settings` object in `POST /register` replaces the legacy keys. */
  userSettingsObject: 89,
  /** Zulip 5.0 (98): `is_web_public` on `PATCH /streams/{stream_id}`. */
  channelWebPublic: 98,
  /** Zulip 6.0 (127): `POST /user_groups/{user_group_id}/subgroups` (subgroups of user groups). */
  groupSubgroups: zulipOperations.updateUserGroupSubgroups.featureLevel,
  /** Zulip 6.0 (136): `history_public_to_subscribers` accepted alone on `PATCH /streams/{stream_id}`. */
  channelHistoryAlone: 136,
  /** Zulip 6.0 (155): `POST /messages/flags/narrow` and `include_anchor`. */
  flagsForNarrow: zulipOperations.updateMessageFlagsForNarrow.featureLevel,
  /** Zulip 7.0 (164): `server_presence_offline_threshold_seconds` in `POST /register`. */
  presenceOfflineThreshold: 164,
  /** Zulip 7.0 (170): `POST /user_topics`. */
  userTopics: zulipOperations.updateUserTopic.featureLevel,
  /** Zulip 7.0 (174): `type: "direct"` on `POST /messages` (was `private`). */
  directMessageType: 174,
  /** Zulip 7.0 (177): narrow operators `dm`, `dm-including`, `is:dm` (were `pm-with`, `group-pm-with`, `is:private`). */
  dmNarrowOperators: 177,
  /** Zulip 7.0 (184): `PATCH /scheduled_messages/{scheduled_message_id}`. */
  editScheduledMessage: zulipOperations.updateScheduledMessage.featureLevel,
  /** Zulip 8.0 (193): `REACTION_ALREADY_EXISTS` / `REACTION_DOES_NOT_EXIST` error codes. */
  reactionErrorCodes: 193,
  /** Zulip 8.0 (194): the narrow `id` operand may be an integer (a string before). */
  integerIdOperand: 194,
  /** Zulip 8.0 (200): `is_default_stream` on `PATCH /streams/{stream_id}`. */
  channelDefault: 200,
  /** Zulip 8.0 (208): (un)subscribe answer BAD_REQUEST for a deactivated or unknown user in `principals`. */
  principalsBadRequest: 208,
  /** Zulip 8.0 (215): channel typing notifications with `stream_id` and `topic`. */
  channelTyping: 215,
  /** Zulip 8.0 (219): visibility policy FOLLOWED for `POST /user_topics`. */
  followedTopics: 219,
  /** Zulip 8.0 (222): deactivating a user sends `realm_user/update` with `is_active` (was `remove`). */
  deactivationAsUpdate: 222,
  /** Zulip 9.0 (248): `type: "channel"` on `POST /messages` and `POST /typing` (was `stream`). */
  channelMessageType: 248,
  /** Zulip 9.0 (250): narrow operators `channel` / `channels` (were `stream` / `streams`). */
  channelNarrowOperators: 250,
  /** Zulip 9.0 (263): incremental presence with `last_update_id`. */
  presenceLastUpdateId: 263,
  /** Zulip 10.0 (289): `POST /users/me/subscriptions` results identify users by ID (were emails). */
  subscribeResultUserIds: 289,
  /** Zulip 10.0 (300): `message_ids` parameter of `GET /messages`. */
  messageIds: 300,
  /** Zulip 10.0 (302): `GET /users/{email}` looks users up by the addresses email visibility allows (the real one). */
  userByRealEmail: 302,
  /** Zulip 10.0 (303): group member lists leave deactivated users out, with no `user_group` event for it. */
  groupsWithoutDeactivated: 303,
  /** Zulip 10.0 (311): `add_subgroups` / `delete_subgroups` on `POST /user_groups/{user_group_id}/members`, `subgroups` on `POST /user_groups/create`. */
  groupSubgroupsOnMembers: 311,
  /** Zulip 10.0 (313): `PATCH /users/{email}`, and `new_email` on `PATCH /users/{user_id}`. */
  updateUserByEmail: zulipOperations.updateUserByEmail.featureLevel,
  /** Zulip 10.0 (315): archived channels (`is_archived`, `exclude_archived`). */
  archivedChannels: 315,
  /** Zulip 10.0 (325): `can_administer_channel_group`. */
  canAdministerChannelGroup: 325,
  /** Zulip 10.0 (330): default channels in `POST /register` and events as channel IDs only. */
  defaultChannelIds: 330,
  /** Zulip 10.0 (333): `can_send_message_group`. */
  canSendMessageGroup: 333,
  /** Zulip 10.0 (334): `allow_empty_topic_name`, the empty topic. */
  emptyTopicName: 334,
  /** Zulip 10.0 (342): `can_add_subscribers_group`. */
  canAddSubscribersGroup: 342,
  /** Zulip 10.0 (343): `stream_ids` replaces `streams` in the channel `delete` event. */
  channelDeleteStreamIds: 343,
  /** Zulip 10.0 (356): `include_all` on `GET /streams` (renamed from `include_all_active`). */
  includeAllChannels: 356,
  /** Zulip 10.0 (357): `can_subscribe_group`. */
  canSubscribeGroup: 357,
  /** Zulip 10.0 (362): privacy changes of archived channels. */
  archivedChannelEdits: 362,
  /** Zulip 11.0 (378): archiving sends `update` events to clients with the `archived_channels` capability. */
  archivedChannelEvents: 378,
  /** Zulip 11.0 (384): `user_ids` parameter of `GET /users`. */
  userIdsParameter: 384,
  // ---- uploads, attachments, custom emoji, login, channel lookups ----
  /** Zulip 8.0 (226): `GET /streams/{stream_id}/email_address`. */
  channelEmailAddress: zulipOperations.getStreamEmailAddress.featureLevel,
  /** Zulip 10.0 (335): `sender_id` on `GET /streams/{stream_id}/email_address`. */
  channelEmailSender: 335,
  /** Zulip 10.0 (337): `voice_only` on `GET /calls/bigbluebutton/create`. */
  bigBlueButtonVoiceOnly: 337,
  /** Zulip 11.0 (389): channel folders (`GET /channel_folders`, `POST /channel_folders/create`, `PATCH /channel_folders/{id}`). */
  channelFolders: zulipOperations.getChannelFolders.featureLevel,
  /** Zulip 11.0 (390): navigation views (`/navigation_views`). */
  navigationViews: zulipOperations.getNavigationViews.featureLevel,
  /** Zulip 11.0 (414): `PATCH /channel_folders` reorders the folders. */
  reorderChannelFolders: zulipOperations.patchChannelFolders.featureLevel,
  /** Zulip 11.0 (417): `POST /channels/create`. */
  createChannel: zulipOperations.createChannel.featureLevel,
  /** Zulip 12.0 (460): `POST /calls/constructorgroups/create`. */
  constructorGroupsCalls: zulipOperations.createConstructorGroupsVideoCall.featureLevel,
  /** Zulip 12.0 (465): `POST /calls/nextcloud_talk/create`. */
  nextcloudTalkCalls: zulipOperations.createNextcloudTalkVideoCall.featureLevel,
  // Organization administration.
  /** Zulip 7.0 (176): linkifiers have an RFC 6570 `url_template` (a Python format string before). */
  linkifierUrlTemplate: 176,
  /** Zulip 8.0 (202): `PATCH /realm/linkifiers` (reorder linkifiers). */
  reorderLinkifiers: zulipOperations.reorderLinkifiers.featureLevel,
  /** Zulip 6.0 (143): changing the allowed email domains needs an owner (an administrator before). */
  realmDomainsOwnerOnly: 143,
  /** Zulip 8.0 (196): code playgrounds have an RFC 6570 `url_template` (a `url_prefix` before). */
  playgroundUrlTemplate: 196,
  // Messages: saved snippets, reminders, message operations.
  /** Zulip 10.0 (297): saved snippets (`GET/POST /saved_snippets`, `DELETE /saved_snippets/{saved_snippet_id}`). */
  savedSnippets: zulipOperations.getSavedSnippets.featureLevel,
  /** Zulip 10.0 (368): `PATCH /saved_snippets/{saved_snippet_id}`. */
  editSavedSnippet: zulipOperations.editSavedSnippet.featureLevel,
  /** Zulip 4.0 (48): muting users (`POST` / `DELETE /users/me/muted_users/{muted_user_id}`). */
  mutedUsers: zulipOperations.muteUser.featureLevel,
  /** Zulip 9.0 (262): `GET /users/{user_id}/status`. */
  getUserStatus: zulipOperations.getUserStatus.featureLevel,
  // Uploads, attachments, custom emoji and JWT login.
  /** Zulip 3.0 (1): `GET /user_uploads/{realm_id_str}/{filename}` (a temporary URL of an uploaded file). */
  fileTemporaryUrl: zulipOperations.getFileTemporaryUrl.featureLevel,
  /** Zulip 7.0 (160): `POST /jwt/fetch_api_key`. */
  jwtFetchApiKey: zulipOperations.jwtFetchApiKey.featureLevel,
  /** Zulip 9.0 (272): `url` in the `POST /user_uploads` answer (only `uri` before). */
  uploadUrlField: 272,
  /** Zulip 10.0 (285): `filename` in the `POST /user_uploads` answer. */
  uploadFilenameField: 285,
  /** Zulip 12.0 (479): `GET /thumbnail/status/{realm_id_str}/{filename}`. */
  thumbnailStatus: zulipOperations.checkThumbnailStatus.featureLevel,
  // Users: accounts, custom profile fields, groups, API keys, exports.
  /** Zulip 4.0 (36): `POST /users` needs the `can_create_users` permission (any administrator before). */
  createUserPermission: 36,
  /** Zulip 11.0 (407): `POST /users/{user_id}/status` (an administrator changes another user's status). */
  updateStatusForUser: zulipOperations.updateStatusForUser.featureLevel,
  /** Zulip 12.0 (473): bots with an administrator role may use `POST /users/{user_id}/status` too. */
  updateStatusForUserBots: 473,
  /** Zulip 6.0 (146): `display_in_profile_summary` of custom profile fields. */
  customProfileFieldSummary: 146,
  /** Zulip 8.0 (244): `required` custom profile fields. */
  requiredCustomProfileFields: 244,
  /** Zulip 10.0 (296): `editable_by_user` of custom profile fields. */
  customProfileFieldEditableByUser: 296,
  /** Zulip 12.0 (455): `use_for_user_matching` of custom profile fields. */
  customProfileFieldUserMatching: 455,
  /** Zulip 6.0 (127): `GET /user_groups/{id}/members`, `/members/{user_id}` and `/subgroups`. */
  userGroupMembershipQueries: zulipOperations.getUserGroupMembers.featureLevel,
  /** Zulip 12.0 (463): `GET /bots/{bot_id}/api_key`. */
  getBotApiKey: zulipOperations.getBotApiKey.featureLevel,
  /** Zulip 10.0 (290): `POST /user_groups/{user_group_id}/deactivate`. */
  deactivateUserGroup: zulipOperations.deactivateUserGroup.featureLevel,
  /** Zulip 10.0 (298): a group in use answers CANNOT_DEACTIVATE_GROUP_IN_USE (BAD_REQUEST before). */
  groupInUseCode: 298,
  // Channels and subscriptions.
  /** Zulip 3.0 (12): `GET /users/{user_id}/subscriptions/{stream_id}`. */
  subscriptionStatus: zulipOperations.getSubscriptionStatus.featureLevel,
  /** Zulip 11.0 (440): `GET /users/{user_id}/channels`. */
  userChannels: zulipOperations.getUserChannels.featureLevel,
  // message extras, reminders, mobile push.
  /** Zulip 6.0 (137): `GET /messages/{message_id}/read_receipts`. */
  readReceipts: zulipOperations.getReadReceipts.featureLevel,
  /** Zulip 8.0 (217): `POST /mobile_push/test_notification`. */
  testNotify: zulipOperations.testNotify.featureLevel,
  /** Zulip 10.0 (351): `POST /messages/{message_id}/typing` (typing while editing a message). */
  editTyping: zulipOperations.setTypingStatusForMessageEdit.featureLevel,
  /** Zulip 11.0 (381): `POST /reminders` (message reminders). */
  messageReminders: zulipOperations.createMessageReminder.featureLevel,
  /** Zulip 11.0 (382): `POST /messages/{message_id}/report`. */
  reportMessage: zulipOperations.reportMessage.featureLevel,
  /** Zulip 11.0 (399): `GET /reminders` and `DELETE /reminders/{reminder_id}`. */
  listReminders: zulipOperations.getReminders.featureLevel,
  /** Zulip 11.0 (406): `POST /mobile_push/register` (end-to-end encrypted push registration). */
  registerPushDevice: zulipOperations.registerPushDevice.featureLevel,
  /** Zulip 11.0 (415): `note` on `POST /reminders`. */
  reminderNote: 415,
  /** Zulip 11.0 (420): `POST /mobile_push/e2ee/test_notification`. */
  e2eeTestNotify: zulipOperations.e2eeTestNotify.featureLevel,
  /** Zulip 12.0 (468): `POST /register_client_device`, and `device_id` on the push endpoints. */
  clientDevices: 468,
  /** Zulip 12.0 (470): `POST /remove_client_device`. */
  removeClientDevice: zulipOperations.removeClientDevice.featureLevel,
  /** Zulip 4.0 (43): `GET /users/{user_id}/presence` takes a user ID (an email before). */
  presenceByUserId: 43,
  // invitations and data exports.
  /** Zulip 8.0 (209): members with permission may create and revoke reusable invitation links (administrators only before). */
  inviteLinksForMembers: 209,
  /** Zulip 9.0 (261): `include_realm_default_subscriptions` on invitations. */
  inviteDefaultChannels: 261,
  /** Zulip 9.0 (267): `notify_referrer_on_join` on invitations. */
  inviteNotifyReferrer: 267,
  /** Zulip 10.0 (322): `group_ids` on invitations. */
  inviteGroups: 322,
  /** Zulip 11.0 (416): `welcome_message_custom_text` on invitations. */
  inviteWelcomeMessage: 416,
  /** Zulip 10.0 (295): `GET /export/realm/consents`. */
  exportConsents: zulipOperations.getRealmExportConsents.featureLevel,
  /** Zulip 10.0 (304): `export_type` (public or full with consent) on data exports. */
  exportType: 304,
  /** Zulip 12.0 (430): `email_address_visibility` in export consents. */
  exportConsentEmailVisibility: 430,
  /** Zulip 12.0 (449): `export_type` is a name (a number before), and `full_without_consent`. */
  exportTypeNames: 449,
  // Devices: realm user-settings defaults, Welcome Bot test.
  /** Zulip 5.0 (96): `PATCH /realm/user_settings_defaults`. */
  realmUserSettingsDefaults: zulipOperations.updateRealmUserSettingsDefaults.featureLevel,
  /** Zulip 11.0 (416): `POST /realm/test_welcome_bot_custom_message`. */
  testWelcomeBotCustomMessage: zulipOperations.testWelcomeBotCustomMessage.featureLevel,
} as const;
