/**
 * Topic visibility policies in the emulator, driven through the REST client
 * (src/zulip/routes/user-topics.ts): `POST /user_topics`, the `user_topic` register state and events,
 * and the legacy `muted_topics` form.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import type { UserTopic, VisibilityPolicy } from '../../src/zulip/model/user-topics.js';
import { muteTopic, updateUserTopic } from '../../src/zulip/routes/user-topics.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

/** The demo organization; `listen` registers for every event type unless told which. */
function setup(settings: Partial<EmulatorSettings> = {}) {
  const t = setupEmulator({ settings });
  const topicsOf = (login: string) => [...(t.store.userTopics.get(t.userId(login))?.values() ?? [])];
  return { ...t, topicsOf };
}

describe('POST /user_topics', () => {
  it('sets each policy, even for a topic without messages, with a user_topic event', async () => {
    const t = setup();
    const general = t.channelId('general');
    const events = await t.listen('cordelia', ['user_topic']);
    for (const policy of [1, 2, 3] as VisibilityPolicy[]) {
      const body = await updateUserTopic(t.as('cordelia'), { streamId: general, topic: 'No such topic yet', visibilityPolicy: policy });
      expect(validateResponse({ method: 'POST', path: '/user_topics' }, 200, body).errors).toBe('');
      expect(t.topicsOf('cordelia')).toEqual([
        { stream_id: general, topic_name: 'No such topic yet', visibility_policy: policy, last_updated: expect.any(Number) },
      ]);
    }
    const received = await events();
    expect(received.map((e) => e.visibility_policy)).toEqual([1, 2, 3]);
    expect(received[0]).toEqual({
      type: 'user_topic', stream_id: general, topic_name: 'No such topic yet', visibility_policy: 1, last_updated: expect.any(Number), id: expect.any(Number),
    });
  });

  it('removes the policy with 0 and keeps the first spelling of a topic (topics are case-insensitive)', async () => {
    const t = setup();
    const design = t.channelId('design');
    await updateUserTopic(t.as('hamlet'), { streamId: design, topic: 'COLORS', visibilityPolicy: 3 });
    expect(t.topicsOf('hamlet').find((e) => e.stream_id === design)).toMatchObject({ topic_name: 'colors', visibility_policy: 3 });
    await updateUserTopic(t.as('hamlet'), { streamId: design, topic: 'colors', visibilityPolicy: 0 });
    expect(t.topicsOf('hamlet').filter((e) => e.stream_id === design)).toEqual([]);
  });

  it('reads "(no topic)" and the display name as the empty topic', async () => {
    const t = setup();
    const general = t.channelId('general');
    await updateUserTopic(t.as('othello'), { streamId: general, topic: '(no topic)', visibilityPolicy: 1 });
    expect(t.topicsOf('othello')).toEqual([expect.objectContaining({ topic_name: '', visibility_policy: 1 })]);
    await updateUserTopic(t.as('othello'), { streamId: general, topic: t.emulator.store.realm.empty_topic_display_name, visibilityPolicy: 3 });
    expect(t.topicsOf('othello')).toEqual([expect.objectContaining({ topic_name: '', visibility_policy: 3 })]);
  });

  it('refuses bad policies, long topics, NUL characters and channels the user cannot read', async () => {
    const t = setup({ maxTopicLength: 10 });
    const general = t.channelId('general');
    const cordelia = t.as('cordelia');
    const cases: [WireParams, string, string][] = [
      [{ stream_id: json(general), topic: raw('t'), visibility_policy: json(4) }, 'BAD_REQUEST', 'Invalid visibility_policy'],
      [{ stream_id: json(general), topic: raw('x'.repeat(11)), visibility_policy: json(1) }, 'BAD_REQUEST', 'topic is too long (limit: 10 characters)'],
      [{ stream_id: json(general), topic: raw('a\u0000b'), visibility_policy: json(1) }, 'BAD_REQUEST', 'topic contains NULL (0x00) characters.'],
      [{ stream_id: json(9999), topic: raw('t'), visibility_policy: json(1) }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: json(9999), topic: raw('t'), visibility_policy: json(0) }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: json(t.channelId('engineering')), topic: raw('t'), visibility_policy: json(1) }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: raw('x'), topic: raw('t'), visibility_policy: json(1) }, 'BAD_REQUEST', 'stream_id is not an integer'],
      [{ topic: raw('t'), visibility_policy: json(1) }, 'REQUEST_VARIABLE_MISSING', "Missing 'stream_id' argument"],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caughtApiError(cordelia.request('update-user-topic', 'POST', 'user_topics', params));
      expect([e.code, e.message]).toEqual([code, msg]);
    }
    expect(t.topicsOf('cordelia')).toEqual([]);
    // Removing a policy needs only an existing channel, even one no longer readable.
    await updateUserTopic(cordelia, { streamId: t.channelId('engineering'), topic: 't', visibilityPolicy: 0 });
  });

  it('refuses FOLLOWED before feature level 219', async () => {
    const t = setup({ featureLevel: 218 });
    expect((await caughtApiError(updateUserTopic(t.as('hamlet'), { streamId: t.channelId('general'), topic: 't', visibilityPolicy: 3 }))).message).toBe(
      'Invalid visibility_policy',
    );
  });

  it('sends the legacy muted_topics event only to queues that did not ask for user_topic', async () => {
    const t = setup();
    const [modern, legacy, everything] = [await t.listen('hamlet', ['user_topic', 'muted_topics']), await t.listen('hamlet', ['muted_topics']), await t.listen('hamlet', undefined)];
    await updateUserTopic(t.as('hamlet'), { streamId: t.channelId('general'), topic: 'greetings', visibilityPolicy: 1 });
    expect((await modern()).map((e) => e.type)).toEqual(['user_topic']);
    const old = await legacy();
    expect(old).toEqual([
      {
        type: 'muted_topics',
        muted_topics: expect.arrayContaining([['general', 'greetings', expect.any(Number)], ['design', 'colors', expect.any(Number)]]),
        id: expect.any(Number),
      },
    ]);
    expect((await everything()).map((e) => e.type)).toEqual(['user_topic', 'muted_topics']);
  });
});

