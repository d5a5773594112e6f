/**
 * The emulator's `POST /messages` and the `message` events it produces, driven through the REST
 * client (the contract with the gateway). Success bodies are checked against Zulip's OpenAPI
 * description.
 */
import { describe, expect, it } from 'vitest';
import { addChannel, subscribe } from '../../../src/emulator/factory.js';
import { getMessages, sendMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';
import { pollEvents, registerQueue, type Body } from './shared.js';
import { json, raw, type WireParams } from '../../../src/zulip/params.js';

// ---- POST /messages --------------------------------------------------------------------------------

describe('POST /messages', () => {
  const t = setupEmulator();
  const hamlet = t.as('hamlet');

  it('sends to a channel by name or id, and to users by id or email', async () => {
    const general = t.channel('general');
    const a = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'news', content: 'Hello **all of you**' });
    expectValidResponse('post', '/messages', a);
    const stored = t.store.messages.get(a.id)!;
    expect(stored).toMatchObject({ type: 'stream', stream_id: general.stream_id, topic: 'news', content: 'Hello **all of you**', sender_id: t.user('hamlet').user_id });
    expect(stored.rendered_content).toBe('<p>Hello <strong>all of you</strong></p>');
    const b = await sendMessage(hamlet, { type: 'stream', to: general.stream_id, topic: 'news', content: 'by id' });
    expect(t.store.messages.get(b.id)!.stream_id).toBe(general.stream_id);
    const iago = t.user('iago');
    const c = await sendMessage(hamlet, { type: 'direct', to: [iago.user_id], content: 'psst' });
    expect(t.store.messages.get(c.id)!.dm_user_ids).toEqual([iago.user_id, t.user('hamlet').user_id].sort((x, y) => x - y));
    const d = await sendMessage(hamlet, { type: 'private', to: [iago.email, t.user('othello').email], content: 'group' });
    expect(t.store.messages.get(d.id)!.dm_user_ids).toHaveLength(3);
    const e = await hamlet.request<Body>('x', 'POST', 'messages', { type: raw('direct'), to: raw(iago.email), content: raw('comma form') });
    expect(t.store.messages.get(e.id)!.dm_user_ids).toContain(iago.user_id);
    // The sender has read it; the others have not.
    expect(t.store.hasFlag(t.user('hamlet').user_id, a.id, 'read')).toBe(true);
    expect(t.store.hasFlag(iago.user_id, a.id, 'read')).toBe(false);
    const unreadForSender = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'news', content: 'keep unread', readBySender: false });
    expect(t.store.hasFlag(t.user('hamlet').user_id, unreadForSender.id, 'read')).toBe(false);
    // Sent messages come back in the history.
    const history = await getMessages(hamlet, { anchor: 'newest', numBefore: 1, numAfter: 0 });
    expect(history.messages[0]!.id).toBe(unreadForSender.id);
  });

  it('reads "(no topic)" and the display name as the empty topic, and truncates long input', async () => {
    for (const topic of ['(no topic)', 'general chat', '  ']) {
      const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic, content: 'x' });
      expect(t.store.messages.get(id)!.topic).toBe('');
    }
    const { id: noTopic } = await hamlet.request<Body>('x', 'POST', 'messages', { type: raw('channel'), to: raw('general'), content: raw('no topic at all') });
    expect(t.store.messages.get(noTopic)!.topic).toBe('');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 't'.repeat(70), content: 'c'.repeat(10_050) });
    const m = t.store.messages.get(id)!;
    expect(m.topic).toBe(`${'t'.repeat(57)}...`);
    expect(m.content).toHaveLength(10_000);
    expect(m.content.endsWith('\n[message truncated]')).toBe(true);
  });

  it('requires a topic when the organization makes topics mandatory', async () => {
    const t2 = setupEmulator();
    t2.store.realm.settings.mandatory_topics = true;
    const conn = t2.as('hamlet');
    const missing = await caughtApiError(conn.request('x', 'POST', 'messages', { type: raw('channel'), to: raw('general'), content: raw('x') }));
    expect(missing.message).toBe('Missing topic');
    for (const topic of ['', '(no topic)', 'general chat']) {
      const e = await caughtApiError(sendMessage(conn, { type: 'channel', to: 'general', topic, content: 'x' }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Topics are required in this organization']);
    }
  });

  it('rejects bad requests with Zulip\'s errors, storing nothing', async () => {
    const before = t.store.messages.size;
    const cases: [WireParams, string, string, Record<string, unknown>?][] = [
      [{ type: raw('channel'), to: raw('nowhere'), topic: raw('t'), content: raw('x') }, 'STREAM_DOES_NOT_EXIST', "Channel 'nowhere' does not exist", { stream: raw('nowhere') }],
      [{ type: raw('channel'), to: json(4242), topic: raw('t'), content: raw('x') }, 'STREAM_DOES_NOT_EXIST', "Channel with ID '4242' does not exist", { stream_id: 4242 }],
      [{ type: raw('channel'), to: raw('legacy'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', "Not authorized to send to channel 'legacy'"],
      [{ type: raw('channel'), to: raw('moderation requests'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', "Not authorized to send to channel 'moderation requests'"],
      [{ type: raw('channel'), to: raw('announce'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', 'You do not have permission to post in this channel.'],
      [{ type: raw('channel'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', 'Missing channel'],
      [{ type: raw('channel'), to: raw('[1, 2]'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', 'Expected exactly one channel'],
      [{ type: raw('carrier-pigeon'), to: raw('general'), topic: raw('t'), content: raw('x') }, 'BAD_REQUEST', 'Invalid message type'],
      [{ to: raw('general'), topic: raw('t'), content: raw('x') }, 'REQUEST_VARIABLE_MISSING', "Missing 'type' argument"],
      [{ type: raw('channel'), to: raw('general'), topic: raw('t') }, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument"],
      [{ type: raw('channel'), to: raw('general'), topic: raw('t'), content: raw('  \n ') }, 'BAD_REQUEST', 'Message must not be empty'],
      [{ type: raw('channel'), to: raw('general'), topic: raw('t'), content: raw('a\u0000b') }, 'BAD_REQUEST', 'Message must not contain null bytes'],
      [{ type: raw('channel'), to: raw('general'), topic: raw('t\u0000'), content: raw('x') }, 'BAD_REQUEST', 'Topic must not contain null bytes'],
      [{ type: raw('direct'), to: json([4242]), content: raw('x') }, 'BAD_REQUEST', 'Invalid user ID 4242'],
      [{ type: raw('direct'), to: json(['ghost@zulip.example.com']), content: raw('x') }, 'BAD_REQUEST', "Invalid email 'ghost@zulip.example.com'"],
      [{ type: raw('direct'), to: json([t.user('iago').user_id, 'x@y.z']), content: raw('x') }, 'BAD_REQUEST', 'Recipient lists may contain emails or user IDs, but not both.'],
      [{ type: raw('direct'), to: json([]), content: raw('x') }, 'BAD_REQUEST', 'Message must have recipients'],
      [{ type: raw('direct'), content: raw('x') }, 'BAD_REQUEST', 'Message must have recipients'],
      [{ type: raw('direct'), to: raw('{"a": 1}'), content: raw('x') }, 'BAD_REQUEST', 'Invalid data type for recipients'],
      [{ type: raw('direct'), to: json([t.store.userByEmail('lear@zulip.example.com')!.user_id]), content: raw('x') }, 'BAD_REQUEST', "'lear@zulip.example.com' is no longer using Zulip."],
      [{ type: raw('channel'), to: raw('general'), topic: raw('t'), content: raw('x'), read_by_sender: raw('maybe') }, 'BAD_REQUEST', 'read_by_sender is not a boolean'],
    ];
    for (const [params, code, msg, extra] of cases) {
      const e = await caughtApiError(hamlet.request('x', 'POST', 'messages', params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual([code, msg]);
      if (extra) expect(e.data).toEqual(extra);
    }
    expect(t.store.messages.size).toBe(before);
  });

  it('lets guests post only where subscribed', async () => {
    const polonius = t.as('polonius');
    await expect(sendMessage(polonius, { type: 'channel', to: 'design', topic: 't', content: 'ok' })).resolves.toHaveProperty('id');
    const e = await caughtApiError(sendMessage(polonius, { type: 'channel', to: 'legacy', topic: 't', content: 'no' }));
    expect(e.message).toBe("Not authorized to send to channel 'legacy'");
  });

  it('limits wildcard mentions in large channels and busy topics', async () => {
    const t2 = setupEmulator();
    t2.store.realm.settings.wildcard_mention_large_stream_threshold = 3;
    const conn = t2.as('hamlet');
    const channelWildcard = await caughtApiError(sendMessage(conn, { type: 'channel', to: 'general', topic: 'x', content: 'Hey @**all**' }));
    expect([channelWildcard.code, channelWildcard.message]).toEqual([
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use channel wildcard mentions in this channel.',
    ]);
    // Silent wildcards are not mentions; administrators hold can_mention_many_users_group.
    await expect(sendMessage(conn, { type: 'channel', to: 'general', topic: 'x', content: 'Hey @_**all**' })).resolves.toHaveProperty('id');
    await expect(sendMessage(t2.as('iago'), { type: 'channel', to: 'general', topic: 'x', content: 'Hey @**everyone**' })).resolves.toHaveProperty('id');
    // A small channel is fine for everyone (engineering has 4 subscribers > 3, design 7; make a small one).
    const small = addChannel(t2.store, { name: 'small' }, t2.emulator.clock.now());
    for (const l of ['hamlet', 'othello']) subscribe(t2.store, small.stream_id, t2.user(l).user_id);
    await expect(sendMessage(conn, { type: 'channel', to: 'small', topic: 'x', content: '@**all** hi' })).resolves.toHaveProperty('id');
    // @**topic** counts the topic's participants (senders and reactors): greetings has more than 3.
    const topicWildcard = await caughtApiError(sendMessage(conn, { type: 'channel', to: 'general', topic: 'greetings', content: 'Hey @**topic**' }));
    expect([topicWildcard.code, topicWildcard.message]).toEqual([
      'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use topic wildcard mentions in this topic.',
    ]);
    await expect(sendMessage(conn, { type: 'channel', to: 'general', topic: 'quiet topic', content: 'Hey @**topic**' })).resolves.toHaveProperty('id');
  });

  it('sets mention flags for the mentioned users', async () => {
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'mentions', content: 'Ping @**Iago** and @*leadership*' });
    const body = await getMessages(t.as('iago'), { messageIds: [id] });
    expect(body.messages[0]!.flags).toEqual(expect.arrayContaining(['mentioned', 'group_mentioned']));
    const desdemona = await getMessages(t.as('desdemona'), { messageIds: [id] });
    expect(desdemona.messages[0]!.flags).toEqual(['group_mentioned']);
    const othello = await getMessages(t.as('othello'), { messageIds: [id] });
    expect(othello.messages[0]!.flags).toEqual([]);
  });
});

describe('message events', () => {
  it('delivers `message` to each recipient queue with its flags and rendering, and nobody else', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const othello = t.as('othello');
    const cordelia = t.as('cordelia');
    const qHamlet = await registerQueue(hamlet, { apply_markdown: json(true) });
    const qOthello = await registerQueue(othello, { apply_markdown: json(false), client_gravatar: json(false) });
    const qCordelia = await registerQueue(cordelia, { narrow: json([['stream', 'engineering']]) });
    const sent = await sendMessage(hamlet, { type: 'channel', to: 'general', topic: 'events', content: 'Hi @**Othello, the Moor of Venice**', queueId: qHamlet, localId: '1.01' });
    const dm = await sendMessage(hamlet, { type: 'direct', to: [t.user('iago').user_id], content: 'secret' });

    const hamletEvents = await pollEvents(hamlet, qHamlet);
    expect(hamletEvents.map((e) => [e.type, e.message.id])).toEqual([['message', sent.id], ['message', dm.id]]);
    expect(hamletEvents[0]).toMatchObject({ flags: ['read'], local_message_id: '1.01' });
    expect(hamletEvents[0]!.message).toMatchObject({ content_type: 'text/html', subject: 'events', display_recipient: 'general', avatar_url: null });
    expect(hamletEvents[0]!.message.flags).toBeUndefined();
    expect(hamletEvents[1]!.local_message_id).toBeUndefined();

    const othelloEvents = await pollEvents(othello, qOthello);
    expect(othelloEvents).toHaveLength(1);
    expect(othelloEvents[0]).toMatchObject({ type: 'message', flags: ['mentioned'] });
    expect(othelloEvents[0]!.local_message_id).toBeUndefined();
    expect(othelloEvents[0]!.message).toMatchObject({
      content: 'Hi @**Othello, the Moor of Venice**',
      content_type: 'text/x-markdown',
      avatar_url: expect.stringMatching(/^https:\/\/secure\.gravatar\.com\//),
    });
    // A queue narrowed to another channel gets nothing.
    expect(await pollEvents(cordelia, qCordelia)).toEqual([]);
  });

  it('sends public-channel messages to all_public_streams queues of non-subscribers with no flags', async () => {
    const t = setupEmulator();
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!; // in general only
    const botConn = t.as(bot);
    const q = await registerQueue(botConn, { all_public_streams: json(true) });
    const { id } = await sendMessage(t.as('cordelia'), { type: 'channel', to: 'design', topic: 'pub', content: 'public news' });
    await sendMessage(t.as('iago'), { type: 'channel', to: 'engineering', topic: 'private', content: 'private news' });
    const events = await pollEvents(botConn, q);
    expect(events.map((e) => [e.type, e.message.id, e.flags])).toEqual([['message', id, []]]);
  });
});
