/**
 * Message reminders (https://zulip.com/api/get-reminders): `POST /reminders` (feature level 381;
 * `note` at 415), `GET /reminders` and `DELETE /reminders/{reminder_id}` (399), the `reminders`
 * events and register state. As Zulip (zerver/views/reminders.py, zerver/lib/reminders.py): the
 * time must be in the future, the caller must be able to read the message, the note is at most
 * 1000 characters, and a reminder exists only for its owner. Delivery is not emulated (as for
 * scheduled messages); the content follows Zulip's, shortened.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Reminder } from '../../zulip/model/reminders.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import type { Store } from '../store.js';
import { accessMessage } from './messages/access.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's settings.MAX_REMINDER_NOTE_LENGTH. */
const MAX_NOTE_LENGTH = 1000;

function remindersOf(store: Store, userId: number): Reminder[] {
  return [...store.reminders.values()]
    .filter((r) => r.sender_id === userId)
    .sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id)
    .map(({ sender_id: _owner, ...reminder }) => reminder);
}

function createMessageReminder(ctx: RouteContext): Record<string, unknown> {
  const { store, user, params } = ctx;
  const messageId = params.int('message_id');
  const at = params.int('scheduled_delivery_timestamp');
  // TODO(server-11): reminderNote (415); drop the older branch once every supported server has it.
  const rawNote = ctx.settings.featureLevel >= featureLevels.reminderNote ? params.optStr('note') : undefined;
  if (at <= ctx.nowSeconds()) throw badRequest('Scheduled delivery time must be in the future.');
  const message = accessMessage(store, user, messageId);
  // Zulip's normalize_note_text.
  const note = rawNote?.trimEnd().replace(/^\n+/, '');
  if (note !== undefined && note.length > MAX_NOTE_LENGTH) throw badRequest(`Maximum reminder note length: ${MAX_NOTE_LENGTH} characters`);
  const sender = store.users.get(message.sender_id)!;
  const what = message.type === 'stream' ? 'message' : 'direct message';
  const intro = note ? `You requested a reminder for the following ${what}. Note:\n > ${note}` : `You requested a reminder for the following ${what}.`;
  const content = `${intro}\n\n@_**${sender.full_name}|${sender.user_id}** said:\n\`\`\`quote\n${message.content}\n\`\`\``;
  const reminder: Reminder = {
    reminder_id: store.nextId('scheduled'),
    type: 'private',
    to: [user.user_id],
    content,
    rendered_content: renderMarkdown(store, content).html,
    scheduled_delivery_timestamp: at,
    failed: false,
    reminder_target_message_id: message.id,
  };
  store.reminders.set(reminder.reminder_id, { ...reminder, sender_id: user.user_id });
  ctx.events.notify([user.user_id], { type: 'reminders', op: 'add', reminders: [reminder] });
  return { reminder_id: reminder.reminder_id };
}

function getReminders(ctx: RouteContext): Record<string, unknown> {
  return { reminders: remindersOf(ctx.store, ctx.user.user_id) };
}

function deleteReminder(ctx: RouteContext): Record<string, unknown> {
  const id = ctx.pathInt('reminder_id');
  const reminder = ctx.store.reminders.get(id);
  if (!reminder || reminder.sender_id !== ctx.user.user_id) throw new ApiError('BAD_REQUEST', 'Reminder does not exist', 404);
  ctx.store.reminders.delete(id);
  ctx.events.notify([ctx.user.user_id], { type: 'reminders', op: 'remove', reminder_id: id });
  return {};
}

export const routes: Route[] = [
  { operation: ops.createMessageReminder, handler: createMessageReminder },
  { operation: ops.getReminders, handler: getReminders },
  { operation: ops.deleteReminder, handler: deleteReminder },
];

/** The `reminders` register key (feature level 399). */
export function initialState(ctx: StateContext): Record<string, unknown> {
  // TODO(server-11): listReminders (399); drop the older branch once every supported server has it.
  if (!ctx.wants('reminders') || ctx.settings.featureLevel < featureLevels.listReminders) return {};
  return { reminders: remindersOf(ctx.store, ctx.user.user_id) };
}
