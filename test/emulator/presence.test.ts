/**
 * Presence in the emulator, driven through the REST client: reporting (modern and legacy formats,
 * incremental fetches by last_update_id, history limits, ping_only), the realm and per-user reads,
 * who is listed, the `presence` event and the register state.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import { addUser } from '../../src/emulator/factory.js';
import type { LegacyPresence, ModernPresence } from '../../src/zulip/model/presence.js';
import { deleteQueue, getEvents, registerQueue } from '../../src/zulip/routes/events.js';
import { getPresence, getUserPresence, updatePresence } from '../../src/zulip/routes/presence.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { json, raw } from '../../src/zulip/params.js';

function setup() {
  const t = setupEmulator({ clock: new ManualClock() });
  const now = () => Math.floor(t.clock.now() / 1000);
  return { ...t, asUser: t.as, now };
}

describe('POST /users/me/presence', () => {
  it('answers the first modern call (last_update_id -1) with everyone recently seen, keyed by user ID', async () => {
    const { as, user, now, store } = setup();
    const before = store.presenceLastUpdateId;
    const body = await updatePresence(as('othello'), { status: 'active', lastUpdateId: -1 });

    const othello = user('othello');
    const record = store.presence.get(othello.user_id)!;
    expect(record).toMatchObject({ active_timestamp: now(), idle_timestamp: now(), last_update_id: before + 1 });
    expect(body.presence_last_update_id).toBe(before + 1);
    expect(body.server_timestamp).toBe(now());
    const expected: Record<string, ModernPresence> = {};
    for (const [id, r] of store.presence) expected[String(id)] = { active_timestamp: r.active_timestamp, idle_timestamp: r.idle_timestamp };
    expect(body.presences).toEqual(expected);
    expect(Object.keys(body.presences!).sort()).toEqual(
      ['iago', 'hamlet', 'cordelia', 'othello'].map((l) => String(user(l).user_id)).sort(),
    );
  });

  it('returns only what changed since last_update_id, and echoes the id when nothing did', async () => {
    const { as, clock, user } = setup();
    const first = await updatePresence(as('othello'), { status: 'active', lastUpdateId: -1 });
    const quiet = await updatePresence(as('othello'), { status: 'active', lastUpdateId: first.presence_last_update_id! });
    // A second report within a minute moves nothing, so there is nothing new.
    expect(quiet.presences).toEqual({});
    expect(quiet.presence_last_update_id).toBe(first.presence_last_update_id);

    clock.advance(120_000);
    await updatePresence(as('shiva'), { status: 'idle', pingOnly: true });
    const next = await updatePresence(as('othello'), { status: 'active', lastUpdateId: first.presence_last_update_id! });
    expect(Object.keys(next.presences!).sort()).toEqual([user('shiva').user_id, user('othello').user_id].map(String).sort());
    expect(next.presence_last_update_id).toBe(first.presence_last_update_id! + 2);
  });

  it('uses the legacy format keyed by API email without last_update_id or slim_presence', async () => {
    const { as, user, now, store, clock } = setup();
    clock.advance(100_000); // the seeded timestamps are now in the past
    const body = await updatePresence(as('hamlet'), { status: 'idle' });
    const cordelia = user('cordelia');
    // Cordelia hides her real address, so her key is the placeholder API email.
    expect(cordelia.email).toMatch(/^user\d+@zulip\.example\.com$/);
    const entry = (body.presences as Record<string, LegacyPresence>)[cordelia.email]!;
    const record = store.presence.get(cordelia.user_id)!;
    expect(entry).toEqual({
      aggregated: { client: 'website', status: 'active', timestamp: record.active_timestamp },
      website: { client: 'website', status: 'active', timestamp: record.active_timestamp, pushable: false },
    });
    // Hamlet was active a minute before the seed time and now reports idle: idle at the new time.
    const hamlet = (body.presences as Record<string, LegacyPresence>)[user('hamlet').email]!;
    expect(hamlet.website).toEqual({ client: 'website', status: 'idle', timestamp: now(), pushable: false });
    expect(body.presence_last_update_id).toBe(store.presenceLastUpdateId);
    // get_presence_response's keys only (zerver/lib/presence.py): no zephyr_mirror_active / mirror_active.
    expect(Object.keys(body).sort()).toEqual(['msg', 'presence_last_update_id', 'presences', 'result', 'server_timestamp']);
  });

  it('uses the modern format with slim_presence alone', async () => {
    const { as, user, store } = setup();
    const body = await updatePresence(as('hamlet'), { status: 'active', slimPresence: true });
    expect(body.presences![String(user('iago').user_id)]).toEqual({
      active_timestamp: store.presence.get(user('iago').user_id)!.active_timestamp,
      idle_timestamp: store.presence.get(user('iago').user_id)!.idle_timestamp,
    });
  });

  it('returns no presence data with ping_only', async () => {
    const { as, user, store } = setup();
    const body = await updatePresence(as('shiva'), { status: 'active', pingOnly: true });
    // The API spec: presence_last_update_id is -1 when no id was sent and no data returned.
    expect(body).toEqual({ result: 'success', msg: '', presence_last_update_id: -1 });
    expect(store.presence.has(user('shiva').user_id)).toBe(true);
    // With an id sent, a ping answers no less than it.
    const withId = await updatePresence(as('shiva'), { status: 'active', pingOnly: true, lastUpdateId: 5 });
    expect(withId).toEqual({ result: 'success', msg: '', presence_last_update_id: 5 });
  });

  it('answers -1 when no id was sent and there is no data (history_limit_days 0)', async () => {
    const { as } = setup();
    const body = await updatePresence(as('shiva'), { status: 'active', historyLimitDays: 0 });
    expect(body.presences).toEqual({});
    expect(body.presence_last_update_id).toBe(-1);
  });

  it('limits history to history_limit_days (default 14), except once the client holds data', async () => {
    const { as, clock, user } = setup();
    clock.advance(3 * 86400_000);
    const recent = await updatePresence(as('othello'), { status: 'active', lastUpdateId: -1, historyLimitDays: 2 });
    expect(Object.keys(recent.presences!)).toEqual([String(user('othello').user_id)]);
    const defaulted = await updatePresence(as('othello'), { status: 'active', lastUpdateId: -1 });
    expect(Object.keys(defaulted.presences!)).toHaveLength(4);
    // With last_update_id > 0 the limit is ignored: every record newer than the id comes back.
    const incremental = await updatePresence(as('othello'), { status: 'active', lastUpdateId: 1, historyLimitDays: 1 });
    expect(Object.keys(incremental.presences!).sort()).toEqual(
      ['hamlet', 'cordelia', 'othello'].map((l) => String(user(l).user_id)).sort(),
    );
    clock.advance(12 * 86400_000);
    const twoWeeksLater = await updatePresence(as('othello'), { status: 'active', lastUpdateId: -1 });
    expect(Object.keys(twoWeeksLater.presences!)).toEqual([String(user('othello').user_id)]);
  });

  it('leaves out and does not update users who turned presence off', async () => {
    const { as, user, store } = setup();
    const iago = user('iago');
    iago.presence_enabled = false;
    const before = { ...store.presence.get(iago.user_id)! };
    const body = await updatePresence(as('iago'), { status: 'active', lastUpdateId: -1 });
    expect(body.presences![String(iago.user_id)]).toBeUndefined();
    expect(store.presence.get(iago.user_id)!.last_update_id).toBe(before.last_update_id);
    const realm = await getPresence(as('hamlet'));
    expect(realm.presences[iago.email]).toBeUndefined();
  });

  it('lists only users the caller can access when access is restricted', async () => {
    const { as, asUser, store, now } = setup();
    const loner = addUser(store, { full_name: 'Lone Ranger', delivery_email: 'loner@zulip.example.com' }, Date.now());
    store.presence.set(loner.user_id, { active_timestamp: now(), idle_timestamp: now(), last_update_id: ++store.presenceLastUpdateId, clients: {} });
    store.realm.settings.can_access_all_users_group = store.systemGroupId('role:members');
    const guest = await updatePresence(as('polonius'), { status: 'active', slimPresence: true });
    expect(guest.presences![String(loner.user_id)]).toBeUndefined();
    const member = await updatePresence(as('hamlet'), { status: 'active', slimPresence: true });
    expect(member.presences![String(loner.user_id)]).toBeDefined();
    expect((await updatePresence(asUser(loner), { status: 'active', slimPresence: true })).presences).toHaveProperty(String(loner.user_id));
    const e = await caughtApiError(getUserPresence(as('polonius'), { userIdOrEmail: loner.user_id }));
    expect(e.message).toBe('Insufficient permission');
  });

  it('rejects a missing or invalid status, malformed numbers and bots, changing nothing', async () => {
    const { as, asUser, store } = setup();
    const before = store.presenceLastUpdateId;
    const missing = await caughtApiError(as('hamlet').request('update-presence', 'POST', 'users/me/presence', {}));
    expect([missing.code, missing.message, missing.data]).toEqual(['REQUEST_VARIABLE_MISSING', "Missing 'status' argument", { var_name: 'status' }]);
    const invalid = await caughtApiError(updatePresence(as('hamlet'), { status: 'busy' as 'active' }));
    expect([invalid.code, invalid.httpStatus, invalid.message]).toEqual(['BAD_REQUEST', 400, 'Invalid status: busy']);
    const badId = await caughtApiError(as('hamlet').request('update-presence', 'POST', 'users/me/presence', { status: raw('active'), last_update_id: raw('x') }));
    expect(badId.message).toBe('last_update_id is not an integer');
    const badBool = await caughtApiError(as('hamlet').request('update-presence', 'POST', 'users/me/presence', { status: raw('active'), ping_only: raw('maybe') }));
    expect(badBool.message).toBe('ping_only is not a boolean');
    const bot = [...store.users.values()].find((u) => u.is_bot)!;
    const conn = asUser(bot);
    const botError = await caughtApiError(updatePresence(conn, { status: 'active' }));
    expect(botError.message).toBe('This endpoint does not accept bot requests.');
    expect(store.presenceLastUpdateId).toBe(before);
  });

  it('reports unknown parameters as ignored', async () => {
    const { as } = setup();
    const body = await as('hamlet').request<Record<string, unknown>>('update-presence', 'POST', 'users/me/presence', { status: raw('active'), bogus: json(1) });
    expect(body.ignored_parameters_unsupported).toEqual(['bogus']);
  });
});

describe('GET /realm/presence', () => {
  it('returns everyone recently seen in the legacy format, valid per OpenAPI', async () => {
    const { as, user, now } = setup();
    const body = await getPresence(as('hamlet'));
    expect(validateResponse({ method: 'get', path: '/realm/presence' }, 200, body)).toEqual({ valid: true, errors: '' });
    expect(Object.keys(body.presences).sort()).toEqual(['iago', 'hamlet', 'cordelia'].map((l) => user(l).email).sort());
    expect(body.presences[user('iago').email]!.aggregated).toEqual({ client: 'website', status: 'active', timestamp: now() });
    expect(body.server_timestamp).toBe(now());
    expect(body).not.toHaveProperty('presence_last_update_id');
  });
});

describe('GET /users/{user_id_or_email}/presence', () => {
  it('returns website and aggregated entries by ID or email, valid per OpenAPI', async () => {
    const { as, user, now } = setup();
    const iago = user('iago');
    const byId = await getUserPresence(as('hamlet'), { userIdOrEmail: iago.user_id });
    expect(validateResponse({ method: 'get', path: '/users/{user_id_or_email}/presence' }, 200, byId)).toEqual({ valid: true, errors: '' });
    expect(byId.presence).toEqual({ website: { status: 'active', timestamp: now() }, aggregated: { status: 'active', timestamp: now() } });
    const byEmail = await getUserPresence(as('hamlet'), { userIdOrEmail: iago.email });
    expect(byEmail.presence).toEqual(byId.presence);
    // Zulip's get_presence_backend reads no slim_presence: the legacy entry, the parameter reported ignored.
    const slim = await getUserPresence(as('hamlet'), { userIdOrEmail: iago.user_id, slimPresence: true });
    expect(slim.presence).toEqual(byId.presence);
    expect((slim as { ignored_parameters_unsupported?: string[] }).ignored_parameters_unsupported).toEqual(['slim_presence']);
  });

  it('marks the aggregated entry offline past the offline threshold', async () => {
    const { as, user, clock } = setup();
    clock.advance(201_000);
    const body = await getUserPresence(as('hamlet'), { userIdOrEmail: user('iago').user_id });
    expect(body.presence).toMatchObject({ website: { status: 'active' }, aggregated: { status: 'offline' } });
  });

  it('rejects unknown and deactivated users, bots, and users without data', async () => {
    const { as, store, user } = setup();
    const lear = [...store.users.values()].find((u) => !u.is_active)!;
    const bot = [...store.users.values()].find((u) => u.is_bot)!;
    for (const [key, message] of [
      [9999, 'No such user'],
      ['nobody@zulip.example.com', 'No such user'],
      [lear.user_id, 'No such user'],
      [bot.user_id, 'Presence is not supported for bot users.'],
      [user('othello').user_id, `No presence data for ${user('othello').user_id}`],
    ] as const) {
      const e = await caughtApiError(getUserPresence(as('hamlet'), { userIdOrEmail: key }));
      expect([e.code, e.httpStatus, e.message]).toEqual(['BAD_REQUEST', 400, message]);
    }
  });
});

describe('presence events and register state', () => {
  it('tells everyone who can access the user when they first appear or come back online', async () => {
    const { as, user, clock, now } = setup();
    const slim = await registerQueue(as('hamlet'), { eventTypes: ['presence'], slimPresence: true });
    const legacy = await registerQueue(as('iago'), { eventTypes: ['presence'] });
    const own = await registerQueue(as('othello'), { eventTypes: ['presence'] });

    await updatePresence(as('othello'), { status: 'active', pingOnly: true });
    const othello = user('othello');
    const client = { client: 'website', status: 'active', timestamp: now(), pushable: false };
    expect((await getEvents(as('hamlet'), { queueId: slim.queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([
      { id: 0, type: 'presence', user_id: othello.user_id, server_timestamp: now(), presence: { website: client } },
    ]);
    expect((await getEvents(as('iago'), { queueId: legacy.queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([
      { id: 0, type: 'presence', user_id: othello.user_id, email: othello.email, server_timestamp: now(), presence: { website: client } },
    ]);
    expect((await getEvents(as('othello'), { queueId: own.queue_id!, lastEventId: -1, dontBlock: true })).events).toHaveLength(1);

    // Regular pings while online, and idle reports, are not announced.
    clock.advance(60_000);
    await updatePresence(as('othello'), { status: 'active', pingOnly: true });
    clock.advance(60_000);
    await updatePresence(as('othello'), { status: 'idle', pingOnly: true });
    expect((await getEvents(as('hamlet'), { queueId: slim.queue_id!, lastEventId: 0, dontBlock: true })).events).toEqual([]);

    // Back after a while away: announced again.
    clock.advance(300_000);
    await updatePresence(as('othello'), { status: 'active', pingOnly: true });
    const back = await getEvents(as('hamlet'), { queueId: slim.queue_id!, lastEventId: 0, dontBlock: true });
    expect(back.events).toEqual([
      {
        id: 1,
        type: 'presence',
        user_id: othello.user_id,
        server_timestamp: now(),
        presence: { website: { client: 'website', status: 'active', timestamp: now(), pushable: false } },
      },
    ]);
    await deleteQueue(as('hamlet'), { queueId: slim.queue_id! });
  });

  it('does not tell users who cannot access the user', async () => {
    const { as, asUser, store } = setup();
    const loner = addUser(store, { full_name: 'Lone Ranger', delivery_email: 'loner@zulip.example.com' }, Date.now());
    store.realm.settings.can_access_all_users_group = store.systemGroupId('role:members');
    const guestQueue = await registerQueue(as('polonius'), { eventTypes: ['presence'] });
    const memberQueue = await registerQueue(as('hamlet'), { eventTypes: ['presence'] });
    await updatePresence(asUser(loner), { status: 'active', pingOnly: true });
    expect((await getEvents(as('polonius'), { queueId: guestQueue.queue_id!, lastEventId: -1, dontBlock: true })).events).toEqual([]);
    expect((await getEvents(as('hamlet'), { queueId: memberQueue.queue_id!, lastEventId: -1, dontBlock: true })).events).toHaveLength(1);
  });

  it('puts presences, server_timestamp and presence_last_update_id in the register state', async () => {
    const { as, user, store, now } = setup();
    const slim = await registerQueue(as('hamlet'), { fetchEventTypes: ['presence'], slimPresence: true });
    expect(slim.presence_last_update_id).toBe(store.presenceLastUpdateId);
    expect(slim.server_timestamp).toBe(now());
    expect(slim.presences![String(user('iago').user_id)]).toEqual({ active_timestamp: now(), idle_timestamp: now() });
    const legacy = await registerQueue(as('hamlet'), { fetchEventTypes: ['presence'] });
    expect(legacy.presences![user('iago').email]).toMatchObject({ aggregated: { status: 'active' } });
    expect(validateResponse({ method: 'post', path: '/register' }, 200, legacy, { allowExtra: ['presence_last_update_id'] })).toEqual({
      valid: true,
      errors: '',
    });
    const without = await registerQueue(as('hamlet'), { fetchEventTypes: ['message'] });
    expect(without).not.toHaveProperty('presences');
  });
});

describe('POST /users/me/presence ping_only', () => {
  it('answers no presence data but presence_last_update_id, as the API spec says (issue 17), and still records the presence', async () => {
    const t = setupEmulator();
    // Zulip's view answers a bare success; the spec (https://zulip.com/api/update-presence) wins:
    // no data returned, so the id is the one sent (never less), or -1 when none was sent.
    const body = await updatePresence(t.as('shiva'), { status: 'active', pingOnly: true, lastUpdateId: 7 });
    expect(body).toEqual({ result: 'success', msg: '', presence_last_update_id: 7 });
    expect(t.store.presence.has(t.user('shiva').user_id)).toBe(true);
  });
});