describe('register state', () => {
  it('lists the user\u2019s policies under user_topics and the muted ones under muted_topics', async () => {
    const t = setup();
    const state = await t.as('hamlet').request<{ user_topics: UserTopic[]; muted_topics: [string, string, number][] }>('register', 'POST', 'register', {
      fetch_event_types: json(['user_topic', 'muted_topics']),
    });
    expect(state.user_topics).toEqual([
      { stream_id: t.channelId('general'), topic_name: 'greetings', visibility_policy: 3, last_updated: expect.any(Number) },
      { stream_id: t.channelId('design'), topic_name: 'colors', visibility_policy: 1, last_updated: expect.any(Number) },
    ]);
    expect(state.muted_topics).toEqual([['design', 'colors', expect.any(Number)]]);
    const other = await t.as('cordelia').request<{ user_topics: UserTopic[] }>('register', 'POST', 'register', { fetch_event_types: json(['user_topic']) });
    expect(other.user_topics).toEqual([]);
  });
});

describe('PATCH /users/me/subscriptions/muted_topics (deprecated)', () => {
  it('mutes by channel ID or name and unmutes, with the user_topic event', async () => {
    const t = setup();
    const events = await t.listen('hamlet', ['user_topic']);
    const general = t.channelId('general');
    await muteTopic(t.as('hamlet'), { streamId: general, topic: 'lunch', op: 'add' });
    expect(t.topicsOf('hamlet').find((e) => e.topic_name === 'lunch')?.visibility_policy).toBe(1);
    await muteTopic(t.as('hamlet'), { stream: 'general', topic: 'lunch', op: 'remove' });
    expect(t.topicsOf('hamlet').find((e) => e.topic_name === 'lunch')).toBeUndefined();
    expect((await events()).map((e) => [e.type, e.topic_name, e.visibility_policy])).toEqual([
      ['user_topic', 'lunch', 1],
      ['user_topic', 'lunch', 0],
    ]);
  });

  it('refuses to mute a muted topic, unmute an unmuted one, both or neither channel argument, and unknown channels', async () => {
    const t = setup();
    const hamlet = t.as('hamlet');
    const general = t.channelId('general');
    await muteTopic(hamlet, { streamId: general, topic: 'lunch', op: 'add' });
    const cases: [() => Promise<unknown>, string][] = [
      [() => muteTopic(hamlet, { streamId: general, topic: 'lunch', op: 'add' }), 'Topic already muted'],
      [() => muteTopic(hamlet, { streamId: general, topic: 'dinner', op: 'remove' }), 'Topic is not muted'],
      [() => muteTopic(hamlet, { streamId: general, stream: 'general', topic: 'x', op: 'add' }), "Please choose one: 'stream' or 'stream_id'."],
      [() => muteTopic(hamlet, { topic: 'x', op: 'add' }), "Please choose one: 'stream' or 'stream_id'."],
      [() => muteTopic(hamlet, { streamId: 9999, topic: 'x', op: 'add' }), 'Invalid channel ID'],
      [() => muteTopic(t.as('cordelia'), { stream: 'engineering', topic: 'x', op: 'add' }), "Invalid channel name 'engineering'"],
      [() => muteTopic(t.as('cordelia'), { streamId: t.channelId('engineering'), topic: 'x', op: 'add' }), 'Invalid channel ID'],
    ];
    for (const [call, message] of cases) expect([message, (await caughtApiError(call())).message]).toEqual([message, message]);
  });
});
