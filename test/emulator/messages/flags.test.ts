/**
 * The emulator's `POST /messages/flags`, `POST /messages/flags/narrow` and the `unread_msgs` /
 * `starred_messages` register state, driven through the REST client (the contract with the
 * gateway). Success bodies are checked against Zulip's OpenAPI description.
 */
import { describe, expect, it } from 'vitest';
import { addUser, subscribe } from '../../../src/emulator/factory.js';
import { sendMessage, updateMessageFlags, updateMessageFlagsForNarrow } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';
import { pollEvents, registerQueue, type Body } from './shared.js';
import { json, raw, type WireParams } from '../../../src/zulip/params.js';

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
    const cases: [WireParams, string][] = [
      [{ messages: json([1]), op: raw('add'), flag: raw('shiny') }, "Invalid flag: 'shiny'"],
      [{ messages: json([1]), op: raw('add'), flag: raw('mentioned') }, "Flag not editable: 'mentioned'"],
      [{ messages: json([1]), op: raw('add'), flag: raw('historical') }, "Flag not editable: 'historical'"],
      [{ messages: json([1]), op: raw('toggle'), flag: raw('read') }, "Invalid message flag operation: 'toggle'"],
      [{ messages: json([t.messageWith('Hi @**Desdemona**').id, 424242]), op: raw('add'), flag: raw('starred') }, 'Invalid message(s)'],
      [{ messages: raw('[1, "x"]'), op: raw('add'), flag: raw('starred') }, 'messages[1] is not an integer'],
    ];
    for (const [params, msg] of cases) {
      const e = await caughtApiError(hamlet.request('x', 'POST', 'messages/flags', params));
      expect([e.code, e.message], JSON.stringify(params)).toEqual(['BAD_REQUEST', msg]);
    }
    const e = await caughtApiError(t.as('othello').request('x', 'POST', 'messages/flags', { messages: json([dmOthers.id]), op: raw('add'), flag: raw('starred') }));
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
    const e = await caughtApiError(hamlet.request('x', 'POST', 'messages/flags/narrow', { anchor: json(general[2]), include_anchor: json(false), num_before: json(1), num_after: json(1), narrow: json([]), op: raw('add'), flag: raw('starred') }));
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
    const cases: [WireParams, string, string][] = [
      [{ num_before: json(1), num_after: json(0), narrow: json([]), op: raw('add'), flag: raw('read') }, 'REQUEST_VARIABLE_MISSING', "Missing 'anchor' argument"],
      [{ anchor: raw('newest'), num_after: json(0), narrow: json([]), op: raw('add'), flag: raw('read') }, 'REQUEST_VARIABLE_MISSING', "Missing 'num_before' argument"],
      [{ anchor: raw('newest'), num_before: json(1), num_after: json(0), narrow: json([]), op: raw('add'), flag: raw('wildcard_mentioned') }, 'BAD_REQUEST', "Flag not editable: 'wildcard_mentioned'"],
      [{ anchor: raw('newest'), num_before: json(1), num_after: json(0), narrow: json([]), flag: raw('read') }, 'REQUEST_VARIABLE_MISSING', "Missing 'op' argument"],
      [{ anchor: raw('nope'), num_before: json(1), num_after: json(0), narrow: json([]), op: raw('add'), flag: raw('read') }, 'BAD_REQUEST', 'Invalid anchor'],
      [{ anchor: raw('newest'), num_before: json(1), num_after: json(0), narrow: json([['stream', 'engineering']]), op: raw('add'), flag: raw('read') }, 'BAD_NARROW', 'Invalid narrow operator: unknown channel engineering'],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(t.as('othello').request('x', 'POST', 'messages/flags/narrow', params));
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
    const body = await hamlet.request<Body>('register', 'POST', 'register', { fetch_event_types: json(['message', 'update_message_flags', 'starred_messages']) });
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
    const without = await hamlet.request<Body>('register', 'POST', 'register', { fetch_event_types: json(['message']) });
    expect(without.unread_msgs).toBeUndefined();
    expect(without.starred_messages).toBeUndefined();
  });

  it('lists group direct messages under huddles and shows the empty topic by its display name', async () => {
    const t = setupEmulator();
    const cordelia = t.as('cordelia');
    await sendMessage(t.as('othello'), { type: 'channel', to: 'general', topic: '', content: 'in general chat' });
    const body = await cordelia.request<Body>('register', 'POST', 'register', { fetch_event_types: json(['message', 'update_message_flags']) });
    const ids = ['iago', 'hamlet', 'cordelia'].map((l) => t.user(l).user_id).sort((a, b) => a - b);
    expect(body.unread_msgs.huddles).toEqual([{ user_ids_string: ids.join(','), unread_message_ids: [t.messageWith('Planning the play').id] }]);
    expect(body.unread_msgs.streams.map((s: Body) => s.topic)).toContain('general chat');
  });
});
