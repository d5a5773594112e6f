/**
 * Bindings for message reminders, new in Zulip 11.0: creating one (feature level 381; `note` at
 * 415), listing and deleting them (399). An unknown or another user's reminder fails with
 * BAD_REQUEST "Reminder does not exist" (HTTP 404).
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/reminders.js';
import type { CreateMessageReminderResult, GetRemindersResult } from '../model/reminders.js';

/** Schedules a reminder about a message, sent to the caller. https://zulip.com/api/create-message-reminder */
export const createMessageReminder = (
  connection: ZulipConnection,
  params: ops.CreateMessageReminderParams,
  call?: SendOptions,
): Promise<CreateMessageReminderResult> => ops.createMessageReminder(connection, params, call);

/** The caller's undelivered reminders. https://zulip.com/api/get-reminders */
export const getReminders = (connection: ZulipConnection, params: ops.GetRemindersParams = {}, call?: SendOptions): Promise<GetRemindersResult> =>
  ops.getReminders(connection, params, call);

/** Cancels a reminder. https://zulip.com/api/delete-reminder */
export const deleteReminder = (connection: ZulipConnection, params: ops.DeleteReminderParams, call?: SendOptions): Promise<object> =>
  ops.deleteReminder(connection, params, call);
