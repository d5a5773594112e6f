/** The records the emulator stores (store.ts holds them). Field names follow the wire format. */
import type { ChannelPermissionSetting, GroupSettingValue } from '../zulip/model/channels.js';
import type { Draft } from '../zulip/model/drafts.js';
import type { EditHistoryEntry, MessageFlag } from '../zulip/model/messages.js';
import type { ModernPresence, PresenceStatus } from '../zulip/model/presence.js';
import type { Reaction } from '../zulip/model/reactions.js';
import type { UserTopic } from '../zulip/model/user-topics.js';
import type { ProfileFieldValue, UserRole } from '../zulip/model/users.js';

/** https://zulip.com/api/group-setting-values (the wire type: the emulator stores it as sent). */
export type { GroupSettingValue };
/** A stored draft: the emulator keeps exactly the wire shape (https://zulip.com/api/get-drafts). */
export type { Draft };
/**
 * Reactions, edit-history entries and topic preferences are stored in their wire shapes
 * (https://zulip.com/api/get-messages, https://zulip.com/api/get-events#user_topic).
 */
export type { EditHistoryEntry, Reaction, UserTopic };

export const Role = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const satisfies Record<string, UserRole>;
export const ROLES: readonly UserRole[] = Object.values(Role);

/** Personal settings as on the wire (`PATCH /settings`, the `user_settings` register object). */
export type UserSettings = Record<string, boolean | number | string>;

export interface User {
  user_id: number;
  /** The API email: the real address, or `user{id}@{host}` when the real one is hidden from others. */
  email: string;
  /** The real address. */
  delivery_email: string;
  full_name: string;
  date_joined: string;
  is_active: boolean;
  role: UserRole;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  timezone: string;
  avatar_source: 'G' | 'U';
  avatar_version: number;
  api_key: string;
  /** Custom profile field id (as text) → value. */
  profile_data: Record<string, ProfileFieldValue>;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators. */
  email_address_visibility: number;
  /** Organization permission needed (with the owner role) to change another user's email. */
  can_change_user_emails: boolean;
  /** Server permission to create accounts through `POST /users` (https://zulip.com/api/create-user). */
  can_create_users?: boolean;
  is_billing_admin: boolean;
  presence_enabled: boolean;
  settings: UserSettings;
}

export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  message_retention_days: number | null;
  is_archived: boolean;
  /** True for the organization's moderation-request channel, which may never become public. */
  is_moderation_request_channel: boolean;
  can_add_subscribers_group: GroupSettingValue;
  can_remove_subscribers_group: GroupSettingValue;
  can_administer_channel_group: GroupSettingValue;
  can_send_message_group: GroupSettingValue;
  can_subscribe_group: GroupSettingValue;
  recipient_id: number;
  /** The channel folder it is in (feature level 389); absent or null when none. */
  folder_id?: number | null;
}

/** Per-user settings of one channel subscription. */
export interface Subscription {
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  email_notifications: boolean | null;
  push_notifications: boolean | null;
  audible_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  /** Highest message id at subscription time: with protected history, only later messages are visible. */
  subscribed_after_message_id: number;
}

/** An uploaded file; messages refer to it as `/user_uploads/<path_id>` in their content. */
export interface Attachment {
  id: number;
  name: string;
  /** Path inside the upload store, e.g. `2/ab/cdef/report.pdf`. */
  path_id: string;
  size: number;
  /** UNIX milliseconds. */
  create_time: number;
  owner_id: number;
  /** Messages whose content refers to the file (kept by the message routes). */
  message_ids: Set<number>;
}

