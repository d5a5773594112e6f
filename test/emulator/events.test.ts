/**
 * The event queue protocol end to end through the REST bindings (`registerQueue`, `getEvents`,
 * `deleteQueue`): registration, long-polling and heartbeats (with a ManualClock), acknowledgement
 * and its two pruning errors, event_types and narrow filtering, expiry and BAD_EVENT_QUEUE_ID, and
 * the events that settings, typing and presence changes produce (https://zulip.com/api/get-events).
 */
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/app.js';
import { ManualClock } from '../../src/emulator/clock.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { GetEventsResult } from '../../src/zulip/model/events.js';
import { deleteQueue, getEvents, registerQueue } from '../../src/zulip/routes/events.js';
import { updatePresence } from '../../src/zulip/routes/presence.js';
import { updateSettings } from '../../src/zulip/routes/settings.js';
import { setTypingStatus } from '../../src/zulip/routes/typing.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json } from '../../src/zulip/params.js';

const CAPABILITIES = { notification_settings_null: true, stream_typing_notifications: true, user_settings_object: true };

function setup(settings: { heartbeatIntervalMs?: number; queueIdleTimeoutMs?: number } = {}) {
  const t = setupEmulator({ clock: new ManualClock(), settings });
  const { emulator } = t;
  /** Resolves once a GET on the queue is parked (bounded: fails after 200 turns of the event loop). */
  async function parked(queueId: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const queue = [...emulator.store.users.keys()].flatMap((id) => emulator.queues.queuesOf(id)).find((q) => q.id === queueId);
      if (queue?.parked) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no poll parked on ${queueId}`);
  }
  return { ...t, parked };
}

/** Whether a promise has settled, without waiting for it. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('POST /register', () => {
  it('returns a queue, last_event_id -1, the feature level and the realm limits, valid per OpenAPI', async () => {
    const { as, emulator } = setup();
    const body = await registerQueue(as('hamlet'), { fetchEventTypes: ['realm', 'message'], eventTypes: ['message'] });
    expect(body.queue_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toMatchObject({
      last_event_id: -1,
      zulip_feature_level: emulator.settings.featureLevel,
      zulip_version: emulator.settings.version,
      max_message_length: 10000,
      max_topic_length: 60,
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      realm_empty_topic_display_name: emulator.store.realm.empty_topic_display_name,
      server_typing_started_wait_period_milliseconds: 30000,
      server_typing_stopped_wait_period_milliseconds: 12000,
      server_typing_started_expiry_period_milliseconds: 45000,
      event_queue_longpoll_timeout_seconds: 90,
      server_presence_offline_threshold_seconds: 200,
    });
    // Fields newer than the OpenAPI file (feature level 247).
    const newer = [
      'realm_empty_topic_display_name',
      'realm_url',
      'realm_can_resolve_topics_group',
      'realm_can_move_messages_between_channels_group',
      'realm_can_move_messages_between_topics_group',
      'realm_can_mention_many_users_group',
      'realm_can_create_web_public_channel_group',
      'realm_can_access_all_users_group',
      'realm_moderation_request_channel_id',
      'realm_wildcard_mention_large_stream_threshold',
    ];
    expect(validateResponse({ method: 'post', path: '/register' }, 200, body, { allowExtra: newer })).toEqual({ valid: true, errors: '' });
  });

  it('gives client_capabilities keys left out Zulip\u2019s default (false), and requires notification_settings_null as Zulip does', async () => {
    const { as, channelId } = setup();
    // Zulip's ClientCapabilities (zerver/lib/events.py, read by zerver/views/events_register.py):
    // every key but notification_settings_null is optional and defaults to false.
    const minimal = await registerQueue(as('iago'), { eventTypes: ['typing'], clientCapabilities: { notification_settings_null: true } });
    const full = await registerQueue(as('iago'), { eventTypes: ['typing'], clientCapabilities: { notification_settings_null: true, stream_typing_notifications: true } });
    await setTypingStatus(as('hamlet'), { op: 'start', type: 'channel', streamId: channelId('general'), topic: 't' });
    const poll = async (queueId: string) => (await getEvents(as('iago'), { queueId, lastEventId: -1, dontBlock: true })).events.map((e) => e.type);
    expect(await poll(minimal.queue_id!)).toEqual([]);
    expect(await poll(full.queue_id!)).toEqual(['typing']);
    // The one required key: Zulip still refuses an object without it (kept required for old clients).
    const e = await caughtApiError(registerQueue(as('iago'), { clientCapabilities: { bulk_message_deletion: true } as never }));
    expect([e.code, e.httpStatus]).toEqual(['BAD_REQUEST', 400]);
    expect(e.message).toContain('notification_settings_null');
  });

  it('rejects narrows with operators a queue cannot filter by', async () => {
    const { as } = setup();
    for (const narrow of [[['search', 'x']], [['foo', 'x']], [{ operator: 'topic', operand: 'x', negated: true }]] as const) {
      const e = await caughtApiError(registerQueue(as('hamlet'), { narrow: narrow as never }));
      expect([e.code, e.httpStatus]).toEqual(['BAD_REQUEST', 400]);
      expect(e.message).toMatch(/^Operator (search|foo|topic) not supported\.$/);
    }
  });
});

describe('GET /events', () => {
  it('parks a long-poll until an event arrives, and answers with it', async () => {
    const { as, user, parked } = setup();
    const { queue_id, last_event_id } = await registerQueue(as('iago'), { eventTypes: ['typing'] });
    const poll = getEvents(as('iago'), { queueId: queue_id!, lastEventId: last_event_id });
    await parked(queue_id!);
    expect(await settled(poll)).toBe(false);
    await setTypingStatus(as('hamlet'), { op: 'start', to: [user('iago').user_id] });
    const { events, queue_id: answered } = await poll;
    expect(answered).toBe(queue_id);
    expect(events).toEqual([
      {
        id: 0,
        type: 'typing',
        op: 'start',
        message_type: 'direct',
        sender: { user_id: user('hamlet').user_id, email: user('hamlet').email },
        recipients: [
          { user_id: user('iago').user_id, email: user('iago').email },
          { user_id: user('hamlet').user_id, email: user('hamlet').email },
        ],
      },
    ]);
    expect(validateResponse({ method: 'get', path: '/events' }, 200, { result: 'success', msg: '', events, queue_id: answered })).toEqual({
      valid: true,
      errors: '',
    });
  });

  it('answers a parked poll with a heartbeat after heartbeatIntervalMs, to be acknowledged like any event', async () => {
    const { as, clock, parked, emulator } = setup();
    const { queue_id } = await registerQueue(as('hamlet'), { eventTypes: ['typing'] });
    const poll = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1 });
    await parked(queue_id!);
    clock.advance(emulator.settings.heartbeatIntervalMs - 1);
    expect(await settled(poll)).toBe(false);
    clock.advance(1);
    expect((await poll).events).toEqual([{ id: 0, type: 'heartbeat' }]);
    // Heartbeats bypass event_types, and the next poll acknowledges it.
    const next = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: 0 });
    await parked(queue_id!);
    clock.advance(emulator.settings.heartbeatIntervalMs);
    expect((await next).events).toEqual([{ id: 1, type: 'heartbeat' }]);
  });

  it('answers at once with dont_block, even with no events', async () => {
    const { as } = setup();
    const { queue_id } = await registerQueue(as('hamlet'));
    const body = await getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true });
    expect(body).toEqual({ result: 'success', msg: '', events: [], queue_id });
  });

  it('keeps events until acknowledged, and rejects acknowledgements that go back or beyond', async () => {
    const { as, user } = setup();
    const { queue_id } = await registerQueue(as('iago'), { eventTypes: ['typing'] });
    const q = queue_id!;
    const to = [user('iago').user_id];
    await setTypingStatus(as('hamlet'), { op: 'start', to });
    await setTypingStatus(as('hamlet'), { op: 'stop', to });
    const ids = async (lastEventId: number) => (await getEvents(as('iago'), { queueId: q, lastEventId, dontBlock: true })).events.map((e) => e.id);
    expect(await ids(-1)).toEqual([0, 1]);
    expect(await ids(-1)).toEqual([0, 1]); // a lost response: the same events again
    expect(await ids(0)).toEqual([1]);
    expect(await ids(1)).toEqual([]);
    expect(await ids(1)).toEqual([]);
    const back = await caughtApiError(getEvents(as('iago'), { queueId: q, lastEventId: 0, dontBlock: true }));
    expect([back.code, back.httpStatus, back.message]).toEqual(['BAD_REQUEST', 400, 'An event newer than 0 has already been pruned!']);
    const beyond = await caughtApiError(getEvents(as('iago'), { queueId: q, lastEventId: 5, dontBlock: true }));
    expect([beyond.code, beyond.httpStatus, beyond.message]).toEqual(['BAD_REQUEST', 400, 'Event 5 was not in this queue']);
  });

  it('requires queue_id (unless registering with dont_block) and last_event_id', async () => {
    const { as } = setup();
    const noQueue = await caughtApiError(as('hamlet').request('get-events', 'GET', 'events', { last_event_id: json(-1) }));
    expect([noQueue.code, noQueue.message]).toEqual(['BAD_REQUEST', "Missing 'queue_id' argument"]);
    const { queue_id } = await registerQueue(as('hamlet'));
    const noLast = await caughtApiError(as('hamlet').request('get-events', 'GET', 'events', { queue_id: json(queue_id) }));
    expect([noLast.code, noLast.message]).toEqual(['BAD_REQUEST', "Missing 'last_event_id' argument"]);
    // The legacy path: dont_block without queue_id registers a queue from the parameters.
    const created = await as('hamlet').request<GetEventsResult>('get-events', 'GET', 'events', { dont_block: json(true), event_types: json(['typing']) });
    expect(created.events).toEqual([]);
    expect(typeof created.queue_id).toBe('string');
    expect((await getEvents(as('hamlet'), { queueId: created.queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([]);
  });

  it('filters by event_types', async () => {
    const { as, user } = setup();
    const typingOnly = await registerQueue(as('iago'), { eventTypes: ['typing'], clientCapabilities: CAPABILITIES });
    const settingsOnly = await registerQueue(as('iago'), { eventTypes: ['user_settings'], clientCapabilities: CAPABILITIES });
    await setTypingStatus(as('hamlet'), { op: 'start', to: [user('iago').user_id] });
    await updateSettings(as('iago'), { colorScheme: 2 });
    const types = async (q: string) => (await getEvents(as('iago'), { queueId: q, lastEventId: -1, dontBlock: true })).events.map((e) => e.type);
    expect(await types(typingOnly.queue_id!)).toEqual(['typing']);
    expect(await types(settingsOnly.queue_id!)).toEqual(['user_settings']);
  });

  it('filters message events, and only message events, by narrow', async () => {
    const { as, store, emulator, user } = setup();
    const design = await registerQueue(as('cordelia'), { narrow: [['stream', 'design']], eventTypes: ['message', 'typing'] });
    const all = await registerQueue(as('cordelia'), { eventTypes: ['message', 'typing'] });
    const messages = [...store.messages.values()];
    const inDesign = messages.find((m) => m.stream_id === store.channelByName('design')!.stream_id)!;
    const inGeneral = messages.find((m) => m.stream_id === store.channelByName('general')!.stream_id)!;
    // Message sending belongs to the messages resource; push its events the way it does.
    for (const m of [inGeneral, inDesign]) {
      emulator.queues.notify([user('cordelia').user_id], { type: 'message', message: { id: m.id }, flags: [] });
    }
    await setTypingStatus(as('hamlet'), { op: 'start', to: [user('cordelia').user_id] });
    const got = async (q: string) =>
      (await getEvents(as('cordelia'), { queueId: q, lastEventId: -1, dontBlock: true })).events.map((e) =>
        e.type === 'message' ? (e.message as { id: number }).id : e.type,
      );
    expect(await got(design.queue_id!)).toEqual([inDesign.id, 'typing']);
    expect(await got(all.queue_id!)).toEqual([inGeneral.id, inDesign.id, 'typing']);
  });

  it('answers the first poll when a second one takes over the queue', async () => {
    const { as, parked } = setup();
    const { queue_id } = await registerQueue(as('hamlet'));
    const first = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1 });
    await parked(queue_id!);
    const second = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true });
    expect((await first).events).toEqual([]);
    expect((await second).events).toEqual([]);
  });
});

describe('BAD_EVENT_QUEUE_ID', () => {
  /** The raw error body, to check it against the OpenAPI BadEventQueueIdError schema. */
  async function rawGet(emulator: Emulator, login: string, queueId: string) {
    const u = demoUser(login);
    const response = await emulator.fetch(
      new Request(`http://emulator.test/api/v1/events?queue_id=${queueId}&last_event_id=-1&dont_block=true`, {
        headers: { authorization: `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}` },
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('answers a queue idle past queueIdleTimeoutMs with 400 and the queue_id, exactly as Zulip', async () => {
    const { as, clock, emulator } = setup({ queueIdleTimeoutMs: 60_000 });
    const { queue_id } = await registerQueue(as('hamlet'));
    clock.advance(59_999);
    expect((await getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([]);
    clock.advance(1); // a dont_block poll does not refresh the idle clock
    const { status, body } = await rawGet(emulator, 'hamlet', queue_id!);
    expect(status).toBe(400);
    expect(body).toEqual({ result: 'error', msg: `Bad event queue ID: ${queue_id}`, code: 'BAD_EVENT_QUEUE_ID', queue_id });
    expect(validateResponse({ method: 'get', path: '/events' }, 400, body)).toEqual({ valid: true, errors: '' });
    const e = await caughtApiError(getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true }));
    expect([e.code, e.httpStatus, e.data]).toEqual(['BAD_EVENT_QUEUE_ID', 400, { queue_id }]);
  });

  it('keeps a queue alive while a poll is parked on it', async () => {
    const { as, clock, parked } = setup({ queueIdleTimeoutMs: 60_000, heartbeatIntervalMs: 50_000 });
    const { queue_id } = await registerQueue(as('hamlet'));
    clock.advance(40_000);
    const poll = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1 });
    await parked(queue_id!);
    clock.advance(50_000); // past the idle timeout counted from registration, but parked since 40 s
    expect((await poll).events).toEqual([{ id: 0, type: 'heartbeat' }]);
    expect((await getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: 0, dontBlock: true })).events).toEqual([]);
  });

  it('answers a deleted queue; DELETE answers a parked poll first', async () => {
    const { as, parked, emulator } = setup();
    const { queue_id } = await registerQueue(as('hamlet'));
    const poll = getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1 });
    await parked(queue_id!);
    const deleted = await deleteQueue(as('hamlet'), { queueId: queue_id! });
    expect(validateResponse({ method: 'delete', path: '/events' }, 200, deleted)).toEqual({ valid: true, errors: '' });
    expect((await poll).events).toEqual([]);
    const e = await caughtApiError(getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true }));
    expect([e.code, e.httpStatus]).toEqual(['BAD_EVENT_QUEUE_ID', 400]);
    const again = await caughtApiError(deleteQueue(as('hamlet'), { queueId: queue_id! }));
    expect(again.code).toBe('BAD_EVENT_QUEUE_ID');
    const { body } = await rawGet(emulator, 'hamlet', queue_id!);
    expect(validateResponse({ method: 'delete', path: '/events' }, 400, body)).toEqual({ valid: true, errors: '' });
  });

  it("answers another user's queue ID as if it did not exist, and leaves that queue alone", async () => {
    const { as } = setup();
    const { queue_id } = await registerQueue(as('hamlet'));
    for (const call of [
      getEvents(as('iago'), { queueId: queue_id!, lastEventId: -1, dontBlock: true }),
      deleteQueue(as('iago'), { queueId: queue_id! }),
      getEvents(as('iago'), { queueId: 'no-such-queue', lastEventId: -1, dontBlock: true }),
    ]) {
      const e = await caughtApiError(call);
      expect([e.code, e.httpStatus]).toEqual(['BAD_EVENT_QUEUE_ID', 400]);
    }
    expect((await getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([]);
  });
});

