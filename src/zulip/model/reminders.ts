/**
 * Wire types of message reminders (https://zulip.com/api/get-reminders): messages Notification
 * Bot will send the user at a chosen time, linking a message. New in Zulip 11.0 (feature level
 * 381; listing and deleting at 399).
 */

/** A pending reminder, as `GET /reminders` and the `reminders` event carry it. */
export interface Reminder {
  /** Not the ID the message will have once sent. */
  reminder_id: number;
  /** Always `private`: a reminder is a direct message to oneself. */
  type: 'private';
  /** The user who set the reminder (and receives it). */
  to: number[];
  /** Zulip-flavored Markdown. */
  content: string;
  rendered_content: string;
  /** UNIX seconds. */
  scheduled_delivery_timestamp: number;
  /** Whether the server tried and failed to send it. */
  failed: boolean;
  /** The message the reminder is about. */
  reminder_target_message_id: number;
}

export interface GetRemindersResult {
  /** Undelivered reminders, by `scheduled_delivery_timestamp` ascending. */
  reminders: Reminder[];
}

export interface CreateMessageReminderResult {
  reminder_id: number;
}