export interface Message {
  id: number;
  sender_id: number;
  type: 'stream' | 'private';
  /** Channel messages only. */
  stream_id?: number;
  /** Channel messages: the topic ('' is the empty topic). Direct messages: ''. */
  topic: string;
  /** Direct messages only: every participant including the sender, sorted. */
  dm_user_ids?: number[];
  recipient_id: number;
  /** Raw Markdown. */
  content: string;
  rendered_content: string;
  timestamp: number;
  client: string;
  is_me_message: boolean;
  reactions: Reaction[];
  /** Most recent first. */
  edit_history: EditHistoryEntry[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  /** Direct members (for system groups, derived from roles by {@link Store.groupDirectMembers}). */
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  date_created: number | null;
  creator_id: number | null;
  deactivated: boolean;
  can_add_members_group: GroupSettingValue;
  can_join_group: GroupSettingValue;
  can_leave_group: GroupSettingValue;
  can_manage_group: GroupSettingValue;
  can_mention_group: GroupSettingValue;
  can_remove_members_group: GroupSettingValue;
}

export interface ScheduledMessage {
  scheduled_message_id: number;
  sender_id: number;
  type: 'stream' | 'private';
  /** Channel id for channel messages, user ids for direct messages. */
  to: number | number[];
  topic: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

/** A user's presence: the modern wire entry, plus the update counter and the legacy per-client view. */
export interface PresenceRecord extends ModernPresence {
  last_update_id: number;
  /** Legacy per-client view. */
  clients: Record<string, { status: PresenceStatus; timestamp: number }>;
}

/** Organization settings that routes consult. Values follow the wire names. */
export interface RealmSettings {
  allow_message_editing: boolean;
  /** null means no limit. */
  message_content_edit_limit_seconds: number | null;
  move_messages_within_stream_limit_seconds: number | null;
  move_messages_between_streams_limit_seconds: number | null;
  can_resolve_topics_group: GroupSettingValue;
  can_move_messages_between_channels_group: GroupSettingValue;
  can_move_messages_between_topics_group: GroupSettingValue;
  can_mention_many_users_group: GroupSettingValue;
  can_create_web_public_channel_group: GroupSettingValue;
  can_access_all_users_group: GroupSettingValue;
  enable_spectator_access: boolean;
  web_public_streams_enabled: boolean;
  message_retention_days: number | null;
  allow_edit_history: boolean;
  /** Channels with more subscribers need can_mention_many_users_group for wildcard mentions. */
  wildcard_mention_large_stream_threshold: number;
  moderation_request_channel_id: number | null;
  /** When true, channel messages need a non-empty topic (Zulip's realm_mandatory_topics). */
  mandatory_topics?: boolean;
  /** The call provider the organization uses (routes/calls.ts); the others answer "... is not configured." @default none */
  video_chat_provider?: VideoChatProvider;
  // who may delete messages (https://zulip.com/api/delete-message).
  /** null means no limit. @default 600 */
  message_content_delete_limit_seconds?: number | null;
  /** @default role:administrators */
  can_delete_any_message_group?: GroupSettingValue;
  /** @default role:everyone */
  can_delete_own_message_group?: GroupSettingValue;
  /** Whether members may see who read a message (https://zulip.com/api/get-read-receipts). @default true */
  enable_read_receipts?: boolean;
  // who may invite (https://zulip.com/help/restrict-account-creation).
  /** Who may send email invitations. @default role:members */
  can_invite_users_group?: GroupSettingValue;
  /** Who may create reusable invitation links. @default role:administrators */
  can_create_multiuse_invite_group?: GroupSettingValue;
  /** Whether owners may export everyone's private data without consent (`full_without_consent`). @default false */
  owner_full_content_access?: boolean;
}

/** Call providers the emulator can create calls for, by Zulip's `realm_available_video_chat_providers` keys. */
export type VideoChatProvider = 'big_blue_button' | 'nextcloud_talk' | 'constructor_groups';

export interface Realm {
  id: number;
  name: string;
  /** Host part of API emails, e.g. `zulip.example.com`. */
  host: string;
  string_id: string;
  description: string;
  empty_topic_display_name: string;
  date_created: number;
  settings: RealmSettings;
}

export const FLAG_NAMES = [
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'wildcard_mentioned',
  'group_mentioned',
  'has_alert_word',
  'historical',
] as const satisfies readonly MessageFlag[];

/** System group names in containment order: each contains the next. */
export const SYSTEM_GROUPS = [
  'role:internet',
  'role:everyone',
  'role:members',
  'role:fullmembers',
  'role:moderators',
  'role:administrators',
  'role:owners',
  'role:nobody',
] as const;

/** An organization's custom profile field (https://zulip.com/api/get-custom-profile-fields). */
export interface CustomProfileField {
  id: number;
  name: string;
  /** 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8 pronouns. */
  type: number;
  hint: string;
  field_data: string;
  order: number;
  required: boolean;
  display_in_profile_summary: boolean;
  /** Whether users may change their own value (feature level 296); administrators always may. */
  editable_by_user?: boolean;
}

/**
 * The channel settings that hold a group-setting value (https://zulip.com/api/update-stream). The
 * emulator keeps its own list (it imports only types from the REST client); `satisfies` ties it to
 * the wire type's names.
 */
export const CHANNEL_PERMISSION_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const satisfies readonly ChannelPermissionSetting[];
