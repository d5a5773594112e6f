/**
 * Bindings for messages and their personal flags. Each function takes the connection and a
 * camelCase options object, and returns the success body (see ../model/messages.ts). Each
 * parameter is declared `raw` (Zulip reads `str`) or `json` (Zulip reads `Json[...]`), as listed in
 * docs/zulip-parameters.md: a narrow always travels as one JSON `narrow=[...]` parameter, never as
 * bracketed keys, while `anchor`, `content` and `topic` go as plain text.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type {
  Anchor,
  CheckMessagesMatchNarrowResult,
  FlagOp,
  GetMessageHistoryResult,
  GetReadReceiptsResult,
  GetMessageResult,
  GetMessagesResult,
  MarkAllAsReadResult,
  RenderMessageResult,
  NarrowTerm,
  PropagateMode,
  SendMessageResult,
  SendMessageType,
  UpdateMessageFlagsForNarrowResult,
  UpdateMessageFlagsResult,
  UpdateMessageResult,
} from '../model/messages.js';
import * as ops from '../generated/messages.js';

/**
 * Zulip answers 400 "The anchor can only be excluded at an end of the range" when `include_anchor`
 * is false while both `num_before` and `num_after` are positive (get_messages_backend and
 * update_message_flags_for_narrow). A caller asking for that has a bug: fail before any request.
 * To page past a cursor, keep the anchor (the default) and drop it from the result, or ask for
 * one side only (`numBefore: 0` or `numAfter: 0`).
 */
function anchorExclusionError(
  routeName: string,
  options: { includeAnchor?: boolean; numBefore?: number; numAfter?: number },
): RangeError | undefined {
  if (options.includeAnchor === false && (options.numBefore ?? 0) > 0 && (options.numAfter ?? 0) > 0) {
    return new RangeError(
      `${routeName}: includeAnchor false needs numBefore or numAfter to be 0 (Zulip only excludes the anchor at an end of the range)`,
    );
  }
  return undefined;
}

/**
 * Either a window around an anchor (`anchor`, `numBefore`, `numAfter`, `includeAnchor`) or a
 * list of `messageIds` (feature level 300); the server rejects a mix of the two.
 */
export interface GetMessagesOptions {
  /** Message ID, or `newest`, `oldest`, `first_unread` (feature level 1). */
  anchor?: Anchor;
  /**
   * Whether the anchor message itself may be returned. New in feature level 155. `false` only with
   * `numBefore` or `numAfter` 0 (see {@link anchorExclusionError}). @default true (server side)
   */
  includeAnchor?: boolean;
  /** Required unless messageIds is given; at most 5000 in total (1000 recommended). */
  numBefore?: number;
  numAfter?: number;
  /** @default [] (server side): the caller's personal history. Sent as one JSON text parameter. */
  narrow?: NarrowTerm[];
  /** Leave `avatar_url` null for gravatar users whose email the caller sees. @default true (server side) */
  clientGravatar?: boolean;
  /** HTML (true) or the Markdown source (false) in `content`. @default true (server side) */
  applyMarkdown?: boolean;
  /** Fetch exactly these messages (those that exist and are accessible). New in feature level 300. */
  messageIds?: number[];
  /** Return the empty topic as `""` instead of the display name. New in feature level 334. @default false (server side) */
  allowEmptyTopicName?: boolean;
  /** @deprecated use `anchor: 'first_unread'`. @default false (server side) */
  useFirstUnreadAnchor?: boolean;
}

/**
 * Messages matching a narrow, around an anchor or by ID.
 * https://zulip.com/api/get-messages
 */
export function getMessages(
  connection: ZulipConnection,
  options: GetMessagesOptions,
  call: SendOptions = {},
): Promise<GetMessagesResult> {
  const refused = anchorExclusionError('getMessages', options);
  if (refused) return Promise.reject(refused);
  // The anchor is a `str` in Zulip's view: a message ID travels as its text.
  return ops.getMessages(connection, { ...options, anchor: options.anchor === undefined ? undefined : String(options.anchor) }, call);
}

