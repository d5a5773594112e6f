/**
 * The emulator's edit history (`GET /messages/{message_id}/history`) and read receipts
 * (`GET /messages/{message_id}/read_receipts`), driven through the REST client: snapshots oldest
 * first with what each edit changed, who is left out of receipts, Zulip's errors, and the 404
 * of a server below feature level 137.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { muteUser } from '../../../src/zulip/routes/muted-users.js';
import { getMessageHistory, getReadReceipts, sendMessage, updateMessage, updateMessageFlags } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';

function setup(featureLevel?: number) {
  const t = setupEmulator({ clock: new ManualClock(Date.UTC(2026, 0, 1)), ...(featureLevel ? { settings: { featureLevel } } : {}) });
  const general = t.channelId('general');
  const post = async (who: string, content = 'first') => (await sendMessage(t.as(who), { type: 'stream', to: general, topic: 'plans', content })).id;
  return { ...t, general, post };
}

describe('GET /messages/{message_id}/history', () => {
  it('gives one snapshot per edit, oldest first, each with what that edit changed', async () => {
    const { as, clock, post, userId, general, channelId } = setup();
    const id = await post('hamlet');
    clock.advance(10_000);
    await updateMessage(as('hamlet'), { messageId: id, content: 'second' });
    clock.advance(10_000);
    await updateMessage(as('iago'), { messageId: id, topic: 'moved', streamId: channelId('design') });
    const body = await getMessageHistory(as('hamlet'), { messageId: id });
    expectValidResponse('get', '/messages/{message_id}/history', body);
    const [sent, edited, moved] = body.message_history;
    const start = Date.UTC(2026, 0, 1) / 1000;
    expect(body.message_history).toHaveLength(3);
    expect(sent).toEqual({ topic: 'plans', content: 'first', rendered_content: '<p>first</p>', timestamp: start, user_id: userId('hamlet') });
    expect(edited).toMatchObject({ topic: 'plans', content: 'second', prev_content: 'first', prev_rendered_content: '<p>first</p>', user_id: userId('hamlet'), timestamp: start + 10 });
    expect(edited!.content_html_diff).toContain('second');
    expect(edited).not.toHaveProperty('prev_topic');
    expect(moved).toEqual({
      topic: 'moved',
      prev_topic: 'plans',
      stream: channelId('design'),
      prev_stream: general,
      content: 'second',
      rendered_content: '<p>second</p>',
      user_id: userId('iago'),
      timestamp: start + 20,
    });
  });

  it('refuses an unreadable message, and any message when the organization hides edit history', async () => {
    const { as, store, post } = setup();
    const id = await post('hamlet');
    const e = await caughtApiError(getMessageHistory(as('hamlet'), { messageId: 999_999 }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid message(s)']);
    store.realm.settings.allow_edit_history = false;
    const off = await caughtApiError(getMessageHistory(as('hamlet'), { messageId: id }));
    expect(off.message).toBe('Message edit history is disabled in this organization');
  });
});

describe('GET /messages/{message_id}/read_receipts', () => {
  it('lists readers but not the sender, users hiding receipts, nor muted or muting users', async () => {
    const { as, store, post, userId } = setup();
    const id = await post('hamlet');
    for (const who of ['iago', 'othello', 'cordelia', 'shiva']) await updateMessageFlags(as(who), { messages: [id], op: 'add', flag: 'read' });
    expect((await getReadReceipts(as('hamlet'), { messageId: id })).user_ids.sort()).toEqual(
      ['iago', 'othello', 'cordelia', 'shiva'].map(userId).sort(),
    );
    store.users.get(userId('iago'))!.settings.send_read_receipts = false;
    await muteUser(as('hamlet'), { mutedUserId: userId('othello') });
    await muteUser(as('cordelia'), { mutedUserId: userId('hamlet') });
    expect((await getReadReceipts(as('hamlet'), { messageId: id })).user_ids).toEqual([userId('shiva')]);
  });

  it('answers Zulip\u2019s errors, and 404 below feature level 137', async () => {
    const { as, store, post } = setup();
    const id = await post('hamlet');
    expect((await caughtApiError(getReadReceipts(as('hamlet'), { messageId: 999_999 }))).message).toBe('Invalid message(s)');
    store.realm.settings.enable_read_receipts = false;
    expect((await caughtApiError(getReadReceipts(as('hamlet'), { messageId: id }))).message).toBe('Read receipts are disabled in this organization.');
    const old = setup(136);
    const e = await caughtApiError(getReadReceipts(old.as('hamlet'), { messageId: await old.post('hamlet') }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});
