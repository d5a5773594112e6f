/**
 * The emulator's `GET /messages` (anchors, windows, narrows, message_ids) and `GET
 * /messages/{message_id}`, driven through the REST client (the contract with the gateway). Success
 * bodies are checked against Zulip's OpenAPI description.
 */
import { describe, expect, it } from 'vitest';
import { addUser, insertMessage, subscribe } from '../../../src/emulator/factory.js';
import type { Message } from '../../../src/emulator/store.js';
import type { ZulipConnection } from '../../../src/zulip/connection.js';
import { getMessage, getMessages } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';
import { NEWEST, type Body } from './shared.js';
import { json, raw, type WireParams } from '../../../src/zulip/params.js';

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
    // The anchor may be left out only at an end of the range (zerver/views/message_fetch.py).
    const before = await getMessages(hamlet, { anchor, numBefore: 2, numAfter: 0, includeAnchor: false });
    expect(before.found_anchor).toBe(false);
    expect(before.messages.map((m) => m.id)).toEqual([all[3], all[4]]);
    const after = await getMessages(hamlet, { anchor, numBefore: 0, numAfter: 2, includeAnchor: false });
    expect(after.messages.map((m) => m.id)).toEqual([all[6], all[7]]);
    const middle = await caughtApiError(
      hamlet.request('get-messages', 'GET', 'messages', { anchor: raw(String(anchor)), num_before: json(2), num_after: json(2), include_anchor: json(false) }),
    );
    expect([middle.code, middle.message]).toEqual(['BAD_REQUEST', 'The anchor can only be excluded at an end of the range']);
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
    const low = await hamlet.request<Body>('x', 'GET', 'messages', { anchor: raw('-5'), num_before: json(0), num_after: json(1) });
    expect(low.anchor).toBe(0);
    const high = await hamlet.request<Body>('x', 'GET', 'messages', { anchor: raw('99999999999999999999'), num_before: json(1), num_after: json(0) });
    expect(high.anchor).toBe(NEWEST);
    expect(high.messages).toHaveLength(1);
  });

  it('rejects bad windows and parameter mixes', async () => {
    const cases: [WireParams, string, string][] = [
      [{ anchor: raw('newest'), num_after: json(0) }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_before' argument"],
      [{ anchor: raw('newest'), num_before: json(0) }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_after' argument"],
      [{ num_before: json(1), num_after: json(0) }, 'REQUEST_VARIABLE_MISSING', "Missing 'anchor' argument"],
      [{ anchor: raw('newest'), num_before: json(4000), num_after: json(1001) }, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).'],
      [{ anchor: raw('newest'), num_before: json(-1), num_after: json(0) }, 'BAD_REQUEST', 'num_before is too small'],
      [{ anchor: raw('sideways'), num_before: json(1), num_after: json(0) }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: raw('1.5'), num_before: json(1), num_after: json(0) }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: raw('newest'), num_before: raw('x'), num_after: json(0) }, 'BAD_REQUEST', 'num_before is not an integer'],
      [{ anchor: raw('newest'), use_first_unread_anchor: json(true), num_before: json(1), num_after: json(0) }, 'BAD_REQUEST', 'Unsupported parameter combination: anchor, use_first_unread_anchor'],
      [{ message_ids: json([1]), anchor: raw('newest') }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, anchor'],
      [{ message_ids: json([1]), num_before: json(0), num_after: json(0), include_anchor: json(true) }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, include_anchor, num_before, num_after'],
      [{ message_ids: json([1]), use_first_unread_anchor: json(false) }, 'BAD_REQUEST', 'Unsupported parameter combination: message_ids, use_first_unread_anchor'],
      [{ message_ids: raw('[1, "x"]') }, 'BAD_REQUEST', 'message_ids[1] is not an integer'],
      [{ message_ids: raw('{"a": 1}') }, 'BAD_REQUEST', 'message_ids is not a list'],
      [{ anchor: raw('newest'), num_before: json(1), num_after: json(0), apply_markdown: raw('yes') }, 'BAD_REQUEST', 'apply_markdown is not a boolean'],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(hamlet.request('x', 'GET', 'messages', params));
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
    const body = await conn.request<Body>('x', 'GET', 'messages', { anchor: raw('newest'), num_before: json(100), num_after: json(0), narrow: json(narrow), ...extra });
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
    const body = await hamlet.request<Body>('x', 'GET', 'messages', {
      anchor: raw('newest'),
      num_before: json(10),
      num_after: json(0),
      narrow: json([{ operator: 'search', operand: 'deploy' }]),
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
      const e = await caughtApiError(othello.request('x', 'GET', 'messages', { anchor: raw('newest'), num_before: json(1), num_after: json(0), narrow: json(narrow) }));
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
      const e = await caughtApiError(othello.request('x', 'GET', 'messages', { anchor: raw('newest'), num_before: json(1), num_after: json(0), narrow: json(narrow) }));
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
    const e = await caughtApiError(t.as('othello').request('x', 'GET', 'messages/abc'));
    expect(e.message).toBe('message_id is not an integer');
  });
});

describe('GET /messages message_ids by feature level', () => {
  it('reads message_ids from feature level 300', async () => {
    const t = setupEmulator({ settings: { featureLevel: 300 } });
    const ids = [...t.store.messages.values()].filter((m) => t.store.receivedMessage(t.user('hamlet').user_id, m)).map((m) => m.id).slice(0, 2);
    const body = await t.as('hamlet').request<Body>('get-messages', 'GET', 'messages', { message_ids: json(ids) });
    expect(body.messages.map((m: Body) => m.id)).toEqual(ids);
    expect(body.ignored_parameters_unsupported).toBeUndefined();
  });

  it('ignores message_ids below feature level 300, as an older server does', async () => {
    const t = setupEmulator({ settings: { featureLevel: 299 } });
    const hamlet = t.as('hamlet');
    // Without the window parameters the request is incomplete on such a server.
    const missing = await caughtApiError(hamlet.request('get-messages', 'GET', 'messages', { message_ids: json([1]) }));
    expect(missing.message).toBe('Missing \'num_before\' argument');
    const body = await hamlet.request<Body>('get-messages', 'GET', 'messages', { message_ids: json([1]), anchor: raw('newest'), num_before: json(1), num_after: json(0) });
    expect(body.ignored_parameters_unsupported).toEqual(['message_ids']);
    expect(body.messages).toHaveLength(1);
  });
});