export interface GetMessageOptions {
  messageId: number;
  /** HTML (true) or the Markdown source (false) in `content`. New in feature level 120. @default true (server side) */
  applyMarkdown?: boolean;
  /** Return the empty topic as `""` instead of the display name. New in feature level 334. @default false (server side) */
  allowEmptyTopicName?: boolean;
}

/**
 * One message by ID, with its Markdown source in `raw_content` as well.
 * https://zulip.com/api/get-message
 */
export function getMessage(
  connection: ZulipConnection,
  options: GetMessageOptions,
  call: SendOptions = {},
): Promise<GetMessageResult> {
  return ops.getMessage(connection, options, call);
}

export interface SendMessageOptions {
  /** `direct` (feature level 174; `private` before) or `channel` (feature level 248; `stream` before). */
  type: SendMessageType;
  /** Channel messages: the channel ID or name. Direct messages: user IDs (or API emails). */
  to: number | string | number[] | string[];
  /** Markdown; bounded by max_message_length. */
  content: string;
  /** Channel messages only (required there); bounded by max_topic_length. */
  topic?: string;
  /** Local echo: the caller's event queue ID; `localId` is then required. */
  queueId?: string;
  /** Local echo: an opaque ID that the `message` event on `queueId` carries back. */
  localId?: string;
  /** Mark the message read for its sender. New in feature level 236. @default a server heuristic on the client name */
  readBySender?: boolean;
}

/**
 * Sends a channel or direct message.
 * https://zulip.com/api/send-message
 */
export function sendMessage(
  connection: ZulipConnection,
  options: SendMessageOptions,
  call: SendOptions = {},
): Promise<SendMessageResult> {
  return ops.sendMessage(connection, options, call);
}

export interface UpdateMessageOptions {
  messageId: number;
  /** New topic (channel messages only). */
  topic?: string;
  /** Which messages move: only `change_one` is valid for a content-only edit. @default 'change_one' (server side) */
  propagateMode?: PropagateMode;
  /** @default false (server side) */
  sendNotificationToOldThread?: boolean;
  /** Not applied when the move only resolves or unresolves a topic. @default true (server side) */
  sendNotificationToNewThread?: boolean;
  /** New Markdown content; cannot be combined with `streamId`. */
  content?: string;
  /** Target channel (channel messages only); cannot be combined with `content`. */
  streamId?: number;
}

/**
 * Edits a message's content, or moves it (and, by propagate mode, its topic) to another topic or
 * channel. Fails with MOVE_MESSAGES_TIME_LIMIT_EXCEEDED (extra fields in the error's `data`) when
 * only part of a topic may still be moved.
 * https://zulip.com/api/update-message
 */
export function updateMessage(
  connection: ZulipConnection,
  options: UpdateMessageOptions,
  call: SendOptions = {},
): Promise<UpdateMessageResult> {
  return ops.updateMessage(connection, options, call);
}

export interface UpdateMessageFlagsOptions {
  /** IDs of the target messages. */
  messages: number[];
  op: FlagOp;
  /** `read`, `starred` or `collapsed` (the other flags follow the content). */
  flag: string;
}

/**
 * Adds or removes a personal flag on the given messages.
 * https://zulip.com/api/update-message-flags
 */
export function updateMessageFlags(
  connection: ZulipConnection,
  options: UpdateMessageFlagsOptions,
  call: SendOptions = {},
): Promise<UpdateMessageFlagsResult> {
  return ops.updateMessageFlags(connection, options, call);
}

export interface UpdateMessageFlagsForNarrowOptions {
  anchor: Anchor;
  /** `false` only with `numBefore` or `numAfter` 0 (see {@link anchorExclusionError}). @default true (server side) */
  includeAnchor?: boolean;
  /** The server may lower them to bound its transactions. */
  numBefore: number;
  numAfter: number;
  /** Use `is:unread` when adding `read`: the server has an index for it. */
  narrow: NarrowTerm[];
  op: FlagOp;
  flag: string;
}

