/**
 * The emulator's `DELETE /messages/{message_id}`, driven through the REST client: who may delete
 * (any message for administrators, one's own or one's bots' within the time limit for others),
 * Zulip's errors, and the `delete_message` events with and without `bulk_message_deletion`.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { json } from '../../../src/zulip/params.js';
import { deleteMessage, sendMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, eventsOf, registerEventQueue, setupEmulator } from '../../helpers/emulator.js';

function setup() {
  const t = setupEmulator({ clock: new ManualClock(Date.UTC(2026, 0, 1)) });
  const general = t.channelId('general');
  const post = async (who: string, content = 'hello') =>
    (await sendMessage(t.as(who), { type: 'stream', to: general, topic: 'doomed', content })).id;
  return { ...t, general, post };
}

describe('DELETE /messages/{message_id}', () => {
  it('lets the sender delete their message, telling every reader (bulk or one by one)', async () => {
    const { as, store, general, post } = setup();
    const bulk = await registerEventQueue(as('iago'), ['delete_message'], { client_capabilities: json({ notification_settings_null: true, bulk_message_deletion: true }) });
    const single = await registerEventQueue(as('hamlet'), ['delete_message']);
    const id = await post('hamlet');
    expect(await deleteMessage(as('hamlet'), { messageId: id })).toMatchObject({ result: 'success' });
    expect(store.messages.has(id)).toBe(false);
    const base = { type: 'delete_message', message_type: 'stream', stream_id: general, topic: 'doomed' };
    expect(await eventsOf(as('iago'), bulk)).toEqual([{ ...base, message_ids: [id] }]);
    expect(await eventsOf(as('hamlet'), single)).toEqual([{ ...base, message_id: id }]);
    const again = await caughtApiError(deleteMessage(as('hamlet'), { messageId: id }));
    expect([again.code, again.message]).toEqual(['BAD_REQUEST', 'Invalid message(s)']);
  });

  it('refuses another user\u2019s message to a member, but lets an administrator delete it', async () => {
    const { as, store, post } = setup();
    const id = await post('iago');
    const e = await caughtApiError(deleteMessage(as('hamlet'), { messageId: id }));
    expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, "You don't have permission to delete this message"]);
    expect(store.messages.has(id)).toBe(true);
    await deleteMessage(as('iago'), { messageId: id });
    expect(store.messages.has(id)).toBe(false);
  });

  it('lets an owner delete their bot\u2019s message', async () => {
    const { as, store, post } = setup();
    const id = await post('hamlet-bot@zulip.example.com');
    await deleteMessage(as('hamlet'), { messageId: id });
    expect(store.messages.has(id)).toBe(false);
  });

  it('refuses one\u2019s own message once the deletion time limit has passed', async () => {
    const { as, store, clock, post } = setup();
    const id = await post('hamlet');
    clock.advance(601_000);
    const e = await caughtApiError(deleteMessage(as('hamlet'), { messageId: id }));
    expect(e.message).toBe('The time limit for deleting this message has passed');
    store.realm.settings.message_content_delete_limit_seconds = null;
    await deleteMessage(as('hamlet'), { messageId: id });
    expect(store.messages.has(id)).toBe(false);
  });
});
