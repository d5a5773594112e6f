/**
 * The emulator's message reminders, driven through the REST client: create (feature level 381,
 * `note` at 415), list and delete (399), the `reminders` events and register state, Zulip's
 * refusals, and 404 on older servers.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import { registerQueue } from '../../src/zulip/routes/events.js';
import { sendMessage } from '../../src/zulip/routes/messages.js';
import { createMessageReminder, deleteReminder, getReminders } from '../../src/zulip/routes/reminders.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const START = Date.UTC(2026, 0, 1) / 1000;

function setup(featureLevel = 415) {
  const t = setupEmulator({ clock: new ManualClock(START * 1000), eventTypes: ['reminders'], settings: { featureLevel } });
  const post = async () => (await sendMessage(t.as('iago'), { type: 'stream', to: t.channelId('general'), topic: 'plans', content: 'ship it' })).id;
  return { ...t, post };
}

describe('reminders', () => {
  it('creates reminders, lists them soonest first, and deletes one, with events', async () => {
    const { as, post, listen, userId } = setup();
    const events = await listen('hamlet');
    const id = await post();
    const later = await createMessageReminder(as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START + 7200, note: 'check CI' });
    const sooner = await createMessageReminder(as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START + 3600 });
    const { reminders } = await getReminders(as('hamlet'));
    expect(reminders.map((r) => r.reminder_id)).toEqual([sooner.reminder_id, later.reminder_id]);
    expect(reminders[1]).toMatchObject({ type: 'private', to: [userId('hamlet')], failed: false, reminder_target_message_id: id, scheduled_delivery_timestamp: START + 7200 });
    expect(reminders[1]!.content).toContain('Note:\n > check CI');
    expect(reminders[1]!.content).toContain('ship it');
    expect(reminders[0]!.rendered_content).toMatch(/^<p>You requested a reminder for the following message.<\/p>[^]*ship it/);
    expect((await getReminders(as('iago'))).reminders).toEqual([]);
    await deleteReminder(as('hamlet'), { reminderId: later.reminder_id });
    expect((await getReminders(as('hamlet'))).reminders.map((r) => r.reminder_id)).toEqual([sooner.reminder_id]);
    const got = await events();
    expect(got.map((e) => e.op)).toEqual(['add', 'add', 'remove']);
    expect(got[2]).toMatchObject({ type: 'reminders', op: 'remove', reminder_id: later.reminder_id });
    const state = await registerQueue(as('hamlet'), { fetchEventTypes: ['reminders'] });
    expect((state as unknown as { reminders: { reminder_id: number }[] }).reminders.map((r) => r.reminder_id)).toEqual([sooner.reminder_id]);
  });

  it('refuses a past time, an unreadable message, a long note, and another user\u2019s reminder', async () => {
    const { as, post } = setup();
    const id = await post();
    const past = await caughtApiError(createMessageReminder(as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START }));
    expect([past.code, past.message]).toEqual(['BAD_REQUEST', 'Scheduled delivery time must be in the future.']);
    const unknown = await caughtApiError(createMessageReminder(as('hamlet'), { messageId: 999_999, scheduledDeliveryTimestamp: START + 60 }));
    expect(unknown.message).toBe('Invalid message(s)');
    const long = await caughtApiError(createMessageReminder(as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START + 60, note: 'x'.repeat(1001) }));
    expect(long.message).toBe('Maximum reminder note length: 1000 characters');
    const { reminder_id } = await createMessageReminder(as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START + 60 });
    const other = await caughtApiError(deleteReminder(as('iago'), { reminderId: reminder_id }));
    expect([other.code, other.httpStatus, other.message]).toEqual(['BAD_REQUEST', 404, 'Reminder does not exist']);
  });

  it('is Not Found below its feature levels (create at 381, list and delete at 399)', async () => {
    const at381 = setup(381);
    const id = await at381.post();
    expect((await createMessageReminder(at381.as('hamlet'), { messageId: id, scheduledDeliveryTimestamp: START + 60 })).reminder_id).toBeGreaterThan(0);
    expect((await caughtApiError(getReminders(at381.as('hamlet')))).httpStatus).toBe(404);
    const at380 = setup(380);
    const e = await caughtApiError(createMessageReminder(at380.as('hamlet'), { messageId: await at380.post(), scheduledDeliveryTimestamp: START + 60 }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});