/**
 * Adds or removes a personal flag on a range of messages in a narrow. New in feature level 155.
 * https://zulip.com/api/update-message-flags-for-narrow
 */
export function updateMessageFlagsForNarrow(
  connection: ZulipConnection,
  options: UpdateMessageFlagsForNarrowOptions,
  call: SendOptions = {},
): Promise<UpdateMessageFlagsForNarrowResult> {
  const refused = anchorExclusionError('updateMessageFlagsForNarrow', options);
  if (refused) return Promise.reject(refused);
  return ops.updateMessageFlagsForNarrow(connection, { ...options, anchor: String(options.anchor) }, call);
}

// ---- marking as read (deprecated by Zulip in favour of update-message-flags-for-narrow) ----------

/**
 * Marks every unread message of the caller as read. `complete: false` means the server stopped
 * after some batches; the caller repeats the request. https://zulip.com/api/mark-all-as-read
 */
export const markAllAsRead = (connection: ZulipConnection, params: ops.MarkAllAsReadParams = {}, call?: SendOptions): Promise<MarkAllAsReadResult> =>
  ops.markAllAsRead(connection, params, call);

/** Marks every unread message of a channel as read. https://zulip.com/api/mark-stream-as-read */
export const markStreamAsRead = (connection: ZulipConnection, params: ops.MarkStreamAsReadParams, call?: SendOptions): Promise<object> =>
  ops.markStreamAsRead(connection, params, call);

/** Marks every unread message of a topic as read. https://zulip.com/api/mark-topic-as-read */
export const markTopicAsRead = (connection: ZulipConnection, params: ops.MarkTopicAsReadParams, call?: SendOptions): Promise<object> =>
  ops.markTopicAsRead(connection, params, call);

/**
 * Deletes a message for everyone. Needs the organization's permission (administrators by default
 * for other users' messages; one's own within the deletion time limit). https://zulip.com/api/delete-message
 */
export const deleteMessage = (connection: ZulipConnection, params: ops.DeleteMessageParams, call?: SendOptions): Promise<object> =>
  ops.deleteMessage(connection, params, call);

/** Renders Markdown as the server would for a message, without sending it. https://zulip.com/api/render-message */
export const renderMessage = (connection: ZulipConnection, params: ops.RenderMessageParams, call?: SendOptions): Promise<RenderMessageResult> =>
  ops.renderMessage(connection, params, call);

// edit history, read receipts, narrow matches, reports.

/** The message's edit history, oldest snapshot first. https://zulip.com/api/get-message-history */
export const getMessageHistory = (connection: ZulipConnection, params: ops.GetMessageHistoryParams, call?: SendOptions): Promise<GetMessageHistoryResult> =>
  ops.getMessageHistory(connection, params, call);

/** Who has read the message (feature level 137). https://zulip.com/api/get-read-receipts */
export const getReadReceipts = (connection: ZulipConnection, params: ops.GetReadReceiptsParams, call?: SendOptions): Promise<GetReadReceiptsResult> =>
  ops.getReadReceipts(connection, params, call);

/**
 * Which of the given messages match a narrow, with search hits highlighted. The narrow takes either
 * term form, as `GET /messages` does (the generated type names only the object form).
 * https://zulip.com/api/check-messages-match-narrow
 */
export const checkMessagesMatchNarrow = (
  connection: ZulipConnection,
  params: { readonly msgIds: readonly number[]; readonly narrow: readonly NarrowTerm[] },
  call?: SendOptions,
): Promise<CheckMessagesMatchNarrowResult> =>
  ops.checkMessagesMatchNarrow(connection, params as ops.CheckMessagesMatchNarrowParams, call);

/** Reports a message to the organization's moderators (feature level 382). https://zulip.com/api/report-message */
export const reportMessage = (connection: ZulipConnection, params: ops.ReportMessageParams, call?: SendOptions): Promise<object> =>
  ops.reportMessage(connection, params, call);
