/**
 * Typing notifications in the emulator, driven through the REST client: who receives which `typing`
 * event for direct and channel typing, topic normalisation, and every documented error.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RawEvent } from '../../src/zulip/model/events.js';
import { getEvents, registerQueue } from '../../src/zulip/routes/events.js';
import { setTypingStatus, setTypingStatusForMessageEdit } from '../../src/zulip/routes/typing.js';
import { sendMessage } from '../../src/zulip/routes/messages.js';
import { ManualClock } from '../../src/emulator/clock.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

/** One emulator for the file (set up while collecting, so closed after the file's tests). */
const { store, as, user, channel } = setupEmulator();
const person = (login: string) => ({ user_id: user(login).user_id, email: user(login).email });

const LOGINS = ['desdemona', 'iago', 'shiva', 'hamlet', 'cordelia', 'othello', 'polonius'];
/** One queue per demo user, accepting typing events (with channel typing unless told otherwise). */
let queues: Map<string, { id: string; last: number }>;

beforeEach(async () => {
  for (const u of store.users.values()) {
    u.settings.receives_typing_notifications = true;
    delete u.settings.send_private_typing_notifications;
    delete u.settings.send_stream_typing_notifications;
  }
  queues = new Map();
  for (const login of LOGINS) {
    const { queue_id } = await registerQueue(as(login), {
      eventTypes: ['typing'],
      clientCapabilities: { notification_settings_null: true, stream_typing_notifications: login !== 'shiva' },
    });
    queues.set(login, { id: queue_id!, last: -1 });
  }
});

/** Events each user received since the last call. */
async function received(): Promise<Record<string, RawEvent[]>> {
  const result: Record<string, RawEvent[]> = {};
  for (const [login, q] of queues) {
    const { events } = await getEvents(as(login), { queueId: q.id, lastEventId: q.last, dontBlock: true });
    if (events.length > 0) q.last = events.at(-1)!.id;
    result[login] = events.map(({ id: _id, ...rest }) => rest as RawEvent);
  }
  return result;
}

function only(got: Record<string, RawEvent[]>): Record<string, number> {
  return Object.fromEntries(Object.entries(got).filter(([, e]) => e.length > 0).map(([k, e]) => [k, e.length]));
}

describe('direct typing', () => {
  it('notifies every participant, the sender included, with the recipients list', async () => {
    const body = await setTypingStatus(as('hamlet'), { op: 'start', to: [user('iago').user_id, user('cordelia').user_id] });
    expect(validateResponse({ method: 'post', path: '/typing' }, 200, body)).toEqual({ valid: true, errors: '' });
    const got = await received();
    const event = {
      type: 'typing',
      op: 'start',
      message_type: 'direct',
      sender: person('hamlet'),
      recipients: [person('iago'), person('cordelia'), person('hamlet')],
    };
    expect(got.hamlet).toEqual([event]);
    expect(got.iago).toEqual([event]);
    expect(got.cordelia).toEqual([event]);
    expect(only(got)).toEqual({ hamlet: 1, iago: 1, cordelia: 1 });
  });

  it('is the default type, takes a one-element list, and sends stop too', async () => {
    await setTypingStatus(as('iago'), { op: 'stop', type: 'direct', to: [user('hamlet').user_id] });
    const got = await received();
    expect(got.hamlet).toEqual([
      { type: 'typing', op: 'stop', message_type: 'direct', sender: person('iago'), recipients: [person('hamlet'), person('iago')] },
    ]);
    expect(only(got)).toEqual({ hamlet: 1, iago: 1 });
  });

  it('skips users who turned receives_typing_notifications off', async () => {
    user('iago').settings.receives_typing_notifications = false;
    await setTypingStatus(as('hamlet'), { op: 'start', to: [user('iago').user_id] });
    expect(only(await received())).toEqual({ hamlet: 1 });
  });

  it('accepts and ignores stream_id and topic for direct typing (not reported as unsupported)', async () => {
    const body = await as('hamlet').request<Record<string, unknown>>('set-typing-status', 'POST', 'typing', {
      op: raw('start'),
      to: json([user('iago').user_id]),
      stream_id: json(channel('general').stream_id),
      topic: raw('x'),
    });
    expect(body.ignored_parameters_unsupported).toBeUndefined();
    expect(only(await received())).toEqual({ hamlet: 1, iago: 1 });
  });

  it('rejects a missing, empty or malformed recipient list and unknown users, sending nothing', async () => {
    const cases: [WireParams, string, string][] = [
      [{ op: raw('start') }, 'BAD_REQUEST', "Missing 'to' argument"],
      [{ op: raw('start'), to: json([]) }, 'BAD_REQUEST', "Empty 'to' list"],
      [{ op: raw('start'), to: raw('hamlet') }, 'BAD_REQUEST', 'Argument "to" is not valid JSON.'],
      [{ op: raw('start'), to: json({ a: 1 }) }, 'BAD_REQUEST', 'to is not a list'],
      [{ op: raw('start'), to: json([user('iago').user_id, 9999]) }, 'BAD_REQUEST', 'Invalid user ID 9999'],
      [{ to: json([user('iago').user_id]) }, 'REQUEST_VARIABLE_MISSING', "Missing 'op' argument"],
      [{ op: raw('typing'), to: json([user('iago').user_id]) }, 'BAD_REQUEST', 'Invalid op'],
      [{ op: raw('start'), type: raw('private'), to: json([user('iago').user_id]) }, 'BAD_REQUEST', 'Invalid type'],
    ];
    for (const [params, code, message] of cases) {
      const e = await caughtApiError(as('hamlet').request('set-typing-status', 'POST', 'typing', params));
      expect([e.code, e.httpStatus, e.message]).toEqual([code, 400, message]);
    }
    expect(only(await received())).toEqual({});
  });

  it('refuses when the sender turned direct typing notifications off', async () => {
    user('hamlet').settings.send_private_typing_notifications = false;
    const e = await caughtApiError(setTypingStatus(as('hamlet'), { op: 'start', to: [user('iago').user_id] }));
    expect(e.message).toBe('User has disabled typing notifications for direct messages');
  });
});

