/**
 * Bindings for messages and their personal flags. Each function takes the connection and a
 * camelCase options object, and returns the success body (see ../model/messages.ts). Parameter
 * encoding is the connection's: strings raw, everything else (arrays, narrows, booleans) as JSON
 * text, so a narrow always travels as one `narrow=[...]` parameter, never as bracketed keys.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type {
  Anchor,
  FlagOp,
  GetMessageResult,
  GetMessagesResult,
  NarrowTerm,
  PropagateMode,
  SendMessageResult,
  SendMessageType,
  UpdateMessageFlagsForNarrowResult,
  UpdateMessageFlagsResult,
  UpdateMessageResult,
} from '../model/messages.js';

/** Anchors go as text: a decimal message ID or a name (api-spec.md, GET /messages). */
function anchorParam(anchor: Anchor | undefined): string | undefined {
  return anchor === undefined ? undefined : String(anchor);
}

/**
 * Either a window around an anchor (`anchor`, `numBefore`, `numAfter`, `includeAnchor`) or a
 * list of `messageIds` (feature level 300); the server rejects a mix of the two.
 */
export interface GetMessagesOptions {
  /** Message ID, or `newest`, `oldest`, `first_unread` (feature level 1). */
  anchor?: Anchor;
  /** Whether the anchor message itself may be returned. New in feature level 155. @default true (server side) */
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
  return connection.send<GetMessagesResult>(
    'get-messages',
    'GET',
    'messages',
    {
      anchor: anchorParam(options.anchor),
      include_anchor: options.includeAnchor,
      num_before: options.numBefore,
      num_after: options.numAfter,
      narrow: options.narrow,
      client_gravatar: options.clientGravatar,
      apply_markdown: options.applyMarkdown,
      message_ids: options.messageIds,
      allow_empty_topic_name: options.allowEmptyTopicName,
      use_first_unread_anchor: options.useFirstUnreadAnchor,
    },
    call,
  );
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
  return connection.send<GetMessageResult>(
    'get-message',
    'GET',
    `messages/${options.messageId}`,
    { apply_markdown: options.applyMarkdown, allow_empty_topic_name: options.allowEmptyTopicName },
    call,
  );
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
  return connection.send<SendMessageResult>(
    'send-message',
    'POST',
    'messages',
    {
      type: options.type,
      // Everything as JSON, a channel name included: the server JSON-decodes `to` first, so a raw
      // name made of digits would read as a channel ID (Zulip's extract_stream_indicator).
      to: JSON.stringify(options.to),
      content: options.content,
      topic: options.topic,
      queue_id: options.queueId,
      local_id: options.localId,
      read_by_sender: options.readBySender,
    },
    call,
  );
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
  return connection.send<UpdateMessageResult>(
    'update-message',
    'PATCH',
    `messages/${options.messageId}`,
    {
      topic: options.topic,
      propagate_mode: options.propagateMode,
      send_notification_to_old_thread: options.sendNotificationToOldThread,
      send_notification_to_new_thread: options.sendNotificationToNewThread,
      content: options.content,
      stream_id: options.streamId,
    },
    call,
  );
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
  return connection.send<UpdateMessageFlagsResult>(
    'update-message-flags',
    'POST',
    'messages/flags',
    { messages: options.messages, op: options.op, flag: options.flag },
    call,
  );
}

export interface UpdateMessageFlagsForNarrowOptions {
  anchor: Anchor;
  /** @default true (server side) */
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
  return connection.send<UpdateMessageFlagsForNarrowResult>(
    'update-message-flags-for-narrow',
    'POST',
    'messages/flags/narrow',
    {
      anchor: anchorParam(options.anchor),
      include_anchor: options.includeAnchor,
      num_before: options.numBefore,
      num_after: options.numAfter,
      narrow: options.narrow,
      op: options.op,
      flag: options.flag,
    },
    call,
  );
}
