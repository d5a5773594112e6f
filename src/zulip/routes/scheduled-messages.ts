/** Bindings for scheduled messages ("send later"). */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type {
  CreateScheduledMessageResult,
  GetScheduledMessagesResult,
  ScheduledMessageRequestType,
} from '../model/scheduled-messages.js';
import * as ops from '../generated/scheduled-messages.js';

/**
 * The caller's undelivered scheduled messages (failed ones included), soonest first.
 * New in feature level 173.
 * https://zulip.com/api/get-scheduled-messages
 */
export function getScheduledMessages(
  connection: ZulipConnection,
  call: SendOptions = {},
): Promise<GetScheduledMessagesResult> {
  return ops.getScheduledMessages(connection, {}, call);
}

export interface CreateScheduledMessageOptions {
  /** `direct` needs feature level 174 and `channel` a later one; `stream` and `private` work everywhere. */
  type: ScheduledMessageRequestType;
  /** The channel ID for channel messages; user IDs for direct messages. */
  to: number | number[];
  /** Markdown, bounded by max_message_length. */
  content: string;
  /** Required for channel messages, ignored for direct ones; bounded by max_topic_length. */
  topic?: string;
  /** UNIX seconds, UTC; must be in the future. */
  scheduledDeliveryTimestamp: number;
  /** Mark the message read for the sender once sent (feature level 236). @default a server heuristic */
  readBySender?: boolean;
}

/**
 * Schedules a message. Unknown channel: STREAM_DOES_NOT_EXIST with `stream_id`; unknown user:
 * BAD_REQUEST. New in feature level 179.
 * https://zulip.com/api/create-scheduled-message
 */
export function createScheduledMessage(
  connection: ZulipConnection,
  options: CreateScheduledMessageOptions,
  call: SendOptions = {},
): Promise<CreateScheduledMessageResult> {
  return ops.createScheduledMessage(connection, options, call);
}

export interface UpdateScheduledMessageOptions {
  scheduledMessageId: number;
  /** Changing the type needs `to`, and `topic` too for channel types. */
  type?: ScheduledMessageRequestType;
  to?: number | number[];
  content?: string;
  /** Ignored for direct messages. */
  topic?: string;
  /** UNIX seconds, UTC; required when the message has failed (editing makes it pending again). */
  scheduledDeliveryTimestamp?: number;
}

/**
 * Edits a scheduled message. New in feature level 184.
 * https://zulip.com/api/update-scheduled-message
 */
export function updateScheduledMessage(
  connection: ZulipConnection,
  options: UpdateScheduledMessageOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.updateScheduledMessage(connection, options, call);
}

export interface DeleteScheduledMessageOptions {
  scheduledMessageId: number;
}

/**
 * Deletes (cancels) a scheduled message. New in feature level 173.
 * https://zulip.com/api/delete-scheduled-message
 */
export function deleteScheduledMessage(
  connection: ZulipConnection,
  options: DeleteScheduledMessageOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.deleteScheduledMessage(connection, options, call);
}
