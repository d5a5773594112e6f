/**
 * The emulator's `POST /messages/{message_id}/report` (feature level 382), driven through the REST
 * client: Notification Bot posts the report to the moderation request channel, and Zulip's
 * refusals (report type, missing explanation, no moderation channel, unreadable message, 404
 * below the feature level).
 */
import { describe, expect, it } from 'vitest';
import { reportMessage, sendMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

function setup(featureLevel = 382) {
  const t = setupEmulator({ settings: { featureLevel } });
  const post = async () => (await sendMessage(t.as('othello'), { type: 'stream', to: t.channelId('general'), topic: 'rude', content: 'You fool' })).id;
  const moderationMessages = () => [...t.store.messages.values()].filter((m) => m.stream_id === t.channelId('moderation requests'));
  return { ...t, post, moderationMessages };
}

describe('POST /messages/{message_id}/report', () => {
  it('posts the report to the moderation request channel, unread for its subscribers', async () => {
    const { as, post, moderationMessages, userId, store } = setup();
    const id = await post();
    expect(await reportMessage(as('hamlet'), { messageId: id, reportType: 'harassment', description: 'Insults' })).toMatchObject({ result: 'success' });
    const [report] = moderationMessages();
    expect(report).toMatchObject({ topic: 'Othello, the Moor of Venice moderation' });
    expect(report!.content).toContain('**Harassment**. Insults');
    expect(report!.content).toContain('You fool');
    expect(store.users.get(report!.sender_id)!.full_name).toBe('Notification Bot');
    expect(store.hasFlag(userId('iago'), report!.id, 'read')).toBe(false);
  });

  it('refuses an unknown type, `other` without an explanation, an unreadable message, and an organization without moderation channel', async () => {
    const { as, post, store, moderationMessages } = setup();
    const id = await post();
    const cases = [
      [{ messageId: id, reportType: 'boring' }, 'Invalid report_type'],
      [{ messageId: id, reportType: 'other' }, 'An explanation is required.'],
      [{ messageId: id, reportType: 'spam', description: 'x'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
      [{ messageId: 999_999, reportType: 'spam' }, 'Invalid message(s)'],
    ] as const;
    for (const [params, message] of cases) {
      const e = await caughtApiError(reportMessage(as('hamlet'), params));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
    }
    store.realm.settings.moderation_request_channel_id = null;
    const off = await caughtApiError(reportMessage(as('hamlet'), { messageId: id, reportType: 'spam' }));
    expect(off.message).toBe('Message reporting is not enabled in this organization.');
    expect(moderationMessages()).toEqual([]);
  });

  it('is Not Found below feature level 382', async () => {
    const { as, post } = setup(381);
    const e = await caughtApiError(reportMessage(as('hamlet'), { messageId: await post(), reportType: 'spam' }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});
