/**
 * The emulator's message endpoints, driven through the REST client (the contract with the gateway):
 * fetching with anchors and narrows, sending, editing and moving, personal flags, the events each
 * change produces (per queue, to the right users only) and the register state. Success bodies are
 * checked against Zulip's OpenAPI description.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import { addAttachment, addChannel, addUser, insertMessage, subscribe } from '../../src/emulator/factory.js';
import type { Message } from '../../src/emulator/store.js';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import { getMessage, getMessages, sendMessage, updateMessage, updateMessageFlags, updateMessageFlagsForNarrow } from '../../src/zulip/routes/messages.js';
import { caughtApiError, eventsOf, expectValidResponse, registerEventQueue, setupEmulator, type EmulatorSetup } from '../helpers/emulator.js';

const NEWEST = 10_000_000_000_000_000;

type Body = Record<string, any>;

const registerQueue = (conn: ZulipConnection, params: Record<string, unknown> = {}) =>
  registerEventQueue(conn, ['message', 'update_message', 'delete_message', 'update_message_flags', 'reaction'], params);

const pollEvents = (conn: ZulipConnection, queueId: string) =>
  eventsOf<Body>(conn, queueId, { keepIds: true, validate: true, allowExtra: ['local_message_id'] });

// ---- GET /messages ---------------------------------------------------------------------------------

describe('GET /messages', () => {
  const t = setupEmulator();
  const hamlet = t.as('hamlet');

  it('returns the newest messages of the personal history, sorted, with anchor 10000000000000000', async () => {
    const body = await getMessages(hamlet, { anchor: 'newest', numBefore: 4, numAfter: 0 });
    expectValidResponse('get', '/messages', body);
    expect(body.anchor).toBe(NEWEST);
    expect([body.found_newest, body.found_oldest, body.found_anchor, body.history_limited]).toEqual([true, false, false, false]);
    const ids = body.messages.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toHaveLength(4);
    // Hamlet's history: his channels and his direct messages; engineering (private) is his too.
    const expected = [...t.store.messages.values()]
      .filter((m) => t.store.receivedMessage(t.user('hamlet').user_id, m))
      .map((m) => m.id)
      .slice(-4);
    expect(ids).toEqual(expected);
  });

  it('pages from the oldest message with exact found_oldest / found_newest', async () => {
    const all = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(t.user('hamlet').user_id, m)).map((m) => m.id);
    const first = await getMessages(hamlet, { anchor: 'oldest', numBefore: 0, numAfter: 3 });
    expect(first.anchor).toBe(0);
    expect(first.messages.map((m) => m.id)).toEqual(all.slice(0, 3));
    expect([first.found_oldest, first.found_newest]).toEqual([true, false]);
    const everything = await getMessages(hamlet, { anchor: 'oldest', numBefore: 0, numAfter: all.length });
    expect(everything.messages.map((m) => m.id)).toEqual(all);
    expect(everything.found_newest).toBe(true);
  });

  it('centres on an integer anchor, with and without include_anchor', async () => {
    const all = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(t.user('hamlet').user_id, m)).map((m) => m.id);
    const anchor = all[5]!;
    const around = await getMessages(hamlet, { anchor, numBefore: 2, numAfter: 2 });
    expect(around.anchor).toBe(anchor);
    expect(around.found_anchor).toBe(true);
    expect(around.messages.map((m) => m.id)).toEqual(all.slice(3, 8));
    const without = await getMessages(hamlet, { anchor, numBefore: 2, numAfter: 2, includeAnchor: false });
    expect(without.found_anchor).toBe(false);
    expect(without.messages.map((m) => m.id)).toEqual([all[3], all[4], all[6], all[7]]);
    // An anchor that is not in the narrow still places the window.
    const missing = await getMessages(hamlet, { anchor: 99999, numBefore: 1, numAfter: 1 });
    expect([missing.found_anchor, missing.found_newest]).toEqual([false, true]);
    expect(missing.messages.map((m) => m.id)).toEqual(all.slice(-1));
  });

  it('anchors first_unread on the oldest unread match, else on the newest', async () => {
    const hamletId = t.user('hamlet').user_id;
    const unread = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(hamletId, m) && !t.store.hasFlag(hamletId, m.id, 'read'));
    expect(unread.length).toBeGreaterThan(0);
    const body = await getMessages(hamlet, { anchor: 'first_unread', numBefore: 1, numAfter: 1 });
    expect(body.anchor).toBe(unread[0]!.id);
    expect(body.found_anchor).toBe(true);
    const legacy = await getMessages(hamlet, { useFirstUnreadAnchor: true, numBefore: 0, numAfter: 0 });
    expect(legacy.anchor).toBe(unread[0]!.id);
    // Nothing unread in a narrow: the anchor is "newest".
    const starred = await getMessages(hamlet, { anchor: 'first_unread', numBefore: 5, numAfter: 5, narrow: [{ operator: 'is', operand: 'starred' }] });
    expect(starred.anchor).toBe(NEWEST);
    expect(starred.messages.map((m) => m.id)).toEqual([t.messageWith('Welcome to').id]);
  });

  it('clamps negative and huge integer anchors', async () => {
    const low = await hamlet.send<Body>('x', 'GET', 'messages', { anchor: '-5', num_before: 0, num_after: 1 });
    expect(low.anchor).toBe(0);
    const high = await hamlet.send<Body>('x', 'GET', 'messages', { anchor: '99999999999999999999', num_before: 1, num_after: 0 });
    expect(high.anchor).toBe(NEWEST);
    expect(high.messages).toHaveLength(1);
  });

  it('rejects bad windows and parameter mixes', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ anchor: 'newest', num_after: 0 }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_before' argument"],
      [{ anchor: 'newest', num_before: 0 }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_after' argument"],
      [{ num_before: 1, num_after: 0 }, 'REQUEST_VARIABLE_MISSING', "Missing 'anchor' argument"],
      [{ anchor: 'newest', num_before: 4000, num_after: 1001 }, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).'],
      [{ anchor: 'newest', num_before: -1, num_after: 0 }, 'BAD_REQUEST', 'num_before is too small'],
      [{ anchor: 'sideways', num_before: 1, num_after: 0 }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: '1.5', num_before: 1, num_after: 0 }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: 'newest', num_before: 'x', num_after: 0 }, 'BAD_REQUEST', 'num_before is not an integer'],
      [{ anchor: 'newest', use_first_unread_anchor: true, num_before: 1, num_after: 0 }, 'BAD_REQUEST', 'Unsupported parameter combination: anchor, use_first_unread_anchor'],
      [{ message_ids: [1], anchor: 'newest' }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, anchor'],
      [{ message_ids: [1], num_before: 0, num_after: 0, include_anchor: true }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, include_anchor, num_before, num_after'],
      [{ message_ids: [1], use_first_unread_anchor: false }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, use_first_unread_anchor'],
      [{ message_ids: '[1, "x"]' }, 'BAD_REQUEST', 'message_ids[1] is not an integer'],
      [{ message_ids: '{"a": 1}' }, 'BAD_REQUEST', 'message_ids is not a list'],
      [{ anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: 'yes' }, 'BAD_REQUEST', 'apply_markdown is not a boolean'],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(hamlet.send('x', 'GET', 'messages', params));
      expect([e.code, e.message, e.httpStatus], JSON.stringify(params)).toEqual([code, msg, 400]);
    }
  });

  it('returns the requested message_ids that exist and are visible, filtered by the narrow', async () => {
    const welcome = t.messageWith('Welcome to');
    const dmOthers = t.messageWith('Can you review'); // hamlet -> iago: othello cannot see it
    const release = t.messageWith('Release plan'); // engineering: othello is not subscribed
    const othello = t.as('othello');
    const body = await getMessages(othello, { messageIds: [release.id, 999999, dmOthers.id, welcome.id, welcome.id] });
    expectValidResponse('get', '/messages', body);
    expect(body.anchor).toBeUndefined();
    expect(body.messages.map((m) => m.id)).toEqual([welcome.id]);
    const narrowed = await getMessages(hamlet, {
      messageIds: [welcome.id, dmOthers.id, release.id],
      narrow: [{ operator: 'channel', operand: 'general' }],
    });
    expect(narrowed.messages.map((m) => m.id)).toEqual([welcome.id]);
    const all = await getMessages(hamlet, { messageIds: [release.id, dmOthers.id] });
    expect(all.messages.map((m) => m.id)).toEqual([release.id, dmOthers.id].sort((a, b) => a - b));
  });

  it('serializes every field of a channel message, with flags and edit history', async () => {
    const colors = t.messageWith('I like *teal*');
    const { messages } = await getMessages(t.as('cordelia'), { messageIds: [colors.id] });
    const m = messages[0]!;
    expect(m).toMatchObject({
      id: colors.id,
      sender_id: t.user('cordelia').user_id,
      sender_full_name: 'Cordelia, Lear\u2019s daughter',
      sender_email: t.user('cordelia').email,
      sender_realm_str: 'zulip',
      client: 'website',
      content: '<p>I like <em>teal</em> and <strong>orange</strong>.</p>',
      content_type: 'text/html',
      display_recipient: 'design',
      stream_id: t.channel('design').stream_id,
      recipient_id: t.channel('design').recipient_id,
      subject: 'colors',
      topic_links: [],
      type: 'stream',
      is_me_message: false,
      reactions: [],
      submessages: [],
      timestamp: colors.timestamp,
      last_edit_timestamp: colors.timestamp + 60,
      flags: ['read'],
    });
    expect(m.edit_history).toEqual([
      { user_id: t.user('cordelia').user_id, timestamp: colors.timestamp + 60, prev_content: 'I like teal.', prev_rendered_content: '<p>I like teal.</p>' },
    ]);
    expect(m.last_moved_timestamp).toBeUndefined();
  });

  it('hides edit history when the organization disallows viewing it', async () => {
    const t2 = setupEmulator();
    t2.store.realm.settings.allow_edit_history = false;
    const colors = t2.messageWith('I like *teal*');
    const { messages } = await getMessages(t2.as('cordelia'), { messageIds: [colors.id] });
    expect(messages[0]!.edit_history).toBeUndefined();
    expect(messages[0]!.last_edit_timestamp).toBe(colors.timestamp + 60);
  });

  it('serializes direct messages with display_recipient users', async () => {
    const group = t.messageWith('Planning the play');
    const { messages } = await getMessages(hamlet, { messageIds: [group.id] });
    const m = messages[0]!;
    expect(m.type).toBe('private');
    expect(m.subject).toBe('');
    expect(m.stream_id).toBeUndefined();
    const ids = ['iago', 'hamlet', 'cordelia'].map((l) => t.user(l).user_id).sort((a, b) => a - b);
    expect(m.display_recipient).toEqual(
      ids.map((id) => ({ id, email: t.store.users.get(id)!.email, full_name: t.store.users.get(id)!.full_name, is_mirror_dummy: false })),
    );
  });

  it('returns Markdown with apply_markdown false', async () => {
    const welcome = t.messageWith('Welcome to');
    const { messages } = await getMessages(hamlet, { messageIds: [welcome.id], applyMarkdown: false });
    expect(messages[0]).toMatchObject({ content: welcome.content, content_type: 'text/x-markdown' });
  });

  it('leaves avatar_url null only for gravatar users whose real email the viewer sees', async () => {
    const cordeliaMsg = t.messageWith('I like *teal*'); // Cordelia's email is visible to admins only
    const hamletMsg = t.messageWith('What about @*players*');
    const ids = [cordeliaMsg.id, hamletMsg.id];
    const asOthello = await getMessages(t.as('othello'), { messageIds: ids });
    expect(asOthello.messages[0]!.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
    expect(asOthello.messages[1]!.avatar_url).toBeNull();
    const asAdmin = await getMessages(t.as('iago'), { messageIds: ids });
    expect(asAdmin.messages.map((m) => m.avatar_url)).toEqual([null, null]);
    const noGravatar = await getMessages(t.as('othello'), { messageIds: ids, clientGravatar: false });
    expect(noGravatar.messages.every((m) => typeof m.avatar_url === 'string')).toBe(true);
    const uploaded = t.user('hamlet');
    uploaded.avatar_source = 'U';
    try {
      const up = await getMessages(t.as('othello'), { messageIds: [hamletMsg.id] });
      expect(up.messages[0]!.avatar_url).toMatch(/^http:\/\/emulator\.test\/user_avatars\/2\/[0-9a-f]+\.png\?version=1$/);
    } finally {
      uploaded.avatar_source = 'G';
    }
  });

  it('shows the empty topic as the display name unless allow_empty_topic_name', async () => {
    const empty = t.messageWith('A message in the empty topic');
    const shown = await getMessages(hamlet, { messageIds: [empty.id] });
    expect(shown.messages[0]!.subject).toBe('general chat');
    const raw = await getMessages(hamlet, { messageIds: [empty.id], allowEmptyTopicName: true });
    expect(raw.messages[0]!.subject).toBe('');
    // The display name in a topic narrow means the empty topic.
    const narrowed = await getMessages(hamlet, { anchor: 'newest', numBefore: 10, numAfter: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'general chat' }] });
    expect(narrowed.messages.map((m) => m.id)).toEqual([empty.id]);
  });
});

describe('narrows in GET /messages', () => {
  const t = setupEmulator();
  const hamlet = t.as('hamlet');
  const fetchIds = async (conn: ZulipConnection, narrow: unknown, extra: Record<string, unknown> = {}) => {
    const body = await conn.send<Body>('x', 'GET', 'messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, ...extra });
    expectValidResponse('get', '/messages', body);
    return (body.messages as Body[]).map((m) => m.id as number);
  };
  const idsWhere = (pred: (m: Message) => boolean) => [...t.store.messages.values()].filter(pred).map((m) => m.id);

  it('filters by channel (name, id, legacy pair) and topic, case-insensitively', async () => {
    const general = t.channel('general');
    const expected = idsWhere((m) => m.stream_id === general.stream_id);
    expect(await fetchIds(hamlet, [{ operator: 'channel', operand: 'general' }])).toEqual(expected);
    expect(await fetchIds(hamlet, [{ operator: 'stream', operand: general.stream_id }])).toEqual(expected);
    expect(await fetchIds(hamlet, [['stream', 'General']])).toEqual(expected);
    const greetings = idsWhere((m) => m.stream_id === general.stream_id && m.topic === 'greetings');
    expect(await fetchIds(hamlet, [['stream', 'general'], ['topic', 'GREETINGS']])).toEqual(greetings);
    expect(await fetchIds(hamlet, [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'greetings', negated: true }])).toEqual(
      expected.filter((id) => !greetings.includes(id)),
    );
  });

  it('filters by sender, direct-message conversation and dm-including', async () => {
    const iago = t.user('iago');
    const hamletId = t.user('hamlet').user_id;
    const fromIago = idsWhere((m) => m.sender_id === iago.user_id && t.store.receivedMessage(hamletId, m));
    expect(await fetchIds(hamlet, [{ operator: 'sender', operand: iago.user_id }])).toEqual(fromIago);
    expect(await fetchIds(hamlet, [{ operator: 'sender', operand: iago.email }])).toEqual(fromIago);
    const oneToOne = idsWhere((m) => m.type === 'private' && m.dm_user_ids!.length === 2 && m.dm_user_ids!.includes(iago.user_id));
    expect(await fetchIds(hamlet, [{ operator: 'dm', operand: [iago.user_id] }])).toEqual(oneToOne);
    expect(await fetchIds(hamlet, [['pm-with', iago.email]])).toEqual(oneToOne);
    const cordelia = t.user('cordelia');
    const group = idsWhere((m) => m.type === 'private' && m.dm_user_ids!.length === 3);
    expect(await fetchIds(hamlet, [{ operator: 'dm', operand: [iago.user_id, cordelia.user_id] }])).toEqual(group);
    expect(await fetchIds(hamlet, [{ operator: 'dm', operand: `${cordelia.email},${iago.email}` }])).toEqual(group);
    const including = idsWhere((m) => m.type === 'private' && m.dm_user_ids!.includes(iago.user_id));
    expect(await fetchIds(hamlet, [{ operator: 'dm-including', operand: iago.user_id }])).toEqual(including);
    expect(await fetchIds(hamlet, [{ operator: 'is', operand: 'dm' }])).toEqual(idsWhere((m) => m.type === 'private' && m.dm_user_ids!.includes(hamletId)));
  });

  it('filters by is:unread, is:starred, is:mentioned, is:resolved and has:', async () => {
    const hamletId = t.user('hamlet').user_id;
    const received = (m: Message) => t.store.receivedMessage(hamletId, m);
    expect(await fetchIds(hamlet, [{ operator: 'is', operand: 'unread' }])).toEqual(idsWhere((m) => received(m) && !t.store.hasFlag(hamletId, m.id, 'read')));
    expect(await fetchIds(hamlet, [{ operator: 'is', operand: 'starred' }])).toEqual([t.messageWith('Welcome to').id]);
    const mentioned = await fetchIds(t.as('desdemona'), [{ operator: 'is', operand: 'mentioned' }]);
    expect(mentioned).toContain(t.messageWith('Hi @**Desdemona**').id);
    expect(await fetchIds(hamlet, [{ operator: 'is', operand: 'resolved' }])).toEqual(idsWhere((m) => received(m) && m.topic.startsWith('✔ ')));
    expect(await fetchIds(hamlet, [{ operator: 'has', operand: 'link' }])).toEqual(idsWhere((m) => received(m) && m.rendered_content.includes('<a href=')));
    expect(await fetchIds(hamlet, [{ operator: 'has', operand: 'reaction' }])).toEqual([t.messageWith('Welcome to').id]);
    expect(await fetchIds(hamlet, [{ operator: 'is', operand: 'unread', negated: true }, { operator: 'is', operand: 'dm' }])).toEqual(
      idsWhere((m) => received(m) && m.type === 'private' && t.store.hasFlag(hamletId, m.id, 'read')),
    );
  });

  it('searches keywords at word starts and highlights them', async () => {
    const body = await hamlet.send<Body>('x', 'GET', 'messages', {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: [{ operator: 'search', operand: 'deploy' }],
    });
    expectValidResponse('get', '/messages', body);
    const deploy = t.messageWith('The deploy to production');
    const fixedIn = t.messageWith('Fixed in'); // matches through its topic, "✔ deploy failure"
    expect(body.messages.map((m: Body) => m.id)).toEqual([deploy.id, fixedIn.id]);
    expect(body.messages[1].match_content).toBe(fixedIn.rendered_content);
    expect(body.messages[0].match_content).toBe('<p>The <span class="highlight">deploy</span> to production failed at step 3.</p>');
    expect(body.messages[0].match_subject).toBe('✔ <span class="highlight">deploy</span> failure');
    // Word starts only, several words all required, topic included.
    expect(await fetchIds(hamlet, [{ operator: 'search', operand: 'eploy' }])).toEqual([]);
    expect(await fetchIds(hamlet, [{ operator: 'search', operand: 'FAILED production' }])).toEqual([deploy.id]);
    expect(await fetchIds(hamlet, [{ operator: 'search', operand: 'failure rollback' }])).toEqual([t.messageWith('Fixed in').id]);
    // Plain fetches carry no match fields.
    const plain = await getMessages(hamlet, { messageIds: [deploy.id] });
    expect(plain.messages[0]!.match_content).toBeUndefined();
  });

  it('searches the channel history for a channel narrow, the personal history otherwise', async () => {
    const t2 = setupEmulator();
    const now = Math.floor(t2.emulator.clock.now() / 1000);
    const hamletUser = t2.user('hamlet');
    const newcomer = addUser(t2.store, { full_name: 'New Comer', delivery_email: 'new@zulip.example.com' }, t2.emulator.clock.now());
    subscribe(t2.store, t2.channel('general').stream_id, newcomer.user_id);
    const later = insertMessage(t2.store, { sender_id: hamletUser.user_id, stream_id: t2.channel('general').stream_id, topic: 'later', content: 'After you joined', timestamp: now });
    const conn = t2.as(newcomer);
    const personal = await getMessages(conn, { anchor: 'newest', numBefore: 50, numAfter: 0 });
    expect(personal.messages.map((m) => m.id)).toEqual([later.id]);
    const general = await getMessages(conn, { anchor: 'newest', numBefore: 50, numAfter: 0, narrow: [{ operator: 'channel', operand: 'general' }] });
    const generalIds = [...t2.store.messages.values()].filter((m) => m.stream_id === t2.channel('general').stream_id).map((m) => m.id);
    expect(general.messages.map((m) => m.id)).toEqual(generalIds);
    expect(general.messages[0]!.flags).toContain('historical');
    expect(general.messages.at(-1)!.flags).not.toContain('historical');
    // is:unread narrows stay in the personal history even with a channel.
    const unread = await getMessages(conn, { anchor: 'newest', numBefore: 50, numAfter: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'is', operand: 'unread' }] });
    expect(unread.messages.map((m) => m.id)).toEqual([later.id]);
    // channels:public covers every public channel's history.
    const pub = await getMessages(conn, { anchor: 'newest', numBefore: 100, numAfter: 0, narrow: [{ operator: 'channels', operand: 'public' }] });
    const publicIds = [...t2.store.messages.values()].filter((m) => m.type === 'stream' && !t2.store.channels.get(m.stream_id!)!.invite_only).map((m) => m.id);
    expect(pub.messages.map((m) => m.id)).toEqual(publicIds);
  });

  it('hides history from before subscription in protected-history channels', async () => {
    const t2 = setupEmulator();
    const engineering = t2.channel('engineering');
    const othello = t2.user('othello');
    subscribe(t2.store, engineering.stream_id, othello.user_id);
    const now = Math.floor(t2.emulator.clock.now() / 1000);
    const fresh = insertMessage(t2.store, { sender_id: t2.user('iago').user_id, stream_id: engineering.stream_id, topic: 'new', content: 'Welcome Othello', timestamp: now });
    const conn = t2.as('othello');
    const body = await getMessages(conn, { anchor: 'newest', numBefore: 50, numAfter: 0, narrow: [{ operator: 'channel', operand: 'engineering' }] });
    expect(body.messages.map((m) => m.id)).toEqual([fresh.id]);
    expect(body.found_oldest).toBe(true);
    const old = t2.messageWith('Release plan');
    const byId = await getMessages(conn, { messageIds: [old.id, fresh.id] });
    expect(byId.messages.map((m) => m.id)).toEqual([fresh.id]);
    await expect(getMessage(conn, { messageId: old.id })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid message(s)' });
  });

  it('refuses unknown or inaccessible channels and bad operators with BAD_NARROW', async () => {
    const othello = t.as('othello');
    const cases: [unknown, string][] = [
      [[{ operator: 'channel', operand: 'engineering' }], 'Invalid narrow operator: unknown channel engineering'],
      [[{ operator: 'channel', operand: t.channel('engineering').stream_id }], `Invalid narrow operator: unknown channel ${t.channel('engineering').stream_id}`],
      [[{ operator: 'channel', operand: 'no such channel' }], 'Invalid narrow operator: unknown channel no such channel'],
      [[{ operator: 'sender', operand: 'ghost@zulip.example.com' }], 'Invalid narrow operator: unknown user ghost@zulip.example.com'],
      [[{ operator: 'dm', operand: [99999] }], 'Invalid narrow operator: unknown user in 99999'],
      [[{ operator: 'is', operand: 'bogus' }], "Invalid narrow operator: unknown 'is' operand bogus"],
      [[{ operator: 'has', operand: 'video' }], "Invalid narrow operator: unknown 'has' operand video"],
      [[{ operator: 'channels', operand: 'all' }], 'Invalid narrow operator: unknown channels operand all'],
      [[{ operator: 'frobnicate', operand: 'x' }], 'Invalid narrow operator: unknown operator frobnicate'],
      [[{ operator: 'id', operand: 'abc' }], 'Invalid narrow operator: Invalid message ID'],
    ];
    for (const [narrow, msg] of cases) {
      const e = await caughtApiError(othello.send('x', 'GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow }));
      expect([e.code, e.message], JSON.stringify(narrow)).toEqual(['BAD_NARROW', msg]);
    }
    const shapes: [unknown, string][] = [
      [{ operator: 'channel' }, 'narrow is not a list'],
      [[{ operator: 'channel' }], 'Invalid narrow: operand is missing'],
      [[['channel']], 'Invalid narrow: element is not a string pair'],
      [[42], 'Invalid narrow: dict or list required'],
      [[{ operator: 'topic', operand: 5 }], 'operand is not a string'],
      [[{ operator: 'search', operand: '  ' }], 'operand cannot be blank.'],
      [[{ operator: 'topic', operand: 'x', negated: 'yes' }], 'negated is not a boolean'],
    ];
    for (const [narrow, msg] of shapes) {
      const e = await caughtApiError(othello.send('x', 'GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow }));
      expect([e.code, e.message], JSON.stringify(narrow)).toEqual(['BAD_REQUEST', msg]);
    }
  });

  it('resolves id and with: operators', async () => {
    const fixed = t.messageWith('Fixed in');
    expect(await fetchIds(hamlet, [{ operator: 'id', operand: fixed.id }])).toEqual([fixed.id]);
    const topic = idsWhere((m) => m.stream_id === fixed.stream_id && m.topic === fixed.topic);
    expect(await fetchIds(hamlet, [{ operator: 'with', operand: fixed.id }])).toEqual(topic);
  });
});

// ---- GET /messages/{id} ----------------------------------------------------------------------------

describe('GET /messages/{message_id}', () => {
  const t = setupEmulator();

  it('returns one message with raw_content and flags', async () => {
    const welcome = t.messageWith('Welcome to');
    const body = await getMessage(t.as('hamlet'), { messageId: welcome.id });
    expectValidResponse('get', `/messages/${welcome.id}`, body);
    expect(body.raw_content).toBe(welcome.content);
    expect(body.message).toMatchObject({ id: welcome.id, content: welcome.rendered_content, content_type: 'text/html', flags: ['read', 'starred'] });
    expect(body.message.reactions).toHaveLength(3);
    const raw = await getMessage(t.as('hamlet'), { messageId: welcome.id, applyMarkdown: false });
    expect(raw.message).toMatchObject({ content: welcome.content, content_type: 'text/x-markdown' });
  });

  it('answers "Invalid message(s)" for unknown and invisible messages', async () => {
    const dm = t.messageWith('Can you review');
    for (const id of [dm.id, 424242]) {
      const e = await caughtApiError(getMessage(t.as('othello'), { messageId: id }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid message(s)']);
    }
    const e = await caughtApiError(t.as('othello').send('x', 'GET', 'messages/abc'));
    expect(e.message).toBe('message_id is not an integer');
  });
});

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
    const e = await hamlet.send<Body>('x', 'POST', 'messages', { type: 'direct', to: iago.email, content: 'comma form' });
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
    const { id: noTopic } = await hamlet.send<Body>('x', 'POST', 'messages', { type: 'channel', to: 'general', content: 'no topic at all' });
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
    const missing = await caughtApiError(conn.send('x', 'POST', 'messages', { type: 'channel', to: 'general', content: 'x' }));
    expect(missing.message).toBe('Missing topic');
    for (const topic of ['', '(no topic)', 'general chat']) {
      const e = await caughtApiError(sendMessage(conn, { type: 'channel', to: 'general', topic, content: 'x' }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Topics are required in this organization']);
    }
  });

  it('rejects bad requests with Zulip\'s errors, storing nothing', async () => {
    const before = t.store.messages.size;
    const cases: [Record<string, unknown>, string, string, Record<string, unknown>?][] = [
      [{ type: 'channel', to: 'nowhere', topic: 't', content: 'x' }, 'STREAM_DOES_NOT_EXIST', "Channel 'nowhere' does not exist", { stream: 'nowhere' }],
      [{ type: 'channel', to: 4242, topic: 't', content: 'x' }, 'STREAM_DOES_NOT_EXIST', "Channel with ID '4242' does not exist", { stream_id: 4242 }],
      [{ type: 'channel', to: 'legacy', topic: 't', content: 'x' }, 'BAD_REQUEST', "Not authorized to send to channel 'legacy'"],
      [{ type: 'channel', to: 'moderation requests', topic: 't', content: 'x' }, 'BAD_REQUEST', "Not authorized to send to channel 'moderation requests'"],
      [{ type: 'channel', to: 'announce', topic: 't', content: 'x' }, 'BAD_REQUEST', 'You do not have permission to post in this channel.'],
      [{ type: 'channel', topic: 't', content: 'x' }, 'BAD_REQUEST', 'Missing channel'],
      [{ type: 'channel', to: '[1, 2]', topic: 't', content: 'x' }, 'BAD_REQUEST', 'Expected exactly one channel'],
      [{ type: 'carrier-pigeon', to: 'general', topic: 't', content: 'x' }, 'BAD_REQUEST', 'Invalid message type'],
      [{ to: 'general', topic: 't', content: 'x' }, 'REQUEST_VARIABLE_MISSING', "Missing 'type' argument"],
      [{ type: 'channel', to: 'general', topic: 't' }, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument"],
      [{ type: 'channel', to: 'general', topic: 't', content: '  \n ' }, 'BAD_REQUEST', 'Message must not be empty'],
      [{ type: 'channel', to: 'general', topic: 't', content: 'a\u0000b' }, 'BAD_REQUEST', 'Message must not contain null bytes'],
      [{ type: 'channel', to: 'general', topic: 't\u0000', content: 'x' }, 'BAD_REQUEST', 'Topic must not contain null bytes'],
      [{ type: 'direct', to: [4242], content: 'x' }, 'BAD_REQUEST', 'Invalid user ID 4242'],
      [{ type: 'direct', to: ['ghost@zulip.example.com'], content: 'x' }, 'BAD_REQUEST', "Invalid email 'ghost@zulip.example.com'"],
      [{ type: 'direct', to: [t.user('iago').user_id, 'x@y.z'], content: 'x' }, 'BAD_REQUEST', 'Recipient lists may contain emails or user IDs, but not both.'],
      [{ type: 'direct', to: [], content: 'x' }, 'BAD_REQUEST', 'Message must have recipients'],
      [{ type: 'direct', content: 'x' }, 'BAD_REQUEST', 'Message must have recipients'],
      [{ type: 'direct', to: '{"a": 1}', content: 'x' }, 'BAD_REQUEST', 'Invalid data type for recipients'],
      [{ type: 'direct', to: [t.store.userByEmail('lear@zulip.example.com')!.user_id], content: 'x' }, 'BAD_REQUEST', "'lear@zulip.example.com' is no longer using Zulip."],
      [{ type: 'channel', to: 'general', topic: 't', content: 'x', read_by_sender: 'maybe' }, 'BAD_REQUEST', 'read_by_sender is not a boolean'],
    ];
    for (const [params, code, msg, extra] of cases) {
      const e = await caughtApiError(hamlet.send('x', 'POST', 'messages', params));
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
    const qHamlet = await registerQueue(hamlet, { apply_markdown: true });
    const qOthello = await registerQueue(othello, { apply_markdown: false, client_gravatar: false });
    const qCordelia = await registerQueue(cordelia, { narrow: [['stream', 'engineering']] });
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
    const q = await registerQueue(botConn, { all_public_streams: true });
    const { id } = await sendMessage(t.as('cordelia'), { type: 'channel', to: 'design', topic: 'pub', content: 'public news' });
    await sendMessage(t.as('iago'), { type: 'channel', to: 'engineering', topic: 'private', content: 'private news' });
    const events = await pollEvents(botConn, q);
    expect(events.map((e) => [e.type, e.message.id, e.flags])).toEqual([['message', id, []]]);
  });
});

// ---- PATCH /messages/{id} --------------------------------------------------------------------------

describe('PATCH /messages/{message_id}: content', () => {
  it('edits content, keeps history, and tells everyone who received the message', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const { id } = await sendMessage(hamlet, { type: 'channel', to: 'design', topic: 'edits', content: 'first draft' });
    const qHamlet = await registerQueue(hamlet);
    const qCordelia = await registerQueue(t.as('cordelia'), { event_types: ['update_message'] });
    const bot = t.store.userByEmail('hamlet-bot@zulip.example.com')!; // in general, not in design
    const qBot = await registerQueue(t.as(bot), { event_types: ['update_message'] });
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
      prev_rendered_content_version: 1,
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
    const cases: [ZulipConnection, number, Record<string, unknown>, string][] = [
      [hamlet, id, {}, 'Nothing to change'],
      [hamlet, id, { content: 'mine' }, 'Nothing to change'],
      [hamlet, id, { topic: 'x' }, 'Nothing to change'],
      [hamlet, id, { content: 'new', stream_id: t.channel('design').stream_id }, 'Cannot change message content while changing channel'],
      [hamlet, dm.id, { topic: 'x' }, 'Direct messages cannot have topics.'],
      [hamlet, dm.id, { stream_id: t.channel('general').stream_id }, 'Direct messages cannot be moved to channels.'],
      [hamlet, id, { content: 'new', propagate_mode: 'change_all' }, 'Invalid propagate_mode without topic edit'],
      [hamlet, id, { topic: 'y', propagate_mode: 'change_some' }, 'Invalid propagate_mode'],
      [t.as('iago'), id, { content: 'not yours' }, "You don't have permission to edit this message"],
      [hamlet, id, { content: 'a\u0000b' }, 'Message must not contain null bytes'],
      [hamlet, id, { stream_id: 'x' }, 'stream_id is not an integer'],
      [hamlet, 424242, { content: 'x' }, 'Invalid message(s)'],
      [t.as('othello'), dm.id, { content: 'x' }, 'Invalid message(s)'],
    ];
    for (const [conn, messageId, params, msg] of cases) {
      const e = await caughtApiError(conn.send('x', 'PATCH', `messages/${messageId}`, params));
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
    const qOthello = await registerQueue(t.as('othello'), { event_types: ['update_message', 'message'] });
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
      othello: await registerQueue(conns.othello, { client_capabilities: { notification_settings_null: true, bulk_message_deletion: true } }),
      iago: await registerQueue(conns.iago, { apply_markdown: true }),
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

// ---- flags ---------------------------------------------------------------------------------------

describe('POST /messages/flags', () => {
  it('adds and removes flags, with one update_message_flags event to the user', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const q = await registerQueue(hamlet);
    const qIago = await registerQueue(t.as('iago'));
    const deploy = t.messageWith('The deploy to production');
    const fixed = t.messageWith('Fixed in');
    const body = await updateMessageFlags(hamlet, { messages: [deploy.id, fixed.id], op: 'add', flag: 'starred' });
    expectValidResponse('post', '/messages/flags', body);
    expect(body.messages).toEqual([deploy.id, fixed.id]);
    await updateMessageFlags(hamlet, { messages: [deploy.id], op: 'add', flag: 'starred' }); // no change, no event
    await updateMessageFlags(hamlet, { messages: [deploy.id], op: 'remove', flag: 'read' }); // already unread: no event
    await updateMessageFlags(hamlet, { messages: [deploy.id, fixed.id], op: 'add', flag: 'read' });
    await updateMessageFlags(hamlet, { messages: [deploy.id], op: 'remove', flag: 'read' });
    const events = await pollEvents(hamlet, q);
    expect(events).toEqual([
      { id: 0, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [deploy.id, fixed.id], all: false },
      { id: 1, type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [deploy.id, fixed.id], all: false },
      {
        id: 2,
        type: 'update_message_flags',
        op: 'remove',
        operation: 'remove',
        flag: 'read',
        messages: [deploy.id],
        all: false,
        message_details: { [deploy.id]: { type: 'stream', stream_id: t.channel('general').stream_id, topic: '✔ deploy failure' } },
      },
    ]);
    expect(await pollEvents(t.as('iago'), qIago)).toEqual([]);
    const dm = t.messageWith('Sure, looking now');
    await updateMessageFlags(hamlet, { messages: [dm.id], op: 'add', flag: 'read' });
    await updateMessageFlags(hamlet, { messages: [dm.id], op: 'remove', flag: 'read' });
    const [, , , , dmEvent] = await pollEvents(hamlet, q);
    expect(dmEvent!.message_details).toEqual({ [dm.id]: { type: 'private', user_ids: [t.user('iago').user_id] } });
  });

  it('rejects bad flags, operations and invisible messages', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const dmOthers = t.messageWith('Can you review');
    const cases: [Record<string, unknown>, string][] = [
      [{ messages: [1], op: 'add', flag: 'shiny' }, "Invalid flag: 'shiny'"],
      [{ messages: [1], op: 'add', flag: 'mentioned' }, "Flag not editable: 'mentioned'"],
      [{ messages: [1], op: 'add', flag: 'historical' }, "Flag not editable: 'historical'"],
      [{ messages: [1], op: 'toggle', flag: 'read' }, "Invalid message flag operation: 'toggle'"],
      [{ messages: [t.messageWith('Hi @**Desdemona**').id, 424242], op: 'add', flag: 'starred' }, 'Invalid message(s)'],
      [{ messages: '[1, "x"]', op: 'add', flag: 'starred' }, 'messages[1] is not an integer'],
    ];
    for (const [params, msg] of cases) {
      const e = await caughtApiError(hamlet.send('x', 'POST', 'messages/flags', params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual(['BAD_REQUEST', msg]);
    }
    const e = await caughtApiError(t.as('othello').send('x', 'POST', 'messages/flags', { messages: [dmOthers.id], op: 'add', flag: 'starred' }));
    expect(e.message).toBe('Invalid message(s)');
    expect(t.store.hasFlag(t.user('hamlet').user_id, t.messageWith('Hi @**Desdemona**').id, 'starred')).toBe(false);
    // Removing ignores what the user cannot see.
    await updateMessageFlags(t.as('othello'), { messages: [dmOthers.id], op: 'remove', flag: 'read' });
    expect(t.store.hasFlag(t.user('othello').user_id, dmOthers.id, 'read')).toBe(true);
  });
});

describe('POST /messages/flags/narrow', () => {
  it('marks a narrow read, reporting the processed range', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const hamletId = t.user('hamlet').user_id;
    const unread = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(hamletId, m) && !t.store.hasFlag(hamletId, m.id, 'read')).map((m) => m.id);
    const body = await updateMessageFlagsForNarrow(hamlet, { anchor: 'oldest', numBefore: 0, numAfter: 1000, narrow: [{ operator: 'is', operand: 'unread' }], op: 'add', flag: 'read' });
    expectValidResponse('post', '/messages/flags/narrow', body);
    expect(body).toMatchObject({
      processed_count: unread.length,
      updated_count: unread.length,
      first_processed_id: unread[0],
      last_processed_id: unread.at(-1),
      found_oldest: true,
      found_newest: true,
    });
    expect((body as Body).ignored_because_not_subscribed_channels).toBeUndefined();
    // Nothing unread: first_unread means newest, and nothing lies after it.
    const again = await updateMessageFlagsForNarrow(hamlet, { anchor: 'first_unread', numBefore: 0, numAfter: 10, narrow: [], op: 'add', flag: 'read' });
    expect(again).toMatchObject({ processed_count: 0, updated_count: 0, found_newest: true });
    const last = await updateMessageFlagsForNarrow(hamlet, { anchor: 'newest', numBefore: 1, numAfter: 0, narrow: [], op: 'add', flag: 'read' });
    expect(last).toMatchObject({ processed_count: 1, updated_count: 0, found_oldest: false });
    const empty = await updateMessageFlagsForNarrow(hamlet, { anchor: 'newest', numBefore: 10, numAfter: 0, narrow: [{ operator: 'is', operand: 'unread' }], op: 'add', flag: 'read' });
    expect(empty).toMatchObject({ processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null, found_oldest: true, found_newest: true });
  });

  it('stars a window around an anchor and reports whether more remain', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const general = [...t.store.messages.values()].filter((m) => m.stream_id === t.channel('general').stream_id).map((m) => m.id);
    const body = await updateMessageFlagsForNarrow(hamlet, { anchor: general[2]!, numBefore: 1, numAfter: 1, narrow: [{ operator: 'channel', operand: 'general' }], op: 'add', flag: 'starred' });
    expect(body).toMatchObject({ processed_count: 3, first_processed_id: general[1], last_processed_id: general[3], found_oldest: false, found_newest: false });
    expect(general.filter((id) => t.store.hasFlag(t.user('hamlet').user_id, id, 'starred'))).toEqual(expect.arrayContaining(general.slice(1, 4)));
    const e = await caughtApiError(hamlet.send('x', 'POST', 'messages/flags/narrow', { anchor: general[2], include_anchor: false, num_before: 1, num_after: 1, narrow: [], op: 'add', flag: 'starred' }));
    expect(e.message).toBe('The anchor can only be excluded at an end of the range');
    // The server lowers oversized ranges instead of failing.
    const big = await updateMessageFlagsForNarrow(hamlet, { anchor: 'newest', numBefore: 100_000, numAfter: 0, narrow: [], op: 'add', flag: 'collapsed' });
    expect(big.found_oldest).toBe(true);
  });

  it('skips unsubscribed channels when marking unread, and names them', async () => {
    const t = setupEmulator();
    const newcomer = addUser(t.store, { full_name: 'Visitor', delivery_email: 'visitor@zulip.example.com' }, t.emulator.clock.now());
    subscribe(t.store, t.channel('general').stream_id, newcomer.user_id);
    const conn = t.as(newcomer);
    const body = await updateMessageFlagsForNarrow(conn, { anchor: 'newest', numBefore: 100, numAfter: 0, narrow: [{ operator: 'channels', operand: 'public' }], op: 'remove', flag: 'read' });
    expectValidResponse('post', '/messages/flags/narrow', body, ['ignored_because_not_subscribed_channels']);
    const design = t.channel('design').stream_id;
    const announce = t.channel('announce').stream_id;
    const legacy = t.channel('legacy').stream_id;
    expect((body as Body).ignored_because_not_subscribed_channels).toEqual([design, announce, legacy].sort((a, b) => a - b));
    const inGeneral = [...t.store.messages.values()].filter((m) => m.stream_id === t.channel('general').stream_id).length;
    expect(body.updated_count).toBe(inGeneral);
  });

  it('validates its parameters', async () => {
    const t = setupEmulator();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ num_before: 1, num_after: 0, narrow: [], op: 'add', flag: 'read' }, 'REQUEST_VARIABLE_MISSING', "Missing 'anchor' argument"],
      [{ anchor: 'newest', num_after: 0, narrow: [], op: 'add', flag: 'read' }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_before' argument"],
      [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [], op: 'add', flag: 'wildcard_mentioned' }, 'BAD_REQUEST', "Flag not editable: 'wildcard_mentioned'"],
      [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [], flag: 'read' }, 'REQUEST_VARIABLE_MISSING', "Missing 'op' argument"],
      [{ anchor: 'nope', num_before: 1, num_after: 0, narrow: [], op: 'add', flag: 'read' }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [['stream', 'engineering']], op: 'add', flag: 'read' }, 'BAD_NARROW', 'Invalid narrow operator: unknown channel engineering'],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(t.as('othello').send('x', 'POST', 'messages/flags/narrow', params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual([code, msg]);
    }
  });
});

// ---- register state --------------------------------------------------------------------------------

describe('register: unread_msgs and starred_messages', () => {
  it('summarizes unread messages by conversation and lists starred ones', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const hamletId = t.user('hamlet').user_id;
    await sendMessage(t.as('iago'), { type: 'channel', to: 'general', topic: 'for hamlet', content: 'Look @**King Hamlet**' });
    await sendMessage(t.as('othello'), { type: 'channel', to: '', topic: 'x', content: 'x' }).catch(() => undefined);
    await sendMessage(t.as('iago'), { type: 'channel', to: 'design', topic: 'colors', content: 'muted topic message' });
    const body = await hamlet.send<Body>('register', 'POST', 'register', { fetch_event_types: ['message', 'update_message_flags', 'starred_messages'] });
    expectValidResponse('post', '/register', body);
    const unread = body.unread_msgs;
    const expectedIds = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(hamletId, m) && !t.store.hasFlag(hamletId, m.id, 'read')).map((m) => m.id);
    const listed = [...unread.pms, ...unread.streams, ...unread.huddles].flatMap((c: Body) => c.unread_message_ids).sort((a: number, b: number) => a - b);
    expect(listed).toEqual(expectedIds);
    const iago = t.user('iago').user_id;
    expect(unread.pms).toEqual([{ other_user_id: iago, sender_id: iago, unread_message_ids: [t.messageWith('Sure, looking now').id] }]);
    expect(unread.streams).toContainEqual({ stream_id: t.channel('general').stream_id, topic: 'for hamlet', unread_message_ids: [t.messageWith('Look @**King Hamlet**').id] });
    // Direct mentions, and wildcard mentions outside muted conversations.
    expect(unread.mentions).toEqual([t.messageWith('We launch next week, @**all**').id, t.messageWith('Look @**King Hamlet**').id]);
    // Hamlet muted design > colors: those messages are listed but not counted.
    const mutedIds = unread.streams.filter((s: Body) => s.topic === 'colors').flatMap((s: Body) => s.unread_message_ids);
    expect(mutedIds.length).toBeGreaterThan(0);
    expect(unread.count).toBe(expectedIds.length - mutedIds.length);
    expect(unread.old_unreads_missing).toBe(false);
    expect(body.starred_messages).toEqual([t.messageWith('Welcome to').id]);
    const without = await hamlet.send<Body>('register', 'POST', 'register', { fetch_event_types: ['message'] });
    expect(without.unread_msgs).toBeUndefined();
    expect(without.starred_messages).toBeUndefined();
  });

  it('lists group direct messages under huddles and shows the empty topic by its display name', async () => {
    const t = setupEmulator();
    const cordelia = t.as('cordelia');
    await sendMessage(t.as('othello'), { type: 'channel', to: 'general', topic: '', content: 'in general chat' });
    const body = await cordelia.send<Body>('register', 'POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] });
    const ids = ['iago', 'hamlet', 'cordelia'].map((l) => t.user(l).user_id).sort((a, b) => a - b);
    expect(body.unread_msgs.huddles).toEqual([{ user_ids_string: ids.join(','), unread_message_ids: [t.messageWith('Planning the play').id] }]);
    expect(body.unread_msgs.streams.map((s: Body) => s.topic)).toContain('general chat');
  });
});
