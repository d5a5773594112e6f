/**
 * The emulator's scheduled-message endpoints, driven through the REST bindings in
 * src/zulip/routes/scheduled-messages.ts: success paths (validated against the OpenAPI
 * description), every rule of the edit endpoint, each documented error, the events and the
 * register state.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import type { ScheduledMessage } from '../../src/zulip/model/scheduled-messages.js';
import {
  createScheduledMessage,
  deleteScheduledMessage,
  getScheduledMessages,
  updateScheduledMessage,
  type CreateScheduledMessageOptions,
} from '../../src/zulip/routes/scheduled-messages.js';
import { caughtApiError, eventsOf, expectValidResponse, registerEventQueue, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

const START = Date.UTC(2026, 0, 1);
const NOW = START / 1000;
const LATER = NOW + 3600;

function setup(settings: Partial<EmulatorSettings> = {}) {
  const t = setupEmulator({ clock: new ManualClock(START), settings });
  return { ...t, hamlet: t.as('hamlet') };
}

const registerQueue = (conn: ZulipConnection, eventTypes = ['scheduled_messages']) => registerEventQueue(conn, eventTypes);

async function scheduled(conn: ZulipConnection, id: number): Promise<ScheduledMessage | undefined> {
  return (await getScheduledMessages(conn)).scheduled_messages.find((m) => m.scheduled_message_id === id);
}

describe('GET /scheduled_messages', () => {
  it('lists the seeded pending and failed messages, soonest first, in the documented shape', async () => {
    const { hamlet, channelId, userId } = setup();
    const body = await getScheduledMessages(hamlet);
    expectValidResponse('GET', '/scheduled_messages', body);
    expect(body.scheduled_messages).toEqual([
      {
        scheduled_message_id: 2, type: 'private', to: [userId('iago')], content: 'Reminder: review',
        rendered_content: '<p>Reminder: review</p>', scheduled_delivery_timestamp: NOW - 3600, failed: true,
      },
      {
        scheduled_message_id: 1, type: 'stream', to: channelId('general'), topic: 'greetings', content: 'Good morning, everyone!',
        rendered_content: '<p>Good morning, everyone!</p>', scheduled_delivery_timestamp: NOW + 86400, failed: false,
      },
    ]);
    expect(body.scheduled_messages[0]).not.toHaveProperty('topic');
  });

  it("shows each user only their own messages", async () => {
    const { as } = setup();
    expect((await getScheduledMessages(as('iago'))).scheduled_messages).toEqual([]);
  });
});

describe('POST /scheduled_messages', () => {
  it('schedules a channel message under any channel type name, stored as "stream"', async () => {
    const { hamlet, channelId } = setup();
    for (const [i, type] of (['channel', 'stream'] as const).entries()) {
      const body = await createScheduledMessage(hamlet, {
        type, to: channelId('design'), topic: '  palette  ', content: 'New **colors**\n', scheduledDeliveryTimestamp: LATER + i,
      });
      expectValidResponse('POST', '/scheduled_messages', body);
      expect(body.scheduled_message_id).toBe(3 + i);
      expect(await scheduled(hamlet, body.scheduled_message_id)).toEqual({
        scheduled_message_id: 3 + i, type: 'stream', to: channelId('design'), topic: 'palette', content: 'New **colors**',
        rendered_content: '<p>New <strong>colors</strong></p>', scheduled_delivery_timestamp: LATER + i, failed: false,
      });
    }
    expectValidResponse('GET', '/scheduled_messages', await getScheduledMessages(hamlet));
  });

  it('schedules a direct message under either direct type name, stored as "private" without a topic', async () => {
    const { hamlet, userId } = setup();
    const [iago, cordelia] = [userId('iago'), userId('cordelia')];
    for (const type of ['direct', 'private'] as const) {
      const { scheduled_message_id: id } = await createScheduledMessage(hamlet, {
        type, to: [cordelia, userId('hamlet'), iago], topic: 'ignored', content: 'Rehearsal at 5', scheduledDeliveryTimestamp: LATER,
      });
      const message = await scheduled(hamlet, id);
      expect(message).toEqual({
        scheduled_message_id: id, type: 'private', to: [iago, cordelia].sort((a, b) => a - b), content: 'Rehearsal at 5',
        rendered_content: '<p>Rehearsal at 5</p>', scheduled_delivery_timestamp: LATER, failed: false,
      });
    }
    const toSelf = await createScheduledMessage(hamlet, { type: 'direct', to: [userId('hamlet')], content: 'me', scheduledDeliveryTimestamp: LATER });
    expect((await scheduled(hamlet, toSelf.scheduled_message_id))!.to).toEqual([userId('hamlet')]);
  });

  it('truncates long topics and contents as Zulip does', async () => {
    const { hamlet, channelId } = setup({ maxTopicLength: 10, maxMessageLength: 30 });
    const { scheduled_message_id: id } = await createScheduledMessage(hamlet, {
      type: 'channel', to: channelId('general'), topic: 'a topic that is too long', content: 'y'.repeat(31), scheduledDeliveryTimestamp: LATER,
    });
    expect(await scheduled(hamlet, id)).toMatchObject({ topic: 'a topic...', content: `${'y'.repeat(10)}\n[message truncated]` });
  });

  it('answers STREAM_DOES_NOT_EXIST with stream_id for an unknown channel', async () => {
    const { hamlet } = setup();
    const e = await caughtApiError(createScheduledMessage(hamlet, { type: 'channel', to: 9999, topic: 't', content: 'c', scheduledDeliveryTimestamp: LATER }));
    expect([e.code, e.httpStatus, e.message, e.data.stream_id]).toEqual(['STREAM_DOES_NOT_EXIST', 400, "Channel with ID '9999' does not exist", 9999]);
    expect(validateResponse({ method: 'POST', path: '/scheduled_messages' }, 400, { result: 'error', msg: e.message, code: e.code, ...e.data }).errors).toBe('');
  });

  type Ids = { channel: (name: string) => number; user: (login: string) => number; deactivated: number };
  const valid = (x: Ids): CreateScheduledMessageOptions => ({ type: 'channel', to: x.channel('general'), topic: 'plans', content: 'Hello', scheduledDeliveryTimestamp: LATER });
  const cases: [string, (x: Ids) => CreateScheduledMessageOptions, string][] = [
    ['an unknown user', (x) => ({ ...valid(x), type: 'direct', to: [x.user('iago'), 99999] }), 'Invalid user ID 99999'],
    ['a deactivated user', (x) => ({ ...valid(x), type: 'direct', to: [x.deactivated] }), "'lear@zulip.example.com' is no longer using Zulip."],
    ['no recipients', (x) => ({ ...valid(x), type: 'direct', to: [] }), 'Message must have recipients'],
    ['a delivery time in the past', (x) => ({ ...valid(x), scheduledDeliveryTimestamp: NOW - 1 }), 'Scheduled delivery time must be in the future.'],
    ['a delivery time of now', (x) => ({ ...valid(x), scheduledDeliveryTimestamp: NOW }), 'Scheduled delivery time must be in the future.'],
    ['an unknown type', (x) => ({ ...valid(x), type: 'group' as 'direct' }), 'Invalid type'],
    ['an inherited property name as the type', (x) => ({ ...valid(x), type: 'constructor' as 'direct' }), 'Invalid type'],
    ['a channel message without a topic', (x) => ({ ...valid(x), topic: undefined }), 'Missing topic'],
    ['an empty topic', (x) => ({ ...valid(x), topic: '   ' }), "Topic can't be empty!"],
    ['the "(no topic)" topic', (x) => ({ ...valid(x), topic: '(no topic)' }), "Topic can't be empty!"],
    ['the empty-topic display name', (x) => ({ ...valid(x), topic: 'general chat' }), "Topic can't be empty!"],
    ['a null byte in the topic', (x) => ({ ...valid(x), topic: 'a\u0000b' }), 'Invalid character in topic, at position 2!'],
    ['empty content', (x) => ({ ...valid(x), content: ' \n ' }), 'Message must not be empty'],
    ['a null byte in the content', (x) => ({ ...valid(x), content: 'a\u0000b' }), 'Message must not contain null bytes'],
    ['two channels', (x) => ({ ...valid(x), to: [x.channel('general'), x.channel('design')] }), 'Invalid data type for channel ID'],
    ['a channel ID in a list', (x) => ({ ...valid(x), to: [x.channel('general')] }), 'Invalid data type for channel ID'],
    ['a bare user ID for a direct message', (x) => ({ ...valid(x), type: 'direct', to: x.user('iago') }), 'Invalid data type for recipients'],
    ['recipients that are not IDs', (x) => ({ ...valid(x), type: 'direct', to: ['iago'] as unknown as number[] }), 'Recipient list may only contain user IDs'],
    ['a channel the user may not post in', (x) => ({ ...valid(x), to: x.channel('announce') }), 'You do not have permission to post in this channel.'],
    ['a private channel the user is not in', (x) => ({ ...valid(x), to: x.channel('moderation requests') }), "Not authorized to send to channel 'moderation requests'"],
    ['an archived channel', (x) => ({ ...valid(x), to: x.channel('legacy') }), "Not authorized to send to channel 'legacy'"],
  ];

  it.each(cases)('refuses %s with BAD_REQUEST, storing nothing and sending no event', async (_name, build, msg) => {
    const { hamlet, store, channelId, userId } = setup();
    const deactivated = [...store.users.values()].find((u) => !u.is_active)!.user_id;
    const queue = await registerQueue(hamlet);
    const e = await caughtApiError(createScheduledMessage(hamlet, build({ channel: channelId, user: userId, deactivated })));
    expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, msg]);
    expect(store.scheduledMessages.size).toBe(2);
    expect(await eventsOf(hamlet, queue)).toEqual([]);
  });

  it('requires type, to, content and scheduled_delivery_timestamp', async () => {
    const { hamlet, channelId } = setup();
    const full = { type: raw('stream'), to: json(channelId('general')), topic: raw('t'), content: raw('c'), scheduled_delivery_timestamp: json(LATER) };
    for (const name of ['type', 'to', 'content', 'scheduled_delivery_timestamp'] as const) {
      const { [name]: _omitted, ...params } = full;
      const e = await caughtApiError(hamlet.request('create-scheduled-message', 'POST', 'scheduled_messages', params));
      expect([e.code, e.message]).toEqual(['REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`]);
    }
    const e = await caughtApiError(hamlet.request('create-scheduled-message', 'POST', 'scheduled_messages', { ...full, scheduled_delivery_timestamp: raw('soon') }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'scheduled_delivery_timestamp is not an integer']);
  });

  it('lets a member post in a private channel they are subscribed to', async () => {
    const { hamlet, channelId } = setup();
    const { scheduled_message_id: id } = await createScheduledMessage(hamlet, {
      type: 'stream', to: channelId('engineering'), topic: 'release', content: 'Ship it', scheduledDeliveryTimestamp: LATER,
    });
    expect((await scheduled(hamlet, id))!.to).toBe(channelId('engineering'));
  });
});

describe('PATCH /scheduled_messages/{scheduled_message_id}', () => {
  it('edits content, topic and time of a channel message', async () => {
    const { hamlet, channelId } = setup();
    const body = await updateScheduledMessage(hamlet, { scheduledMessageId: 1, content: 'Good *evening*', topic: 'evening', scheduledDeliveryTimestamp: LATER });
    expectValidResponse('PATCH', '/scheduled_messages/1', body);
    expect(await scheduled(hamlet, 1)).toEqual({
      scheduled_message_id: 1, type: 'stream', to: channelId('general'), topic: 'evening', content: 'Good *evening*',
      rendered_content: '<p>Good <em>evening</em></p>', scheduled_delivery_timestamp: LATER, failed: false,
    });
    await updateScheduledMessage(hamlet, { scheduledMessageId: 1, topic: 'night' });
    expect(await scheduled(hamlet, 1)).toMatchObject({ topic: 'night', content: 'Good *evening*' });
    await updateScheduledMessage(hamlet, { scheduledMessageId: 1, to: channelId('design') });
    expect(await scheduled(hamlet, 1)).toMatchObject({ type: 'stream', to: channelId('design'), topic: 'night' });
  });

  it('changes a channel message into a direct one (the topic goes) and back (a topic is required)', async () => {
    const { hamlet, userId, channelId } = setup();
    const queue = await registerQueue(hamlet);
    await updateScheduledMessage(hamlet, { scheduledMessageId: 1, type: 'direct', to: [userId('othello')] });
    const direct = await scheduled(hamlet, 1);
    expect(direct).toEqual({
      scheduled_message_id: 1, type: 'private', to: [userId('othello')], content: 'Good morning, everyone!',
      rendered_content: '<p>Good morning, everyone!</p>', scheduled_delivery_timestamp: NOW + 86400, failed: false,
    });
    // A topic sent for a direct message is ignored (and still counts as an edit).
    await updateScheduledMessage(hamlet, { scheduledMessageId: 1, topic: 'Direct message topic' });
    expect(await scheduled(hamlet, 1)).toEqual(direct);

    const e = await caughtApiError(updateScheduledMessage(hamlet, { scheduledMessageId: 1, type: 'channel', to: channelId('general') }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Topic required when updating scheduled message type to channel.']);
    await updateScheduledMessage(hamlet, { scheduledMessageId: 1, type: 'channel', to: channelId('general'), topic: 'back' });
    expect(await scheduled(hamlet, 1)).toMatchObject({ type: 'stream', to: channelId('general'), topic: 'back' });

    const events = await eventsOf(hamlet, queue);
    expect(events.map((ev) => [ev.op, (ev.scheduled_message as ScheduledMessage).type])).toEqual([
      ['update', 'private'],
      ['update', 'private'],
      ['update', 'stream'],
    ]);
  });

  it('needs a new delivery time for a failed message, and editing makes it pending', async () => {
    const { hamlet } = setup();
    const e = await caughtApiError(updateScheduledMessage(hamlet, { scheduledMessageId: 2, content: 'Try again' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Scheduled delivery time must be in the future.']);
    expect(await scheduled(hamlet, 2)).toMatchObject({ content: 'Reminder: review', failed: true });

    await updateScheduledMessage(hamlet, { scheduledMessageId: 2, scheduledDeliveryTimestamp: LATER });
    expect(await scheduled(hamlet, 2)).toMatchObject({ content: 'Reminder: review', failed: false, scheduled_delivery_timestamp: LATER });
  });

  const errors: [string, (x: { channel: (n: string) => number; user: (l: string) => number }) => WireParams, string][] = [
    ['nothing to change', () => ({}), 'Nothing to change'],
    ['a type without recipients', () => ({ type: raw('direct') }), 'Recipient required when updating type of scheduled message.'],
    ['a channel type without a topic', (x) => ({ type: raw('stream'), to: json(x.channel('design')) }), 'Topic required when updating scheduled message type to channel.'],
    ['a delivery time in the past', () => ({ scheduled_delivery_timestamp: json(NOW - 60) }), 'Scheduled delivery time must be in the future.'],
    ['an unknown type', (x) => ({ type: raw('bogus'), to: json(x.channel('design')) }), 'Invalid type'],
    ['an unknown user', (x) => ({ type: raw('direct'), to: json([x.user('iago'), 4242]) }), 'Invalid user ID 4242'],
    ['an empty topic', () => ({ topic: raw('') }), "Topic can't be empty!"],
    ['empty content', () => ({ content: raw('   ') }), 'Message must not be empty'],
    ['a channel the user may not post in', (x) => ({ to: json(x.channel('announce')) }), 'You do not have permission to post in this channel.'],
  ];

  it.each(errors)('refuses %s with BAD_REQUEST and changes nothing', async (_name, build, msg) => {
    const { hamlet, channelId, userId } = setup();
    const queue = await registerQueue(hamlet);
    const before = await scheduled(hamlet, 1);
    const e = await caughtApiError(hamlet.request('update-scheduled-message', 'PATCH', 'scheduled_messages/1', build({ channel: channelId, user: userId })));
    expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, msg]);
    expect(await scheduled(hamlet, 1)).toEqual(before);
    expect(await eventsOf(hamlet, queue)).toEqual([]);
  });

  it('answers STREAM_DOES_NOT_EXIST with stream_id for an unknown channel, with or without a type change', async () => {
    const { hamlet } = setup();
    for (const options of [{ to: 777 }, { type: 'channel' as const, to: 777, topic: 'x' }]) {
      const e = await caughtApiError(updateScheduledMessage(hamlet, { scheduledMessageId: 1, ...options }));
      expect([e.code, e.httpStatus, e.data.stream_id]).toEqual(['STREAM_DOES_NOT_EXIST', 400, 777]);
    }
    expect((await scheduled(hamlet, 1))!.to).toBe(1);
  });

  it('answers 404 BAD_REQUEST "Scheduled message does not exist" for unknown and foreign messages', async () => {
    const { hamlet, as } = setup();
    for (const [conn, id] of [[hamlet, 99], [as('iago'), 1]] as const) {
      const e = await caughtApiError(updateScheduledMessage(conn, { scheduledMessageId: id, content: 'x' }));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 404, 'Scheduled message does not exist']);
    }
    expect((await scheduled(hamlet, 1))!.content).toBe('Good morning, everyone!');
  });
});

describe('DELETE /scheduled_messages/{scheduled_message_id}', () => {
  it('deletes the message', async () => {
    const { hamlet } = setup();
    const body = await deleteScheduledMessage(hamlet, { scheduledMessageId: 2 });
    expectValidResponse('DELETE', '/scheduled_messages/2', body);
    expect((await getScheduledMessages(hamlet)).scheduled_messages.map((m) => m.scheduled_message_id)).toEqual([1]);
  });

  it('answers 404 BAD_REQUEST "Scheduled message does not exist" for unknown and foreign messages', async () => {
    const { hamlet, as } = setup();
    for (const [conn, id] of [[hamlet, 3], [as('iago'), 1]] as const) {
      const e = await caughtApiError(deleteScheduledMessage(conn, { scheduledMessageId: id }));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 404, 'Scheduled message does not exist']);
    }
    expect((await getScheduledMessages(hamlet)).scheduled_messages).toHaveLength(2);
  });
});

describe('events and register state', () => {
  it('sends scheduled_messages add, update and remove events to the sender only', async () => {
    const { hamlet, as, channelId } = setup();
    const queue = await registerQueue(hamlet);
    const iago = as('iago');
    const iagoQueue = await registerQueue(iago);
    const otherTypes = await registerQueue(hamlet, ['drafts']);

    const { scheduled_message_id: id } = await createScheduledMessage(hamlet, {
      type: 'channel', to: channelId('design'), topic: 'colors', content: 'Blue', scheduledDeliveryTimestamp: LATER,
    });
    await updateScheduledMessage(hamlet, { scheduledMessageId: id, content: 'Green' });
    await deleteScheduledMessage(hamlet, { scheduledMessageId: id });

    const message = {
      scheduled_message_id: id, type: 'stream', to: channelId('design'), topic: 'colors', content: 'Blue',
      rendered_content: '<p>Blue</p>', scheduled_delivery_timestamp: LATER, failed: false,
    };
    expect(await eventsOf(hamlet, queue)).toEqual([
      { type: 'scheduled_messages', op: 'add', scheduled_messages: [message] },
      { type: 'scheduled_messages', op: 'update', scheduled_message: { ...message, content: 'Green', rendered_content: '<p>Green</p>' } },
      { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id },
    ]);
    const body = await hamlet.request('get-events', 'GET', 'events', { queue_id: raw(queue), last_event_id: json(-1), dont_block: json(true) });
    expectValidResponse('GET', '/events', body);
    expect(await eventsOf(iago, iagoQueue)).toEqual([]);
    expect(await eventsOf(hamlet, otherTypes)).toEqual([]);
  });

  it('returns the scheduled messages in the register response only when asked for', async () => {
    const { hamlet } = setup();
    const state = await hamlet.request<Record<string, unknown>>('register-queue', 'POST', 'register', { fetch_event_types: json(['scheduled_messages']) });
    expect(state.scheduled_messages).toEqual((await getScheduledMessages(hamlet)).scheduled_messages);
    const without = await hamlet.request<Record<string, unknown>>('register-queue', 'POST', 'register', { fetch_event_types: json(['drafts']) });
    expect(without).not.toHaveProperty('scheduled_messages');
  });
});
