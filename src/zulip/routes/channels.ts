/** Bindings for channels and their topics; parameter encodings as in docs/zulip-parameters.md. */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import type {
  GetStreamByIdResult,
  GetStreamEmailAddressResult,
  GetStreamIdResult,
  GetStreamsResult,
  GetStreamTopicsResult,
  GroupSettingValueUpdate,
  MessageRetentionDaysParam,
  CreateChannelResult,
  CreateChannelFolderResult,
  DeleteTopicResult,
  GetChannelFoldersResult,
} from '../model/channels.js';
import * as channels from '../generated/channels.js';
import type { GetStreamEmailAddressParams, GetStreamIdParams } from '../generated/channels.js';

/** Which channels `GET /streams` returns; each flag is sent only when set. */
export interface GetStreamsOptions {
  /** @default true (server side) */
  includePublic?: boolean;
  /** @default false (server side) */
  includeWebPublic?: boolean;
  /** @default true (server side) */
  includeSubscribed?: boolean;
  /** Leave archived channels out. New in feature level 315. @default true (server side) */
  excludeArchived?: boolean;
  /** Every channel the caller has metadata access to. New in feature level 356. @default false (server side) */
  includeAll?: boolean;
  /** Add `is_default` to each channel. @default false (server side) */
  includeDefault?: boolean;
  /** For bots: channels the bot's owner is subscribed to. @default false (server side) */
  includeOwnerSubscribed?: boolean;
  /** @default false (server side) */
  includeCanAccessContent?: boolean;
  /** @deprecated administrators only; use includeAll. @default false (server side) */
  includeAllActive?: boolean;
}

/**
 * The channels the caller can see, filtered by the flags.
 * https://zulip.com/api/get-streams
 */
export function getStreams(
  connection: ZulipConnection,
  options: GetStreamsOptions = {},
  call: SendOptions = {},
): Promise<SendResult<GetStreamsResult>> {
  return channels.getStreams(connection, options, call);
}

/**
 * One channel by ID (archived ones too, since feature level 315). The ID is positional because
 * the channel loader calls this once per missing key.
 * https://zulip.com/api/get-stream-by-id
 */
export function getStreamById(
  connection: ZulipConnection,
  streamId: number,
  call: SendOptions = {},
): Promise<SendResult<GetStreamByIdResult>> {
  return channels.getStreamById(connection, { streamId }, call);
}

export interface UpdateStreamOptions {
  streamId: number;
  /** Markdown; at most max_stream_description_length characters. */
  description?: string;
  /** At most max_stream_name_length characters. */
  newName?: string;
  isPrivate?: boolean;
  /** New in feature level 98. */
  isWebPublic?: boolean;
  /** Accepted alone since feature level 136. */
  historyPublicToSubscribers?: boolean;
  /** Add or remove the channel as a default channel (feature level 200). */
  isDefaultStream?: boolean;
  /** Days, `realm_default` or `unlimited`. Organization owners only. */
  messageRetentionDays?: MessageRetentionDaysParam;
  canAddSubscribersGroup?: GroupSettingValueUpdate;
  canRemoveSubscribersGroup?: GroupSettingValueUpdate;
  canAdministerChannelGroup?: GroupSettingValueUpdate;
  canSendMessageGroup?: GroupSettingValueUpdate;
  canSubscribeGroup?: GroupSettingValueUpdate;
}

/**
 * Changes a channel's name, description, privacy, default status, retention or permissions.
 * https://zulip.com/api/update-stream
 */
export function updateStream(
  connection: ZulipConnection,
  options: UpdateStreamOptions,
  call: SendOptions = {},
): Promise<SendResult<Record<string, never>>> {
  return channels.updateStream(connection, options, call);
}

/**
 * Archives a channel (organization or channel administrators).
 * https://zulip.com/api/archive-stream
 */
export function archiveStream(
  connection: ZulipConnection,
  options: { streamId: number },
  call: SendOptions = {},
): Promise<SendResult<Record<string, never>>> {
  return channels.archiveStream(connection, options, call);
}

export interface GetStreamTopicsOptions {
  streamId: number;
  /**
   * Return the empty topic as '' instead of the organization's display name for it. New in
   * feature level 334. @default false (server side)
   */
  allowEmptyTopicName?: boolean;
}

/**
 * The topics of a channel the caller can read, newest first.
 * https://zulip.com/api/get-stream-topics
 */
export function getStreamTopics(
  connection: ZulipConnection,
  options: GetStreamTopicsOptions,
  call: SendOptions = {},
): Promise<SendResult<GetStreamTopicsResult>> {
  return channels.getStreamTopics(connection, options, call);
}

/**
 * The ID of a channel the caller can access, by name; BAD_REQUEST "Invalid channel name '…'" otherwise.
 * https://zulip.com/api/get-stream-id
 */
export const getStreamId = (c: ZulipConnection, p: GetStreamIdParams, call?: SendOptions): Promise<SendResult<GetStreamIdResult>> =>
  channels.getStreamId(c, p, call);

/**
 * The email address of a channel (feature level 226), posting as `senderId` (feature level 335).
 * https://zulip.com/api/get-stream-email-address
 */
export const getStreamEmailAddress = (
  c: ZulipConnection,
  p: GetStreamEmailAddressParams,
  call?: SendOptions,
): Promise<SendResult<GetStreamEmailAddressResult>> => channels.getStreamEmailAddress(c, p, call);

// ---- channel creation, topic deletion and channel folders ----

/**
 * Creates a channel and subscribes `subscribers` to it (feature level 417).
 * https://zulip.com/api/create-channel
 */
export const createChannel = (c: ZulipConnection, p: channels.CreateChannelParams, call?: SendOptions): Promise<SendResult<CreateChannelResult>> =>
  channels.createChannel(c, p, call);

/**
 * Deletes every message of a topic the caller can see (organization administrators).
 * https://zulip.com/api/delete-topic
 */
export const deleteTopic = (c: ZulipConnection, p: channels.DeleteTopicParams, call?: SendOptions): Promise<SendResult<DeleteTopicResult>> =>
  channels.deleteTopic(c, p, call);

/**
 * The organization's channel folders, by `order` (feature level 389).
 * https://zulip.com/api/get-channel-folders
 */
export const getChannelFolders = (
  c: ZulipConnection,
  p: channels.GetChannelFoldersParams = {},
  call?: SendOptions,
): Promise<SendResult<GetChannelFoldersResult>> => channels.getChannelFolders(c, p, call);

/**
 * Creates a channel folder (organization administrators; feature level 389).
 * https://zulip.com/api/create-channel-folder
 */
export const createChannelFolder = (
  c: ZulipConnection,
  p: channels.CreateChannelFolderParams,
  call?: SendOptions,
): Promise<SendResult<CreateChannelFolderResult>> => channels.createChannelFolder(c, p, call);

/**
 * Renames, describes, archives or unarchives a channel folder (organization administrators; feature level 389).
 * https://zulip.com/api/update-channel-folder
 */
export const updateChannelFolder = (c: ZulipConnection, p: channels.UpdateChannelFolderParams, call?: SendOptions): Promise<SendResult<object>> =>
  channels.updateChannelFolder(c, p, call);

/**
 * Reorders every channel folder of the organization (organization administrators; feature level 414).
 * https://zulip.com/api/patch-channel-folders
 */
export const patchChannelFolders = (c: ZulipConnection, p: channels.PatchChannelFoldersParams, call?: SendOptions): Promise<SendResult<object>> =>
  channels.patchChannelFolders(c, p, call);
