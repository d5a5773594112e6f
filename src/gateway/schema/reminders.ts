/**
 * Message reminders (Zulip 11.0): Notification Bot sends the user a message about another message
 * at a chosen time. The `reminders` query (feature level 399), and the `createMessageReminder`
 * (381; `note` at 415) and `deleteReminder` (399) mutations. A reminder is private to its owner.
 * https://zulip.com/api/get-reminders
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Reminder } from '../../zulip/model/reminders.js';
import { createMessageReminder, deleteReminder, getReminders } from '../../zulip/routes/reminders.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { getFeatureLevel, requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { checkMessageId, messageOrNull } from './messages/history.js';
import { MessageRef } from './messages/message.js';
import { asNode, fromList } from './node.js';

/** Zulip's limit on a reminder's note, in characters. */
const MAX_NOTE_LENGTH = 1000;

export const ReminderRef = builder.objectRef<Reminder>('Reminder').implement({
  description: 'A message Notification Bot will send the user at a chosen time, about another message. https://zulip.com/api/get-reminders',
  fields: (t) => ({
    zulipId: t.field({
      type: 'Long',
      description: 'The reminder ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type), not the ID the message will have once sent.',
      resolve: (r) => r.reminder_id,
    }),
    content: t.exposeString('content', { description: 'The reminder message, in Zulip-flavored Markdown.' }),
    renderedContent: t.exposeString('rendered_content', { description: 'The reminder message, in HTML.' }),
    scheduledDeliveryTimestamp: t.field({ type: 'Long', description: 'When it will be sent, in UNIX seconds.', resolve: (r) => r.scheduled_delivery_timestamp }),
    failed: t.exposeBoolean('failed', { description: 'Whether the server tried and failed to send it.' }),
    targetMessageId: t.field({ type: 'Long', description: 'The message the reminder is about.', resolve: (r) => r.reminder_target_message_id }),
    targetMessage: t.field({
      type: MessageRef,
      nullable: true,
      description: 'The message the reminder is about; null if the caller can no longer read it.',
      resolve: (r, _args, ctx) => messageOrNull(ctx, r.reminder_target_message_id),
    }),
  }),
});

/** The caller's reminders, as `reminders` lists them (UNSUPPORTED_BY_SERVER before feature level 399). */
async function listReminders(ctx: Context): Promise<Reminder[]> {
  await requireFeatureLevel(ctx, featureLevels.listReminders, 'Listing reminders');
  return (await getReminders(ctx.connection)).reminders;
}

asNode(ReminderRef, { key: (r) => r.reminder_id, load: fromList(listReminders, (r) => r.reminder_id, 'reminder') });

async function reminderById(ctx: Context, id: number): Promise<Reminder | null> {
  if ((await getFeatureLevel(ctx)) < featureLevels.listReminders) return null;
  const { reminders } = await getReminders(ctx.connection);
  return reminders.find((r) => r.reminder_id === id) ?? null;
}

const CreateMessageReminderPayloadRef = builder.objectRef<{ id: number }>('CreateMessageReminderPayload').implement({
  description: 'A reminder that was scheduled.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The new reminder\u2019s ID.', resolve: (p) => p.id }),
    reminder: t.field({
      type: ReminderRef,
      nullable: true,
      description: 'The reminder as the server stored it (fetched only when selected; null below feature level 399, which cannot list reminders).',
      resolve: (p, _args, ctx) => reminderById(ctx, p.id),
    }),
  }),
});

const DeleteReminderPayloadRef = builder.objectRef<{ id: number }>('DeleteReminderPayload').implement({
  description: 'A reminder that was cancelled.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The deleted reminder\u2019s ID (evict it from a client cache).', resolve: (p) => p.id }),
  }),
});

builder.queryField('reminders', (t) =>
  t.field({
    extensions: reaches('get-reminders'),
    type: [ReminderRef],
    description: 'The caller\u2019s undelivered reminders, soonest first. Needs feature level 399 (else UNSUPPORTED_BY_SERVER).',
    resolve: (_root, _args, ctx) => listReminders(ctx),
  }),
);

builder.mutationFields((t) => ({
  createMessageReminder: t.field({
    extensions: reaches('create-message-reminder'),
    type: CreateMessageReminderPayloadRef,
    description:
      'Schedules a reminder about a message, sent to the caller by Notification Bot. Fails with BAD_REQUEST: "Scheduled ' +
      'delivery time must be in the future.", "Invalid message(s)". Feature level 381 (a note: 415).',
    args: {
      messageId: t.arg({ type: 'Long', required: true, description: 'The message to be reminded of.' }),
      scheduledDeliveryTimestamp: t.arg({ type: 'Long', required: true, description: 'When to send the reminder, in UNIX seconds (in the future).' }),
      note: t.arg.string({ required: false, description: 'A note shown in the reminder, up to 1000 characters (feature level 415).' }),
    },
    resolve: async (_root, args, ctx) => {
      checkMessageId('createMessageReminder', args.messageId, 'messageId');
      if (args.scheduledDeliveryTimestamp <= 0) throw badInput('createMessageReminder: `scheduledDeliveryTimestamp` must be a positive UNIX time.', { argument: 'scheduledDeliveryTimestamp' });
      const note = args.note ?? undefined;
      if (note !== undefined && note.length > MAX_NOTE_LENGTH) throw badInput(`createMessageReminder: \`note\` must be at most ${MAX_NOTE_LENGTH} characters.`, { argument: 'note' });
      await requireFeatureLevel(ctx, featureLevels.messageReminders, 'Message reminders');
      if (note !== undefined) await requireFeatureLevel(ctx, featureLevels.reminderNote, 'A reminder note');
      const { reminder_id } = await createMessageReminder(ctx.connection, { messageId: args.messageId, scheduledDeliveryTimestamp: args.scheduledDeliveryTimestamp, note });
      return { id: reminder_id };
    },
  }),
  deleteReminder: t.field({
    extensions: reaches('delete-reminder'),
    type: DeleteReminderPayloadRef,
    description:
      'Cancels a reminder. An unknown ID, or another user\u2019s reminder, fails with BAD_REQUEST ("Reminder does not ' +
      'exist"). Feature level 399.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The reminder to cancel.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.id <= 0) throw badInput('deleteReminder: `id` must be a positive reminder ID.', { argument: 'id' });
      await requireFeatureLevel(ctx, featureLevels.listReminders, 'Deleting reminders');
      await deleteReminder(ctx.connection, { reminderId: args.id });
      return { id: args.id };
    },
  }),
}));
