/**
 * Wire types for channels and topics (https://zulip.com/api/get-streams,
 * https://zulip.com/api/get-stream-topics), snake_case as sent.
 */

/** Who holds a permission: a user group ID, or an anonymous group of users and subgroups. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/**
 * A change of a group-setting value (https://zulip.com/api/update-stream): the new value and,
 * optionally, the value the client believes is current (the server refuses the change otherwise).
 */
export interface GroupSettingValueUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

/** The five channel permissions that are group-setting values. */
const CHANNEL_PERMISSION_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;

export type ChannelPermissionSetting = (typeof CHANNEL_PERMISSION_SETTINGS)[number];

export interface Channel {
  stream_id: number;
  name: string;
  /** New in feature level 315; absent (meaning false) on older servers. */
  is_archived: boolean;
  /** Markdown. */
  description: string;
  /** HTML. */
  rendered_description: string;
  /** UNIX seconds, UTC. */
  date_created: number;
  /** Null when no creator is recorded. */
  creator_id: number | null;
  /** True for private channels. */
  invite_only: boolean;
  is_web_public: boolean;
  /** @deprecated inaccurate since posting became group-controlled (can_send_message_group). */
  stream_post_policy: number;
  /** @deprecated */
  is_announcement_only: boolean;
  /** Null inherits the organization setting; -1 keeps messages forever. */
  message_retention_days: number | null;
  history_public_to_subscribers: boolean;
  /** Null for channels without messages. */
  first_message_id: number | null;
  is_recently_active: boolean;
  can_add_subscribers_group: GroupSettingValue;
  can_remove_subscribers_group: GroupSettingValue;
  can_administer_channel_group: GroupSettingValue;
  can_send_message_group: GroupSettingValue;
  can_subscribe_group: GroupSettingValue;
  /** Estimated messages per week; null when no estimate is given. */
  stream_weekly_traffic: number | null;
  /** Present only when include_default is true. */
  is_default?: boolean;
  /** The channel folder it is in; null when none. New in feature level 389 (absent before). */
  folder_id?: number | null;
}

/** `GET /streams` success body. */
export interface GetStreamsResult {
  streams: Channel[];
}

/** `GET /streams/{stream_id}` success body. */
export interface GetStreamByIdResult {
  stream: Channel;
}

/** One topic of a channel, as `GET /users/me/{stream_id}/topics` lists them (newest first). */
export interface Topic {
  name: string;
  /** ID of the newest message in the topic. */
  max_id: number;
}

/** `GET /users/me/{stream_id}/topics` success body. */
export interface GetStreamTopicsResult {
  topics: Topic[];
}

/** `message_retention_days` as `PATCH /streams/{stream_id}` and subscribe accept it. */
export type MessageRetentionDaysParam = number | 'realm_default' | 'unlimited';

export interface GetStreamIdResult {
  stream_id: number;
}

export interface GetStreamEmailAddressResult {
  /** The address; mail sent to it is posted to the channel. */
  email: string;
}

// ---- channel creation, topic deletion and channel folders ----

/** `POST /channels/create` success body (feature level 417). */
export interface CreateChannelResult {
  /** The new channel's ID. */
  id: number;
}

/** `POST /streams/{stream_id}/delete_topic` success body. */
export interface DeleteTopicResult {
  /** False when the server stopped before deleting every message (repeat the request); absent before feature level 211. */
  complete?: boolean;
}

/** A channel folder (feature level 389). https://zulip.com/api/get-channel-folders */
export interface ChannelFolder {
  id: number;
  name: string;
  /** Markdown. */
  description: string;
  /** HTML. */
  rendered_description: string;
  /** Null when not recorded. */
  creator_id: number | null;
  /** UNIX seconds, UTC; null when not recorded. */
  date_created: number | null;
  is_archived: boolean;
  /** Display position, 0-based. New in feature level 414 (absent before). */
  order?: number;
}

/** `GET /channel_folders` success body. */
export interface GetChannelFoldersResult {
  channel_folders: ChannelFolder[];
}

/** `POST /channel_folders/create` success body. */
export interface CreateChannelFolderResult {
  channel_folder_id: number;
}
