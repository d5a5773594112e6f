/**
 * The emulator's `PATCH /messages/{message_id}` content edits, driven through the REST client (the
 * contract with the gateway). Success bodies are checked against Zulip's OpenAPI description.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { addAttachment } from '../../../src/emulator/factory.js';
import type { ZulipConnection } from '../../../src/zulip/connection.js';
import { getMessages, sendMessage, updateMessage } from '../../../src/zulip/routes/messages.js';
import { json, raw, type WireParams } from '../../../src/zulip/params.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';
import { pollEvents, registerQueue } from './shared.js';

// ---- PATCH /messages/{id} --------------------------------------------------------------------------

describe('PATCH /messages/{message_id}: content', () => {
  it('edits content, keeps history, and tells everyone who received the message', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'design', topic: 'edits', content: 'first draft' });
    const qHamlet = await registerQueue(hamlet);
    const qCordelia = await registerQueue(t.as('cordelia'), { event_types: json(['update_message']) });
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!; // in general, not in design
    const qBot = await registerQueue(t.as(bot), { event_types: json(['update_message']) });
    const result = await updateMessage(hamlet, { messageId: id, content: 'second **draft** @**Cordelia, Lear\u2019s daughter**' });
    expectValidResponse('patch', `/messages/${id}`, result, ['detached_uploads']);
    expect(result).toMatchObject({ detached_uploads: [] });
    const m = t.store.messages.get(id)!;
    const now = Math.floor(t.emulator.clock.now() / 1000);
    expect(m.content).toBe('second **draft** @**Cordelia, Lear\u2019s daughter**');
    expect(m.last_edit_timestamp).toBeGreaterThanOrEqual(now - 1);
    expect(m.last_moved_timestamp).toBeUndefined();
    expect(m.edit_history).toEqual([{ user_id: t.user('hamlet').user_id, timestamp: m.last_edit_timestamp, prev_content: 'first draft', prev_rendered_content: '<p>first draft</p>' }]);

    const [update] = await pollEvents(t.as('cordelia'), qCordelia);
    expect(update).toEqual({
      id: 0,
      type: 'update_message',
      user_id: t.user('hamlet').user_id,
      rendering_only: false,
      message_id: id,
      message_ids: [id],
      flags: ['mentioned'],
      edit_timestamp: m.last_edit_timestamp,
      stream_id: t.channel('design').stream_id,
      stream_name: 'design',
      orig_content: 'first draft',
      orig_rendered_content: '<p>first draft</p>',
      content: m.content,
      rendered_content: m.rendered_content,
      is_me_message: false,
    });
    expect((await pollEvents(hamlet, qHamlet)).map((e) => [e.type, e.flags])).toEqual([['update_message', ['read']]]);
    expect(await pollEvents(t.as(bot), qBot)).toEqual([]);
    // The mention flag follows the content.
    expect(t.store.hasFlag(t.user('cordelia').user_id, id, 'mentioned')).toBe(true);
    await updateMessage(hamlet, { messageId: id, content: 'no mention' });
    expect(t.store.hasFlag(t.user('cordelia').user_id, id, 'mentioned')).toBe(false);
    expect(t.store.messages.get(id)!.edit_history).toHaveLength(2);
  });

  it('edits content and topic at once: one history entry, both timestamps', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'typo topc', content: 'typo contnet' });
    await updateMessage(hamlet, { messageId: id, topic: 'typo topic', content: 'typo content', sendNotificationToNewThread: false });
    const m = t.store.messages.get(id)!;
    expect(m.edit_history).toEqual([
      {
        user_id: t.user('hamlet').user_id,
        timestamp: m.last_edit_timestamp,
        prev_content: 'typo contnet',
        prev_rendered_content: '<p>typo contnet</p>',
        prev_topic: 'typo topc',
        topic: 'typo topic',
      },
    ]);
    expect(m.last_moved_timestamp).toBe(m.last_edit_timestamp);
    const { messages } = await getMessages(hamlet, { messageIds: [id] });
    expectValidResponse('get', '/messages', { result: 'success', msg: '', found_anchor: false, found_newest: false, found_oldest: false, history_limited: false, messages }, ['last_moved_timestamp']);
    expect(messages[0]).toMatchObject({ subject: 'typo topic', content: '<p>typo content</p>', last_moved_timestamp: m.last_moved_timestamp });
  });

  it('reports uploads whose last reference the edit removed', async () => {
    const t = setupEmulator();
    const hamletUser = t.user('hamlet');
    const nowMs = t.emulator.clock.now();
    const a = addAttachment(t.store, { name: 'plan.pdf', owner_id: hamletUser.user_id, size: 2048 }, nowMs);
    const b = addAttachment(t.store, { name: 'notes.txt', owner_id: hamletUser.user_id }, nowMs);
    const hamlet = t.as('hamlet');
    const first = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'files', content: `[plan](/user_uploads/${a.path_id}) [notes](/user_uploads/${b.path_id})` });
    const second = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'files', content: `again [notes](/user_uploads/${b.path_id})` });
    const result = await updateMessage(hamlet, { messageId: first.id, content: 'files removed' });
    expect(result.detached_uploads).toEqual([{ id: a.id, name: 'plan.pdf', path_id: a.path_id, size: 2048, create_time: nowMs, messages: [] }]);
    expect([...b.message_ids]).toEqual([second.id]);
  });

  it('refuses content edits Zulip refuses', async () => {
    const clock = new ManualClock();
    const t = setupEmulator({ clock });
    const hamlet = t.as('hamlet');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'x', content: 'mine' });
    const dm = await sendMessage(hamlet, { type: 'direct', to: [t.user('iago').user_id], content: 'dm' });
    const cases: [ZulipConnection, number, WireParams, string][] = [
      [hamlet, id, {}, 'Nothing to change'],
      [hamlet, id, { content: raw('mine') }, 'Nothing to change'],
      [hamlet, id, { topic: raw('x') }, 'Nothing to change'],
      [hamlet, id, { content: raw('new'), stream_id: json(t.channel('design').stream_id) }, 'Cannot change message content while changing channel'],
      [hamlet, dm.id, { topic: raw('x') }, 'Direct messages cannot have topics.'],
      [hamlet, dm.id, { stream_id: json(t.channel('general').stream_id) }, 'Direct messages cannot be moved to channels.'],
      [hamlet, id, { content: raw('new'), propagate_mode: raw('change_all') }, 'Invalid propagate_mode without topic edit'],
      [hamlet, id, { topic: raw('y'), propagate_mode: raw('change_some') }, 'Invalid propagate_mode'],
      [t.as('iago'), id, { content: raw('not yours') }, "You don't have permission to edit this message"],
      [hamlet, id, { content: raw('a\u0000b') }, 'Message must not contain null bytes'],
      [hamlet, id, { stream_id: raw('x') }, 'stream_id is not an integer'],
      [hamlet, 424242, { content: raw('x') }, 'Invalid message(s)'],
      [t.as('othello'), dm.id, { content: raw('x') }, 'Invalid message(s)'],
    ];
    for (const [conn, messageId, params, msg] of cases) {
      const e = await caughtApiError(conn.request('x', 'PATCH', `messages/${messageId}`, params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual(['BAD_REQUEST', msg]);
    }
    t.store.realm.settings.allow_message_editing = false;
    expect((await caughtApiError(updateMessage(hamlet, { messageId: id, content: 'off' }))).message).toBe('Your organization has turned off message editing');
    t.store.realm.settings.allow_message_editing = true;
    clock.advance((600 + 21) * 1000);
    expect((await caughtApiError(updateMessage(hamlet, { messageId: id, content: 'late' }))).message).toBe('The time limit for editing this message has past');
    expect(t.store.messages.get(id)!.content).toBe('mine');
    expect(t.store.messages.get(id)!.edit_history).toEqual([]);
  });

  it('turns empty content into "(deleted)", truncates, and checks wildcard mentions', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'x', content: 'text' });
    await updateMessage(hamlet, { messageId: id, content: '   ' });
    expect(t.store.messages.get(id)!.content).toBe('(deleted)');
    await updateMessage(hamlet, { messageId: id, content: 'y'.repeat(10_001) });
    expect(t.store.messages.get(id)!.content).toHaveLength(10_000);
    t.store.realm.settings.wildcard_mention_large_stream_threshold = 2;
    const e = await caughtApiError(updateMessage(hamlet, { messageId: id, content: '@**all** look' }));
    expect(e.code).toBe('STREAM_WILDCARD_MENTION_NOT_ALLOWED');
    expect(t.store.messages.get(id)!.content).toHaveLength(10_000);
  });
});