describe('changes through the API', () => {
  it('delivers exactly the expected settings, typing and presence events', async () => {
    const { as, user, clock } = setup();
    const hamlet = user('hamlet');
    const iago = user('iago');
    const { queue_id, last_event_id } = await registerQueue(as('hamlet'), {
      eventTypes: ['user_settings', 'typing', 'presence', 'update_display_settings'],
      clientCapabilities: CAPABILITIES,
      slimPresence: true,
    });
    clock.advance(1000);
    const now = Math.floor(clock.now() / 1000);

    await updateSettings(as('hamlet'), { colorScheme: 2, emojiset: 'twitter' });
    await updateSettings(as('hamlet'), { colorScheme: 2 }); // unchanged: no event
    await updateSettings(as('iago'), { colorScheme: 3 }); // someone else's settings: no event
    await setTypingStatus(as('iago'), { op: 'start', to: [hamlet.user_id] });
    await setTypingStatus(as('iago'), { op: 'start', type: 'channel', streamId: 1, topic: 'greetings' });
    await updatePresence(as('shiva'), { status: 'active', pingOnly: true }); // first report: announced
    await updatePresence(as('iago'), { status: 'active', pingOnly: true }); // already online: not announced

    const { events } = await getEvents(as('hamlet'), { queueId: queue_id!, lastEventId: last_event_id });
    const person = (u: typeof hamlet) => ({ user_id: u.user_id, email: u.email });
    expect(events).toEqual([
      { id: 0, type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 },
      { id: 1, type: 'user_settings', op: 'update', property: 'emojiset', value: 'twitter' },
      { id: 2, type: 'typing', op: 'start', message_type: 'direct', sender: person(iago), recipients: [person(hamlet), person(iago)] },
      { id: 3, type: 'typing', op: 'start', message_type: 'stream', sender: person(iago), stream_id: 1, topic: 'greetings' },
      {
        id: 4,
        type: 'presence',
        user_id: user('shiva').user_id,
        server_timestamp: now,
        presence: { website: { client: 'website', status: 'active', timestamp: now, pushable: false } },
      },
    ]);
  });
});
