/**
 * The emulator's `PATCH /messages/{message_id}` moves between topics and channels, driven through
 * the REST client (the contract with the gateway). Success bodies are checked against Zulip's
 * OpenAPI description.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { subscribe } from '../../../src/emulator/factory.js';
import { getMessage, getMessages, sendMessage, updateMessage } from '../../../src/zulip/routes/messages.js';
import { json } from '../../../src/zulip/params.js';
import { caughtApiError, setupEmulator, type EmulatorSetup } from '../../helpers/emulator.js';
import { pollEvents, registerQueue } from './shared.js';

describe('PATCH /messages/{message_id}: moves', () => {
  async function topicWith(t: EmulatorSetup, topic: string, n: number, channel = 'general') {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await sendMessage(t.as(i % 2 ? 'othello' : 'hamlet'), { type: 'channel', to: channel, topic, content: `${topic} ${i}` })).id);
    return ids;
  }
  const messagesIn = (t: EmulatorSetup, channel: string, topic: string) =>
    [...t.store.messages.values()].filter((m) => m.stream_id === t.channel(channel).stream_id && m.topic === topic);

  it('moves a whole topic with change_all, with history, events and notifications', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'old name', 3);
    const hamlet = t.as('hamlet');
    const qOthello = await registerQueue(t.as('othello'), { event_types: json(['update_message', 'message']) });
    const result = await updateMessage(hamlet, { messageId: ids[1]!, topic: 'new name', propagateMode: 'change_all', sendNotificationToOldThread: true });
    expect(result.detached_uploads).toEqual([]);
    const moved = messagesIn(t, 'general', 'new name');
    expect(moved.map((m) => m.id)).toEqual([...ids, moved.at(-1)!.id]);
    const notice = moved.at(-1)!;
    expect(notice.content).toBe('This topic was moved here from #**general>old name** by @_**King Hamlet**.');
    expect(t.store.users.get(notice.sender_id)).toMatchObject({ full_name: 'Notification Bot', is_bot: true });
    expect(notice.rendered_content).toContain('class="stream-topic"');
    const oldNotice = messagesIn(t, 'general', 'old name');
    expect(oldNotice.map((m) => m.content)).toEqual(['This topic was moved to #**general>new name** by @_**King Hamlet**.']);
    const m0 = t.store.messages.get(ids[0]!)!;
    expect(m0.edit_history[0]).toEqual({ user_id: t.user('hamlet').user_id, timestamp: m0.last_moved_timestamp, prev_topic: 'old name', topic: 'new name' });
    expect(m0.last_edit_timestamp).toBeUndefined();

    const events = await pollEvents(t.as('othello'), qOthello);
    expect(events.map((e) => e.type)).toEqual(['update_message', 'message', 'message']);
    expect(events[0]).toMatchObject({
      message_id: ids[1],
      message_ids: ids,
      propagate_mode: 'change_all',
      orig_subject: 'old name',
      subject: 'new name',
      topic_links: [],
      stream_id: t.channel('general').stream_id,
      stream_name: 'general',
    });
    expect(events[0]!.new_stream_id).toBeUndefined();
    expect(events[0]!.orig_content).toBeUndefined();
    // Notification messages are read for everyone.
    expect(events[1]!.flags).toEqual(['read']);
  });

  it('moves one message or the later ones only, with the matching notices', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'split', 4);
    const hamlet = t.as('hamlet');
    await updateMessage(hamlet, { messageId: ids[2]!, topic: 'later part', propagateMode: 'change_later' });
    expect(messagesIn(t, 'general', 'later part').map((m) => m.id).slice(0, 2)).toEqual([ids[2], ids[3]]);
    expect(messagesIn(t, 'general', 'later part').at(-1)!.content).toMatch(
      /^\[2 messages\]\(http:\/\/emulator\.test\/#narrow\/channel\/1-general\/topic\/later\.20part\/near\/\d+\) were moved here from #\*\*general>split\*\* by @_\*\*King Hamlet\*\*\.$/,
    );
    await updateMessage(hamlet, { messageId: ids[0]!, topic: 'single', sendNotificationToNewThread: false, sendNotificationToOldThread: true });
    expect(messagesIn(t, 'general', 'single').map((m) => m.id)).toEqual([ids[0]]);
    expect(messagesIn(t, 'general', 'split').map((m) => m.content)).toEqual([
      'split 1',
      'A message was moved from this topic to #**general>single** by @_**King Hamlet**.',
    ]);
  });

  it('resolves and unresolves a topic without a move notice or last_moved_timestamp', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'bug', 2);
    const hamlet = t.as('hamlet');
    await updateMessage(hamlet, { messageId: ids[0]!, topic: '✔ bug', propagateMode: 'change_all' });
    const resolved = messagesIn(t, 'general', '✔ bug');
    expect(resolved.map((m) => m.content)).toEqual(['bug 0', 'bug 1', '@_**King Hamlet** has marked this topic as resolved.']);
    expect(resolved[0]!.last_moved_timestamp).toBeUndefined();
    expect(resolved[0]!.edit_history[0]).toMatchObject({ prev_topic: 'bug', topic: '✔ bug' });
    // As in Zulip, the notice is unread only for the topic's participants (senders, reactors).
    expect(t.store.hasFlag(t.user('othello').user_id, resolved[2]!.id, 'read')).toBe(false);
    expect(t.store.hasFlag(t.user('iago').user_id, resolved[2]!.id, 'read')).toBe(true);
    await updateMessage(hamlet, { messageId: ids[0]!, topic: 'bug', propagateMode: 'change_all' });
    expect(messagesIn(t, 'general', 'bug').at(-1)!.content).toBe('@_**King Hamlet** has marked this topic as unresolved.');
    // The empty topic cannot be resolved.
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: '', content: 'chat' });
    const e = await caughtApiError(updateMessage(hamlet, { messageId: id, topic: '✔ ', propagateMode: 'change_all' }));
    expect(e.message).toBe('General chat cannot be marked as resolved');
  });

  it('checks move permissions from the organization settings', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'perm', 1);
    const hamlet = t.as('hamlet');
    const admins = t.store.systemGroupId('role:administrators');
    t.store.realm.settings.can_move_messages_between_topics_group = admins;
    expect((await caughtApiError(updateMessage(hamlet, { messageId: ids[0]!, topic: 'elsewhere' }))).message).toBe("You don't have permission to edit this message");
    // Resolving still works through can_resolve_topics_group (everyone).
    await updateMessage(hamlet, { messageId: ids[0]!, topic: '✔ perm' });
    t.store.realm.settings.can_resolve_topics_group = admins;
    expect((await caughtApiError(updateMessage(hamlet, { messageId: ids[0]!, topic: 'perm' }))).message).toBe("You don't have permission to resolve topics.");
    // Guests are not in role:members, so they cannot move between channels.
    const polonius = t.as('polonius');
    const { id } = await sendMessage(polonius, { type: 'channel', to: 'design', topic: 'guest', content: 'hi' });
    expect((await caughtApiError(updateMessage(polonius, { messageId: id, streamId: t.channel('general').stream_id }))).message).toBe(
      "You don't have permission to move this message",
    );
    const cases: [number, string][] = [
      [4242, 'Invalid channel ID'],
      [t.channel('legacy').stream_id, 'Invalid channel ID'],
      [t.channel('moderation requests').stream_id, 'Invalid channel ID'],
      [t.channel('announce').stream_id, 'You do not have permission to post in this channel.'],
    ];
    for (const [streamId, msg] of cases) {
      const e = await caughtApiError(updateMessage(hamlet, { messageId: ids[0]!, streamId }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', msg]);
    }
    expect(t.store.messages.get(ids[0]!)!.stream_id).toBe(t.channel('general').stream_id);
  });

  it('enforces move time limits with MOVE_MESSAGES_TIME_LIMIT_EXCEEDED, except for moderators', async () => {
    const clock = new ManualClock();
    const t = setupEmulator({ clock, settings: { moveMessagesWithinStreamLimitSeconds: 3600 } });
    const old = await topicWith(t, 'aging', 3);
    clock.advance(2 * 3600 * 1000);
    const recent = await topicWith(t, 'aging', 2);
    const hamlet = t.as('hamlet');
    const all = await caughtApiError(updateMessage(hamlet, { messageId: recent[0]!, topic: 'moved', propagateMode: 'change_all' }));
    expect([all.code, all.message, all.data]).toEqual([
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      'You only have permission to move the 2/5 most recent messages in this topic.',
      { first_message_id_allowed_to_move: recent[0], total_messages_allowed_to_move: 2, total_messages_in_topic: 5 },
    ]);
    const one = await caughtApiError(updateMessage(hamlet, { messageId: old[0]!, topic: 'moved' }));
    expect([one.code, one.data.first_message_id_allowed_to_move]).toEqual(['MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', null]);
    const later = await caughtApiError(updateMessage(hamlet, { messageId: old[2]!, topic: 'moved', propagateMode: 'change_later' }));
    expect(later.data).toEqual({ first_message_id_allowed_to_move: recent[0], total_messages_allowed_to_move: 2, total_messages_in_topic: 5 });
    expect(messagesIn(t, 'general', 'aging')).toHaveLength(5);
    // The retry the error suggests succeeds.
    await updateMessage(hamlet, { messageId: recent[0]!, topic: 'moved', propagateMode: 'change_later', sendNotificationToNewThread: false });
    expect(messagesIn(t, 'general', 'moved').map((m) => m.id)).toEqual(recent);
    // Moderators are exempt.
    await updateMessage(t.as('shiva'), { messageId: old[0]!, topic: 'moved', propagateMode: 'change_all', sendNotificationToNewThread: false });
    expect(messagesIn(t, 'general', 'moved')).toHaveLength(5);
  });

  it('moves to another channel: delete_message for users who lose access, read flags for the rest', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'ship it', 2);
    const hamlet = t.as('hamlet');
    const conns = { othello: t.as('othello'), iago: t.as('iago'), cordelia: t.as('cordelia') };
    const queues = {
      othello: await registerQueue(conns.othello, { client_capabilities: json({ notification_settings_null: true, bulk_message_deletion: true }) }),
      iago: await registerQueue(conns.iago, { apply_markdown: json(true) }),
      cordelia: await registerQueue(conns.cordelia),
    };
    const engineering = t.channel('engineering');
    await updateMessage(hamlet, { messageId: ids[0]!, streamId: engineering.stream_id, propagateMode: 'change_all' });
    expect(ids.map((id) => t.store.messages.get(id)!.stream_id)).toEqual([engineering.stream_id, engineering.stream_id]);
    expect(t.store.messages.get(ids[0]!)!.edit_history[0]).toMatchObject({ prev_stream: t.channel('general').stream_id, stream: engineering.stream_id });
    // Othello and Cordelia are not in engineering (private): the messages disappear for them.
    const othelloEvents = await pollEvents(conns.othello, queues.othello);
    expect(othelloEvents.map((e) => e.type)).toEqual(['delete_message']);
    expect(othelloEvents[0]).toMatchObject({ message_type: 'stream', message_ids: ids, stream_id: t.channel('general').stream_id, topic: 'ship it' });
    const cordeliaEvents = await pollEvents(conns.cordelia, queues.cordelia);
    expect(cordeliaEvents.map((e) => [e.type, e.message_id])).toEqual([['delete_message', ids[0]], ['delete_message', ids[1]]]);
    // Iago sees the move and the new-thread notice.
    const iagoEvents = await pollEvents(conns.iago, queues.iago);
    expect(iagoEvents.map((e) => e.type)).toEqual(['update_message', 'message']);
    expect(iagoEvents[0]).toMatchObject({ new_stream_id: engineering.stream_id, message_ids: ids, propagate_mode: 'change_all', orig_subject: 'ship it' });
    expect(iagoEvents[0]!.subject).toBeUndefined();
    expect(iagoEvents[1]!.message.content).toBe('<p>This topic was moved here from <a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-general/topic/ship.20it">#general &gt; ship it</a> by <span class="user-mention silent" data-user-id="4">King Hamlet</span>.</p>');
    await expect(getMessage(conns.othello, { messageId: ids[0]! })).rejects.toMatchObject({ message: 'Invalid message(s)' });
    // And the channel indexes follow the move.
    const inEngineering = await getMessages(hamlet, { anchor: 'newest', numBefore: 10, numAfter: 0, narrow: [{ operator: 'channel', operand: 'engineering' }, { operator: 'topic', operand: 'ship it' }] });
    expect(inEngineering.messages.map((m) => m.id).slice(0, 2)).toEqual(ids);
    const inGeneral = await getMessages(hamlet, { anchor: 'newest', numBefore: 10, numAfter: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'ship it' }] });
    expect(inGeneral.messages).toEqual([]);
  });

  it('marks moved messages read for subscribers who keep access without receiving them', async () => {
    const t = setupEmulator();
    const ids = await topicWith(t, 'to design', 1, 'general');
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!; // in general, not in design
    const botConn = t.as(bot);
    const q = await registerQueue(botConn);
    expect(t.store.hasFlag(bot.user_id, ids[0]!, 'read')).toBe(false);
    await updateMessage(t.as('hamlet'), { messageId: ids[0]!, streamId: t.channel('design').stream_id, sendNotificationToNewThread: false });
    const events = await pollEvents(botConn, q);
    expect(events.map((e) => [e.type, e.flag ?? null, e.messages ?? null])).toEqual([
      ['update_message', null, null],
      ['update_message_flags', 'read', ids],
    ]);
    expect(events[0]!.flags).toEqual([]);
  });

  it('moves only the messages a protected-history subscriber can read', async () => {
    const t = setupEmulator();
    const engineering = t.channel('engineering');
    const othello = t.user('othello');
    const early = t.messageWith('Release plan');
    subscribe(t.store, engineering.stream_id, othello.user_id);
    const mine = await sendMessage(t.as('othello'), { type: 'channel', to: 'engineering', topic: 'release plan', content: 'joined late' });
    await updateMessage(t.as('othello'), { messageId: mine.id, topic: 'othello plan', propagateMode: 'change_all' });
    expect(t.store.messages.get(early.id)!.topic).toBe('release plan');
    expect(t.store.messages.get(mine.id)!.topic).toBe('othello plan');
  });
});
