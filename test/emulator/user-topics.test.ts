/**
 * Topic visibility policies in the emulator, driven through the REST client
 * (src/zulip/routes/user-topics.ts): `POST /user_topics`, the `user_topic` register state and events,
 * and the legacy `muted_topics` form.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { demoUser } from '../../src/emulator/seed.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { ZulipApiError } from '../../src/zulip/errors.js';
import type { UserTopic, VisibilityPolicy } from '../../src/zulip/model/user-topics.js';
import { updateUserTopic } from '../../src/zulip/routes/user-topics.js';
import { validateResponse } from '../helpers/openapi.js';

type Event = Record<string, unknown> & { type: string; id: number };

function setup(settings: Partial<EmulatorSettings> = {}) {
  const emulator: Emulator = createEmulator({ settings });
  const fetch = (input: string | URL | Request, init?: RequestInit) => emulator.fetch(new Request(input, init));
  const as = (login: string) =>
    new ZulipConnection({
      baseUrl: 'http://emulator.test',
      credentials: demoUser(login),
      fetch,
      retry: { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 },
    });
  return {
    emulator,
    as,
    id: (name: string) => emulator.store.channelByName(name)!.stream_id,
    userId: (login: string) => emulator.store.userByEmail(demoUser(login).email)!.user_id,
    topicsOf: (login: string) => [...(emulator.store.userTopics.get(emulator.store.userByEmail(demoUser(login).email)!.user_id)?.values() ?? [])],
    async listen(login: string, eventTypes: string[] | undefined) {
      const conn = as(login);
      const { queue_id } = await conn.send<{ queue_id: string }>('register', 'POST', 'register', {
        ...(eventTypes && { event_types: eventTypes }),
        fetch_event_types: [],
      });
      let last = -1;
      return async () => {
        const { events } = await conn.send<{ events: Event[] }>('get-events', 'GET', 'events', { queue_id, last_event_id: last, dont_block: true });
        last = events.at(-1)?.id ?? last;
        return events.filter((e) => e.type !== 'heartbeat');
      };
    },
  };
}

async function caught(p: Promise<unknown>): Promise<ZulipApiError> {
  const e = await p.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(ZulipApiError);
  return e as ZulipApiError;
}

describe('POST /user_topics', () => {
  it('sets each policy, even for a topic without messages, with a user_topic event', async () => {
    const t = setup();
    const general = t.id('general');
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
    const design = t.id('design');
    await updateUserTopic(t.as('hamlet'), { streamId: design, topic: 'COLORS', visibilityPolicy: 3 });
    expect(t.topicsOf('hamlet').find((e) => e.stream_id === design)).toMatchObject({ topic_name: 'colors', visibility_policy: 3 });
    await updateUserTopic(t.as('hamlet'), { streamId: design, topic: 'colors', visibilityPolicy: 0 });
    expect(t.topicsOf('hamlet').filter((e) => e.stream_id === design)).toEqual([]);
  });

  it('reads "(no topic)" and the display name as the empty topic', async () => {
    const t = setup();
    const general = t.id('general');
    await updateUserTopic(t.as('othello'), { streamId: general, topic: '(no topic)', visibilityPolicy: 1 });
    expect(t.topicsOf('othello')).toEqual([expect.objectContaining({ topic_name: '', visibility_policy: 1 })]);
    await updateUserTopic(t.as('othello'), { streamId: general, topic: t.emulator.store.realm.empty_topic_display_name, visibilityPolicy: 3 });
    expect(t.topicsOf('othello')).toEqual([expect.objectContaining({ topic_name: '', visibility_policy: 3 })]);
  });

  it('refuses bad policies, long topics, NUL characters and channels the user cannot read', async () => {
    const t = setup({ maxTopicLength: 10 });
    const general = t.id('general');
    const cordelia = t.as('cordelia');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ stream_id: general, topic: 't', visibility_policy: 4 }, 'BAD_REQUEST', 'Invalid visibility_policy'],
      [{ stream_id: general, topic: 'x'.repeat(11), visibility_policy: 1 }, 'BAD_REQUEST', 'topic is too long (limit: 10 characters)'],
      [{ stream_id: general, topic: 'a\u0000b', visibility_policy: 1 }, 'BAD_REQUEST', 'topic contains NULL (0x00) characters.'],
      [{ stream_id: 9999, topic: 't', visibility_policy: 1 }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: 9999, topic: 't', visibility_policy: 0 }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: t.id('engineering'), topic: 't', visibility_policy: 1 }, 'BAD_REQUEST', 'Invalid channel ID'],
      [{ stream_id: 'x', topic: 't', visibility_policy: 1 }, 'BAD_REQUEST', 'stream_id is not an integer'],
      [{ topic: 't', visibility_policy: 1 }, 'REQUEST_VARIABLE_MISSING', "Missing 'stream_id' argument"],
    ];
    for (const [params, code, msg] of cases) {
      const e = await caught(cordelia.send('update-user-topic', 'POST', 'user_topics', params));
      expect([e.code, e.message]).toEqual([code, msg]);
    }
    expect(t.topicsOf('cordelia')).toEqual([]);
    // Removing a policy needs only an existing channel, even one no longer readable.
    await updateUserTopic(cordelia, { streamId: t.id('engineering'), topic: 't', visibilityPolicy: 0 });
  });

  it('refuses FOLLOWED before feature level 219', async () => {
    const t = setup({ featureLevel: 218 });
    expect((await caught(updateUserTopic(t.as('hamlet'), { streamId: t.id('general'), topic: 't', visibilityPolicy: 3 }))).message).toBe(
      'Invalid visibility_policy',
    );
  });

  it('sends the legacy muted_topics event only to queues that did not ask for user_topic', async () => {
    const t = setup();
    const [modern, legacy, everything] = [await t.listen('hamlet', ['user_topic', 'muted_topics']), await t.listen('hamlet', ['muted_topics']), await t.listen('hamlet', undefined)];
    await updateUserTopic(t.as('hamlet'), { streamId: t.id('general'), topic: 'greetings', visibilityPolicy: 1 });
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
    const state = await t.as('hamlet').send<{ user_topics: UserTopic[]; muted_topics: [string, string, number][] }>('register', 'POST', 'register', {
      fetch_event_types: ['user_topic', 'muted_topics'],
    });
    expect(state.user_topics).toEqual([
      { stream_id: t.id('general'), topic_name: 'greetings', visibility_policy: 3, last_updated: expect.any(Number) },
      { stream_id: t.id('design'), topic_name: 'colors', visibility_policy: 1, last_updated: expect.any(Number) },
    ]);
    expect(state.muted_topics).toEqual([['design', 'colors', expect.any(Number)]]);
    const other = await t.as('cordelia').send<{ user_topics: UserTopic[] }>('register', 'POST', 'register', { fetch_event_types: ['user_topic'] });
    expect(other.user_topics).toEqual([]);
  });
});