describe('channel typing', () => {
  it('notifies the other subscribers whose queues support channel typing', async () => {
    const engineering = channel('engineering');
    await setTypingStatus(as('iago'), { op: 'start', type: 'channel', streamId: engineering.stream_id, topic: 'release plan' });
    const got = await received();
    const event = { type: 'typing', op: 'start', message_type: 'stream', sender: person('iago'), stream_id: engineering.stream_id, topic: 'release plan' };
    // Subscribers: desdemona, iago (the sender), shiva (no capability), hamlet.
    expect(got.desdemona).toEqual([event]);
    expect(got.hamlet).toEqual([event]);
    expect(only(got)).toEqual({ desdemona: 1, hamlet: 1 });
  });

  it('accepts type stream as well and reads "(no topic)" and the display name as the empty topic', async () => {
    const general = channel('general');
    for (const topic of ['(no topic)', store.realm.empty_topic_display_name, '']) {
      await setTypingStatus(as('hamlet'), { op: 'stop', type: 'stream', streamId: general.stream_id, topic });
      const got = await received();
      expect(got.iago).toEqual([{ type: 'typing', op: 'stop', message_type: 'stream', sender: person('hamlet'), stream_id: general.stream_id, topic: '' }]);
      expect(got.hamlet).toEqual([]);
    }
  });

  it('skips subscribers who turned receives_typing_notifications off', async () => {
    user('desdemona').settings.receives_typing_notifications = false;
    await setTypingStatus(as('iago'), { op: 'start', type: 'channel', streamId: channel('engineering').stream_id, topic: 't' });
    expect(only(await received())).toEqual({ hamlet: 1 });
  });

  it('rejects missing or invalid channel and topic parameters, sending nothing', async () => {
    const general = channel('general').stream_id;
    const long = 'x'.repeat(61);
    const cases: [string, WireParams, string, string][] = [
      ['hamlet', { op: raw('start'), type: raw('channel'), topic: raw('t') }, 'BAD_REQUEST', "Missing 'stream_id' argument"],
      ['hamlet', { op: raw('start'), type: raw('stream'), topic: raw('t') }, 'BAD_REQUEST', "Missing 'stream_id' argument"],
      ['hamlet', { op: raw('start'), type: raw('channel'), stream_id: json(general) }, 'BAD_REQUEST', 'Missing topic'],
      ['hamlet', { op: raw('start'), type: raw('channel'), stream_id: json(general), topic: raw(long) }, 'BAD_REQUEST', 'topic is too long (limit: 60 characters)'],
      ['hamlet', { op: raw('start'), type: raw('channel'), stream_id: raw('general'), topic: raw('t') }, 'BAD_REQUEST', 'stream_id is not an integer'],
      ['hamlet', { op: raw('start'), type: raw('channel'), stream_id: json(9999), topic: raw('t') }, 'BAD_REQUEST', 'Invalid channel ID'],
      // A private channel the caller is not subscribed to looks like an unknown one.
      ['othello', { op: raw('start'), type: raw('channel'), stream_id: json(channel('engineering').stream_id), topic: raw('t') }, 'BAD_REQUEST', 'Invalid channel ID'],
      ['othello', { op: raw('start'), type: raw('channel'), stream_id: json(channel('legacy').stream_id), topic: raw('t') }, 'BAD_REQUEST', "Not authorized to send to channel 'legacy'"],
      ['hamlet', { op: raw('start'), type: raw('channel'), stream_id: json(channel('announce').stream_id), topic: raw('t') }, 'BAD_REQUEST', 'You do not have permission to post in this channel.'],
    ];
    for (const [login, params, code, message] of cases) {
      const e = await caughtApiError(as(login).request('set-typing-status', 'POST', 'typing', params));
      expect([e.code, e.httpStatus, e.message]).toEqual([code, 400, message]);
    }
    expect(only(await received())).toEqual({});
  });

  it('accepts a topic of exactly max_topic_length characters', async () => {
    await setTypingStatus(as('hamlet'), { op: 'start', type: 'channel', streamId: channel('design').stream_id, topic: 'y'.repeat(60) });
    expect((await received()).cordelia).toHaveLength(1);
  });

  it('refuses when the sender turned channel typing notifications off', async () => {
    user('hamlet').settings.send_stream_typing_notifications = false;
    const e = await caughtApiError(setTypingStatus(as('hamlet'), { op: 'start', type: 'channel', streamId: channel('general').stream_id, topic: 't' }));
    expect(e.message).toBe('User has disabled typing notifications for channel messages');
  });
});

