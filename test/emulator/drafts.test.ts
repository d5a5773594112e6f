/**
 * The emulator's drafts endpoints, driven through the REST bindings in src/zulip/routes/drafts.ts:
 * success paths (validated against the OpenAPI description), every documented error, the
 * all-or-nothing batch rule, the synchronization setting, the events and the register state.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import type { DraftData } from '../../src/zulip/model/drafts.js';
import { createDrafts, deleteDraft, editDraft, getDrafts } from '../../src/zulip/routes/drafts.js';
import { caughtApiError, eventsOf, expectValidResponse, registerEventQueue, setupEmulator } from '../helpers/emulator.js';
import { json, raw } from '../../src/zulip/params.js';

const START = Date.UTC(2026, 0, 1);
const NOW = START / 1000;

function setup(settings: Partial<EmulatorSettings> = {}) {
  const t = setupEmulator({ clock: new ManualClock(START), settings });
  return { ...t, hamlet: t.as('hamlet') };
}

const registerQueue = (conn: ZulipConnection, eventTypes = ['drafts']) => registerEventQueue(conn, eventTypes);

const channelDraft = (streamId: number, extra: Partial<DraftData> = {}): DraftData => ({
  type: 'stream',
  to: [streamId],
  topic: 'plans',
  content: 'Let us plan.',
  ...extra,
});

describe('GET /drafts', () => {
  it('lists the seeded draft with its count, in the documented shape', async () => {
    const { hamlet, channelId } = setup();
    const body = await getDrafts(hamlet);
    expectValidResponse('GET', '/drafts', body);
    expect(body.count).toBe(1);
    expect(body.drafts).toEqual([
      { id: 1, type: 'stream', to: [channelId('general')], topic: 'greetings', content: 'Draft: thank everyone', timestamp: NOW - 100 },
    ]);
  });

  it('lists the most recently edited draft first', async () => {
    const { hamlet } = setup();
    const { ids } = await createDrafts(hamlet, {
      drafts: [
        { type: '', to: [], topic: '', content: 'old', timestamp: NOW - 500 },
        { type: '', to: [], topic: '', content: 'new', timestamp: NOW + 5 },
      ],
    });
    const { drafts, count } = await getDrafts(hamlet);
    expect(count).toBe(3);
    expect(drafts.map((d) => d.id)).toEqual([ids[1], 1, ids[0]]);
  });

  it('shows each user only their own drafts', async () => {
    const { as } = setup();
    expect(await getDrafts(as('iago'))).toMatchObject({ count: 0, drafts: [] });
  });
});

describe('POST /drafts', () => {
  it('creates a batch and returns the ids in order; the server normalizes what it stores', async () => {
    const { hamlet, store, channelId, userId, clock } = setup();
    clock.advance(42_000);
    const iago = userId('iago');
    const cordelia = userId('cordelia');
    const body = await createDrafts(hamlet, {
      drafts: [
        channelDraft(channelId('design'), { timestamp: 1595479019 }),
        { type: 'private', to: [cordelia, userId('hamlet'), iago, cordelia], topic: 'ignored', content: 'Group plan', timestamp: 1595479020 },
        { type: 'private', to: [], topic: 'dropped', content: 'To nobody yet' },
        { type: '', to: [iago], topic: 'dropped', content: 'Unaddressed\n\n' },
      ],
    });
    expectValidResponse('POST', '/drafts', body);
    expect(body.ids).toEqual([2, 3, 4, 5]);
    const stored = (await getDrafts(hamlet)).drafts;
    const byId = new Map(stored.map((d) => [d.id, d]));
    expect(byId.get(2)).toEqual({ id: 2, type: 'stream', to: [channelId('design')], topic: 'plans', content: 'Let us plan.', timestamp: 1595479019 });
    // Direct drafts: recipients unique and sorted, without the sender; the topic is dropped.
    expect(byId.get(3)).toEqual({ id: 3, type: 'private', to: [iago, cordelia].sort((a, b) => a - b), topic: '', content: 'Group plan', timestamp: 1595479020 });
    // A direct draft without recipients is unaddressed; a missing timestamp is the server's clock.
    expect(byId.get(4)).toEqual({ id: 4, type: '', to: [], topic: '', content: 'To nobody yet', timestamp: NOW + 42 });
    expect(byId.get(5)).toEqual({ id: 5, type: '', to: [], topic: '', content: 'Unaddressed', timestamp: NOW + 42 });
    expect(store.drafts.get(userId('hamlet'))!.size).toBe(5);
  });

  it('keeps a draft to oneself addressed to oneself, and truncates a float timestamp', async () => {
    const { hamlet, userId } = setup();
    const { ids } = await createDrafts(hamlet, {
      drafts: [{ type: 'private', to: [userId('hamlet')], topic: '', content: 'Note to self', timestamp: 1595479019.75 }],
    });
    const draft = (await getDrafts(hamlet)).drafts.find((d) => d.id === ids[0]);
    expect(draft).toMatchObject({ type: 'private', to: [userId('hamlet')], timestamp: 1595479019 });
  });

  it('accepts a request without drafts (the parameter is optional)', async () => {
    const { hamlet } = setup();
    expect((await createDrafts(hamlet, {})).ids).toEqual([]);
    expect((await getDrafts(hamlet)).count).toBe(1);
  });

  it('truncates long topics and contents as Zulip does', async () => {
    const { hamlet, channelId } = setup({ maxTopicLength: 10, maxMessageLength: 30 });
    const { ids } = await createDrafts(hamlet, {
      drafts: [channelDraft(channelId('general'), { topic: 'a topic that is too long', content: 'x'.repeat(40) })],
    });
    const draft = (await getDrafts(hamlet)).drafts.find((d) => d.id === ids[0])!;
    expect(draft.topic).toBe('a topic...');
    expect(draft.content).toBe(`${'x'.repeat(10)}\n[message truncated]`);
  });

  type Ids = { channel: (name: string) => number; user: (login: string) => number; deactivated: number };
  const cases: [string, (x: Ids) => unknown, string][] = [
    ['a channel draft without a channel', () => [channelDraft(0, { to: [] })], 'Must specify exactly 1 channel ID for channel messages'],
    ['a channel draft with two channels', (x) => [channelDraft(x.channel('general'), { to: [x.channel('general'), x.channel('design')] })], 'Must specify exactly 1 channel ID for channel messages'],
    ['an unknown channel', () => [channelDraft(999)], 'Invalid channel ID'],
    ['a private channel the user cannot access', (x) => [channelDraft(x.channel('moderation requests'))], 'Invalid channel ID'],
    ['an archived channel', (x) => [channelDraft(x.channel('legacy'))], 'Invalid channel ID'],
    ['an unknown user', () => [{ type: 'private', to: [99999], topic: '', content: 'hi' }], 'Invalid user ID 99999'],
    ['a deactivated user', (x) => [{ type: 'private', to: [x.user('iago'), x.deactivated], topic: '', content: 'hi' }], "'lear@zulip.example.com' is no longer using Zulip."],
    ['a null byte in the content', () => [{ type: '', to: [], topic: '', content: 'a\u0000b' }], 'Message must not contain null bytes'],
    ['a null byte in a channel topic', (x) => [channelDraft(x.channel('general'), { topic: 'a\u0000b' })], 'Topic must not contain null bytes'],
    ['a null byte in a direct topic', (x) => [{ type: 'private', to: [x.user('iago')], topic: '\u0000', content: 'hi' }], 'Topic must not contain null bytes'],
    ['an id', (x) => [{ ...channelDraft(x.channel('general')), id: 7 }], 'drafts[0]["id"] must not be sent: the server assigns draft IDs'],
    ['an unknown key', (x) => [{ ...channelDraft(x.channel('general')), color: 'red' }], 'drafts[0] has an unexpected key: color'],
    ['an unknown type', () => [{ type: 'channel', to: [], topic: '', content: 'hi' }], 'Invalid drafts[0]["type"]'],
    ['a missing topic', () => [{ type: '', to: [], content: 'hi' }], 'topic key is missing from drafts[0]'],
    ['recipients that are not integers', () => [{ type: 'private', to: ['iago'], topic: '', content: 'hi' }], 'drafts[0]["to"] is not a list of integers'],
    ['blank content', () => [{ type: '', to: [], topic: '', content: '  ' }], 'drafts[0]["content"] cannot be blank'],
    ['a negative timestamp', () => [{ type: '', to: [], topic: '', content: 'hi', timestamp: -10.1 }], 'Timestamp must not be negative.'],
    ['a non-numeric timestamp', () => [{ type: '', to: [], topic: '', content: 'hi', timestamp: 'now' }], 'drafts[0]["timestamp"] is not a number'],
    ['a draft that is not an object', () => ['hello'], 'drafts[0] is not a dict'],
    ['drafts that are not a list', () => ({ type: '' }), 'drafts is not a list'],
  ];
  it.each(cases)('refuses %s with BAD_REQUEST, storing nothing and sending no event', async (_name, build, msg) => {
    const { hamlet, store, channelId, userId } = setup();
    const deactivated = [...store.users.values()].find((u) => !u.is_active)!.user_id;
    const queue = await registerQueue(hamlet);
    const before = store.drafts.get(userId('hamlet'))!.size;
    const e = await caughtApiError(createDrafts(hamlet, { drafts: build({ channel: channelId, user: userId, deactivated }) as DraftData[] }));
    expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, msg]);
    expect(store.drafts.get(userId('hamlet'))!.size).toBe(before);
    expect(await eventsOf(hamlet, queue)).toEqual([]);
  });

  it('is all or nothing: one bad draft in a batch stores none of them', async () => {
    const { hamlet, channelId } = setup();
    const queue = await registerQueue(hamlet);
    const e = await caughtApiError(
      createDrafts(hamlet, { drafts: [channelDraft(channelId('general')), channelDraft(channelId('design')), channelDraft(999)] }),
    );
    expect(e.message).toBe('Invalid channel ID');
    expect((await getDrafts(hamlet)).count).toBe(1);
    expect(await eventsOf(hamlet, queue)).toEqual([]);
    // The ids the failed batch would have used are still free.
    expect((await createDrafts(hamlet, { drafts: [channelDraft(channelId('general'))] })).ids).toEqual([2]);
  });

  it('refuses drafts that are not JSON', async () => {
    const { hamlet } = setup();
    const e = await caughtApiError(hamlet.request('create-drafts', 'POST', 'drafts', { drafts: raw('[{') }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Argument "drafts" is not valid JSON.']);
  });
});

describe('PATCH /drafts/{draft_id}', () => {
  it('replaces the draft and keeps its id', async () => {
    const { hamlet, channelId, userId } = setup();
    const body = await editDraft(hamlet, {
      draftId: 1,
      draft: { type: 'private', to: [userId('othello')], topic: 'dropped', content: 'Changed my mind', timestamp: NOW + 10 },
    });
    expectValidResponse('PATCH', '/drafts/1', body);
    expect((await getDrafts(hamlet)).drafts).toEqual([
      { id: 1, type: 'private', to: [userId('othello')], topic: '', content: 'Changed my mind', timestamp: NOW + 10 },
    ]);
    await editDraft(hamlet, { draftId: 1, draft: channelDraft(channelId('design')) });
    expect((await getDrafts(hamlet)).drafts[0]).toEqual({ id: 1, ...channelDraft(channelId('design')), timestamp: NOW });
  });

  it('answers 404 "Draft does not exist" for an unknown draft and for another user\'s draft', async () => {
    const { hamlet, as, channelId } = setup();
    for (const [conn, id] of [[hamlet, 999], [as('iago'), 1]] as const) {
      const e = await caughtApiError(editDraft(conn, { draftId: id, draft: channelDraft(channelId('general')) }));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 404, 'Draft does not exist']);
    }
    expect((await getDrafts(hamlet)).drafts[0]!.content).toBe('Draft: thank everyone');
  });

  it('refuses an invalid replacement and leaves the draft unchanged', async () => {
    const { hamlet } = setup();
    const queue = await registerQueue(hamlet);
    const e = await caughtApiError(editDraft(hamlet, { draftId: 1, draft: channelDraft(999, { content: 'lost' }) }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid channel ID']);
    const withId = await caughtApiError(editDraft(hamlet, { draftId: 1, draft: { id: 1, type: '', to: [], topic: '', content: 'x' } as DraftData }));
    expect(withId.message).toBe('draft["id"] must not be sent: the server assigns draft IDs');
    expect((await getDrafts(hamlet)).drafts[0]!.content).toBe('Draft: thank everyone');
    expect(await eventsOf(hamlet, queue)).toEqual([]);
  });

  it('requires the draft parameter', async () => {
    const { hamlet } = setup();
    const e = await caughtApiError(hamlet.request('edit-draft', 'PATCH', 'drafts/1', {}));
    expect([e.code, e.message, e.data.var_name]).toEqual(['REQUEST_VARIABLE_MISSING', "Missing 'draft' argument", 'draft']);
  });
});

describe('DELETE /drafts/{draft_id}', () => {
  it('deletes the draft', async () => {
    const { hamlet } = setup();
    const body = await deleteDraft(hamlet, { draftId: 1 });
    expectValidResponse('DELETE', '/drafts/1', body);
    expect(await getDrafts(hamlet)).toMatchObject({ count: 0, drafts: [] });
  });

  it('answers 404 "Draft does not exist" for an unknown or foreign draft', async () => {
    const { hamlet, as } = setup();
    for (const [conn, id] of [[hamlet, 2], [as('iago'), 1]] as const) {
      const e = await caughtApiError(deleteDraft(conn, { draftId: id }));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 404, 'Draft does not exist']);
    }
    expect((await getDrafts(hamlet)).count).toBe(1);
  });
});

describe('enable_drafts_synchronization off', () => {
  it('refuses every drafts endpoint, and register returns no drafts', async () => {
    const { hamlet, store, userId, channelId } = setup();
    store.users.get(userId('hamlet'))!.settings.enable_drafts_synchronization = false;
    const calls = [
      getDrafts(hamlet),
      createDrafts(hamlet, { drafts: [channelDraft(channelId('general'))] }),
      editDraft(hamlet, { draftId: 1, draft: channelDraft(channelId('general')) }),
      deleteDraft(hamlet, { draftId: 1 }),
    ];
    for (const call of calls) {
      const e = await caughtApiError(call);
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, 'User has disabled synchronizing drafts.']);
    }
    expect(store.drafts.get(userId('hamlet'))!.size).toBe(1);
    const state = await hamlet.request<{ drafts: unknown[] }>('register-queue', 'POST', 'register', { fetch_event_types: json(['drafts']) });
    expect(state.drafts).toEqual([]);
  });
});

describe('events and register state', () => {
  it('sends drafts add, update and remove events to the owner only', async () => {
    const { hamlet, as, channelId } = setup();
    const queue = await registerQueue(hamlet);
    const iago = as('iago');
    const iagoQueue = await registerQueue(iago);
    const otherTypes = await registerQueue(hamlet, ['message']);

    const { ids } = await createDrafts(hamlet, {
      drafts: [channelDraft(channelId('general')), { type: '', to: [], topic: '', content: 'second', timestamp: 5 }],
    });
    await editDraft(hamlet, { draftId: ids[0]!, draft: channelDraft(channelId('design'), { timestamp: 7 }) });
    await deleteDraft(hamlet, { draftId: ids[1]! });

    const events = await eventsOf(hamlet, queue);
    expect(events).toEqual([
      {
        type: 'drafts',
        op: 'add',
        drafts: [
          { id: ids[0], ...channelDraft(channelId('general')), timestamp: NOW },
          { id: ids[1], type: '', to: [], topic: '', content: 'second', timestamp: 5 },
        ],
      },
      { type: 'drafts', op: 'update', draft: { id: ids[0], ...channelDraft(channelId('design')), timestamp: 7 } },
      { type: 'drafts', op: 'remove', draft_id: ids[1] },
    ]);
    const body = await hamlet.request('get-events', 'GET', 'events', { queue_id: raw(queue), last_event_id: json(-1), dont_block: json(true) });
    expectValidResponse('GET', '/events', body);
    expect(await eventsOf(iago, iagoQueue)).toEqual([]);
    expect(await eventsOf(hamlet, otherTypes)).toEqual([]);
  });

  it('returns the drafts in the register response only when asked for', async () => {
    const { hamlet, channelId } = setup();
    const { ids } = await createDrafts(hamlet, { drafts: [channelDraft(channelId('design'), { timestamp: NOW + 1 })] });
    const state = await hamlet.request<Record<string, unknown>>('register-queue', 'POST', 'register', { fetch_event_types: json(['drafts']) });
    expect(state.drafts).toEqual([
      { id: ids[0], ...channelDraft(channelId('design')), timestamp: NOW + 1 },
      (await getDrafts(hamlet)).drafts[1],
    ]);
    expect((state.drafts as unknown[]).length).toBe(2);
    const without = await hamlet.request<Record<string, unknown>>('register-queue', 'POST', 'register', { fetch_event_types: json(['message']) });
    expect(without).not.toHaveProperty('drafts');
  });
});
