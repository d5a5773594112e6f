/**
 * Wire types for scheduled messages (https://zulip.com/api/get-scheduled-messages), snake_case
 * as sent. Listing, creating and deleting exist since feature level 173–179; editing since 184.
 */

/**
 * What a request may name as the type: `direct` and `channel` are the modern names, `private`
 * and `stream` the legacy ones (`channel` is newer than `direct`; `stream` works everywhere).
 */
export type ScheduledMessageRequestType = 'direct' | 'channel' | 'stream' | 'private';

interface ScheduledMessageBase {
  /** Differs from the ID the message gets once it is sent. */
  scheduled_message_id: number;
  /** Markdown. */
  content: string;
  /** HTML. */
  rendered_content: string;
  /** UNIX seconds, UTC. */
  scheduled_delivery_timestamp: number;
  /** True when the server tried to send it and failed (feature level 181). */
  failed: boolean;
}

export interface ScheduledChannelMessage extends ScheduledMessageBase {
  type: 'stream';
  /** The channel ID. */
  to: number;
  topic: string;
}

export interface ScheduledDirectMessage extends ScheduledMessageBase {
  type: 'private';
  /** The recipients' user IDs (without the sender, unless the message is to the sender alone). */
  to: number[];
}

/** A scheduled message; `topic` is present only for channel messages. */
export type ScheduledMessage = ScheduledChannelMessage | ScheduledDirectMessage;

/** `GET /scheduled_messages` success body. */
export interface GetScheduledMessagesResult {
  /** Undelivered scheduled messages, by scheduled_delivery_timestamp ascending. */
  scheduled_messages: ScheduledMessage[];
}

/** `POST /scheduled_messages` success body. */
export interface CreateScheduledMessageResult {
  scheduled_message_id: number;
}