describe('POST /messages/{message_id}/typing (editing a message, feature level 351)', () => {
  function setup(featureLevel?: number) {
    const t = setupEmulator({ clock: new ManualClock(Date.UTC(2026, 0, 1)), eventTypes: ['typing_edit_message'], ...(featureLevel ? { settings: { featureLevel } } : {}) });
    const post = async (params: Parameters<typeof sendMessage>[1]) => (await sendMessage(t.as('hamlet'), params)).id;
    return { ...t, post };
  }

  it('tells the channel\u2019s subscribers with typing notifications on, the sender included', async () => {
    const t = setup();
    const general = t.channelId('general');
    const id = await t.post({ type: 'stream', to: general, topic: 'plans', content: 'draft' });
    const [hamlet, iago, cordelia] = await Promise.all(['hamlet', 'iago', 'cordelia'].map((who) => t.listen(who)));
    t.user('cordelia').settings.receives_typing_notifications = false;
    expect(await setTypingStatusForMessageEdit(t.as('hamlet'), { messageId: id, op: 'start' })).toMatchObject({ result: 'success' });
    const event = { type: 'typing_edit_message', op: 'start', sender_id: t.userId('hamlet'), message_id: id, recipient: { type: 'channel', channel_id: general, topic: 'plans' } };
    expect((await hamlet!()).map(({ id: _id, ...e }) => e)).toEqual([event]);
    expect((await iago!()).map(({ id: _id, ...e }) => e)).toEqual([event]);
    expect(await cordelia!()).toEqual([]);
  });

  it('tells a direct conversation\u2019s participants, listing them', async () => {
    const t = setup();
    const id = await t.post({ type: 'direct', to: [t.userId('iago')], content: 'draft' });
    const [iago, cordelia] = await Promise.all(['iago', 'cordelia'].map((who) => t.listen(who)));
    await setTypingStatusForMessageEdit(t.as('hamlet'), { messageId: id, op: 'stop' });
    const [event] = await iago!();
    expect(event).toMatchObject({ type: 'typing_edit_message', op: 'stop', message_id: id, recipient: { type: 'direct' } });
    expect((event!.recipient as { user_ids: number[] }).user_ids.sort()).toEqual([t.userId('hamlet'), t.userId('iago')].sort());
    expect(await cordelia!()).toEqual([]);
  });

  it('refuses whoever may not edit the message now, a bad op, and answers 404 below feature level 351', async () => {
    const t = setup();
    const id = await t.post({ type: 'stream', to: t.channelId('general'), topic: 'plans', content: 'draft' });
    const other = await caughtApiError(setTypingStatusForMessageEdit(t.as('iago'), { messageId: id, op: 'start' }));
    expect([other.code, other.message]).toEqual(['BAD_REQUEST', "You don't have permission to edit this message"]);
    const op = await caughtApiError(setTypingStatusForMessageEdit(t.as('hamlet'), { messageId: id, op: 'begin' as 'start' }));
    expect(op.message).toBe('Invalid op');
    t.user('hamlet').settings.send_stream_typing_notifications = false;
    const off = await caughtApiError(setTypingStatusForMessageEdit(t.as('hamlet'), { messageId: id, op: 'start' }));
    expect(off.message).toBe('User has disabled typing notifications for channel messages');
    delete t.user('hamlet').settings.send_stream_typing_notifications;
    // No grace period, unlike the edit itself.
    t.clock.advance((t.store.realm.settings.message_content_edit_limit_seconds! + 1) * 1000);
    const late = await caughtApiError(setTypingStatusForMessageEdit(t.as('hamlet'), { messageId: id, op: 'start' }));
    expect(late.message).toBe('The time limit for editing this message has past');
    const old = setup(350);
    const oldId = await old.post({ type: 'stream', to: old.channelId('general'), topic: 'plans', content: 'draft' });
    const missing = await caughtApiError(setTypingStatusForMessageEdit(old.as('hamlet'), { messageId: oldId, op: 'start' }));
    expect([missing.httpStatus, missing.message]).toEqual([404, 'Not Found']);
  });
});
