/**
 * The emulator's deprecated mark-as-read endpoints (`POST /mark_all_as_read`,
 * `/mark_stream_as_read`, `/mark_topic_as_read`), driven through the REST client: what they mark,
 * the `update_message_flags` events, and Zulip's errors.
 */
import { describe, expect, it } from 'vitest';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, sendMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';
import { pollEvents, registerQueue } from './shared.js';

async function setup() {
  const t = setupEmulator();
  const hamlet = t.as('hamlet');
  const iago = t.as('iago');
  const general = t.channelId('general');
  const send = async (topic: string) => (await sendMessage(iago, { type: 'stream', to: general, topic, content: `about ${topic}` })).id;
  const lunch = [await send('lunch'), await send('Lunch')];
  const dinner = await send('dinner');
  const uid = t.userId('hamlet');
  const unread = () => [...(t.store.flags.get(uid)?.get('unread') ?? [])].sort((a, b) => a - b);
  return { ...t, hamlet, general, lunch, dinner, unread };
}

const readEvent = (messages: number[], all = false) => ({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all });

describe('mark as read', () => {
  it('marks a topic (case-insensitively), then its channel, then everything, with an event each', async () => {
    const { hamlet, general, lunch, dinner, unread } = await setup();
    const before = unread();
    expect(before).toEqual(expect.arrayContaining([...lunch, dinner]));
    const q = await registerQueue(hamlet);

    expect(await markTopicAsRead(hamlet, { streamId: general, topicName: 'LUNCH' })).toMatchObject({ result: 'success' });
    expect(unread()).toEqual(before.filter((id) => !lunch.includes(id)));
    await markStreamAsRead(hamlet, { streamId: general });
    expect(unread()).not.toContain(dinner);
    const body = await markAllAsRead(hamlet);
    expectValidResponse('post', '/mark_all_as_read', body);
    expect(body.complete).toBe(true);
    expect(unread()).toEqual([]);

    const events = (await pollEvents(hamlet, q)).map(({ id: _id, ...e }) => e);
    expect(events[0]).toEqual(readEvent(lunch));
    expect(events[1]).toMatchObject({ ...readEvent([]), messages: expect.arrayContaining([dinner]) });
    expect(events[2]).toEqual(readEvent([], true));
    expect(events).toHaveLength(3);
  });

  it('sends the event even when a channel had nothing unread', async () => {
    const { hamlet, general } = await setup();
    await markStreamAsRead(hamlet, { streamId: general });
    const q = await registerQueue(hamlet);
    await markStreamAsRead(hamlet, { streamId: general });
    expect((await pollEvents(hamlet, q)).map(({ id: _id, ...e }) => e)).toEqual([readEvent([])]);
  });

  it('refuses an unknown channel and a topic the user has no message in, marking nothing', async () => {
    const { hamlet, general, unread } = await setup();
    const before = unread();
    for (const attempt of [markStreamAsRead(hamlet, { streamId: 9999 }), markTopicAsRead(hamlet, { streamId: 9999, topicName: 'lunch' })]) {
      const e = await caughtApiError(attempt);
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, 'Invalid channel ID']);
    }
    const e = await caughtApiError(markTopicAsRead(hamlet, { streamId: general, topicName: 'nope' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', "No such topic 'nope'"]);
    expect(unread()).toEqual(before);
  });
});
