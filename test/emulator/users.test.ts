/**
 * The emulator's user endpoints, driven through the REST bindings in src/zulip/routes/users.ts:
 * listing and lookup (visibility of real emails, gravatar rule, profile data, guests with limited
 * access), the administrative update and deactivation with every documented error, the
 * `realm_user` events and who receives them, and the register state.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import { addUser, insertMessage } from '../../src/emulator/factory.js';
import type { ZulipConnection } from '../../src/zulip/connection.js';
import type { User } from '../../src/zulip/model/users.js';
import {
  deactivateUser,
  getOwnUser,
  getUser,
  getUserByEmail,
  getUsers,
  updateUser,
  updateUserByEmail,
} from '../../src/zulip/routes/users.js';
import { caughtApiError, eventsOf, expectValidResponse, registerEventQueue, setupEmulator } from '../helpers/emulator.js';
import { json } from '../../src/zulip/params.js';

const START = Date.UTC(2026, 0, 1);

function setup() {
  const t = setupEmulator({ clock: new ManualClock(START) });
  const { store } = t;
  const connect = (email: string, apiKey: string) => t.connect({ email, apiKey });
  const botId = [...store.users.values()].find((u) => u.is_bot)!.user_id;
  /** Limits guests to the users they share a channel or a conversation with. */
  const limitGuests = () => {
    store.realm.settings.can_access_all_users_group = store.systemGroupId('role:members');
  };
  return { ...t, connect, id: t.userId, record: t.user, botId, limitGuests };
}

const registerQueue = (conn: ZulipConnection, eventTypes = ['realm_user']) => registerEventQueue(conn, eventTypes);

const byId = (members: User[], userId: number) => members.find((u) => u.user_id === userId)!;

describe('GET /users', () => {
  it('lists every user, deactivated ones and bots included, in the documented shape', async () => {
    const { as, store, id, botId } = setup();
    const body = await getUsers(as('hamlet'));
    expectValidResponse('GET', '/users', body);
    expect(body.members.map((u) => u.user_id)).toEqual([...store.users.keys()].sort((a, b) => a - b));
    const lear = byId(body.members, id('lear'));
    expect(lear).toMatchObject({ is_active: false, full_name: 'King Lear' });
    const bot = byId(body.members, botId);
    expect(bot).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: id('hamlet'), delivery_email: 'hamlet-bot@zulip.example.com' });
    const hamlet = byId(body.members, id('hamlet'));
    expect(hamlet).toMatchObject({ is_bot: false, bot_type: null, role: 400, timezone: 'UTC' });
    expect(hamlet).not.toHaveProperty('bot_owner_id');
    expect(hamlet).not.toHaveProperty('profile_data');
  });

  it('keeps is_owner / is_admin / is_guest consistent with role', async () => {
    const { as } = setup();
    const { members } = await getUsers(as('iago'));
    for (const u of members) {
      expect(u.is_owner).toBe(u.role === 100);
      expect(u.is_admin).toBe(u.role <= 200);
      expect(u.is_guest).toBe(u.role === 600);
    }
    expect(new Set(members.map((u) => u.role))).toEqual(new Set([100, 200, 300, 400, 600]));
  });

  it('hides a real email from those its visibility setting excludes, behind the placeholder API email', async () => {
    const { as, id } = setup();
    const cordelia = id('cordelia');
    const asMember = byId((await getUsers(as('hamlet'))).members, cordelia);
    expect(asMember.email).toBe(`user${cordelia}@zulip.example.com`);
    expect(asMember.delivery_email).toBeNull();
    const asAdmin = byId((await getUsers(as('iago'))).members, cordelia);
    expect(asAdmin.email).toBe(`user${cordelia}@zulip.example.com`);
    expect(asAdmin.delivery_email).toBe('cordelia@zulip.example.com');
    // Everyone sees the real email of users whose visibility is "everyone".
    expect(byId((await getUsers(as('polonius'))).members, id('iago')).delivery_email).toBe('iago@zulip.example.com');
  });

  it('leaves avatar_url null only with client_gravatar when the real email is visible', async () => {
    const { as, id, record } = setup();
    record('othello').avatar_source = 'U';
    const gravatarDefault = (await getUsers(as('hamlet'))).members;
    expect(byId(gravatarDefault, id('iago')).avatar_url).toBeNull();
    // Hidden email: the client could not compute the gravatar, so the server sends it.
    expect(byId(gravatarDefault, id('cordelia')).avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
    expect(byId(gravatarDefault, id('othello')).avatar_url).toMatch(/^http:\/\/emulator\.test\/user_avatars\/.+\.png\?version=1$/);
    const explicit = (await getUsers(as('hamlet'), { clientGravatar: false })).members;
    expect(explicit.every((u) => typeof u.avatar_url === 'string')).toBe(true);
  });

  it('includes profile_data for non-bots only when asked', async () => {
    const { as, id, botId } = setup();
    const body = await getUsers(as('hamlet'), { includeCustomProfileFields: true });
    expectValidResponse('GET', '/users', body);
    expect(byId(body.members, id('hamlet')).profile_data).toEqual({
      '1': { value: 'Prince of Denmark', rendered_value: '<p>Prince of Denmark</p>' },
    });
    expect(byId(body.members, id('iago')).profile_data).toEqual({});
    expect(byId(body.members, botId)).not.toHaveProperty('profile_data');
  });

  it('shows a guest with limited access only the users it can access', async () => {
    const { as, store, id, botId, limitGuests, clock } = setup();
    const loner = addUser(store, { full_name: 'Lonely Rosencrantz', delivery_email: 'rosencrantz@zulip.example.com' }, clock.now());
    const penPal = addUser(store, { full_name: 'Guildenstern', delivery_email: 'guildenstern@zulip.example.com' }, clock.now());
    insertMessage(store, { sender_id: penPal.user_id, to_user_ids: [id('polonius')], content: 'Hello', timestamp: START / 1000 });

    const before = (await getUsers(as('polonius'))).members.map((u) => u.user_id);
    expect(before).toContain(loner.user_id);

    limitGuests();
    const seen = (await getUsers(as('polonius'))).members.map((u) => u.user_id);
    expect(seen).not.toContain(loner.user_id);
    expect(seen).not.toContain(id('lear')); // deactivated, shares no channel
    expect(seen).toEqual(expect.arrayContaining([id('polonius'), id('hamlet'), botId, penPal.user_id]));
    // Members are not limited.
    expect((await getUsers(as('hamlet'))).members.map((u) => u.user_id)).toContain(loner.user_id);
    const e = await caughtApiError(getUser(as('polonius'), { userId: loner.user_id }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Insufficient permission', 400]);
  });
});

describe('GET /users/{user_id} and GET /users/{email}', () => {
  it('returns one user by ID, deactivated ones and bots too', async () => {
    const { as, id, botId } = setup();
    const body = await getUser(as('hamlet'), { userId: id('othello'), includeCustomProfileFields: true });
    expectValidResponse('GET', `/users/${id('othello')}`, body);
    expect(body.user).toMatchObject({ user_id: id('othello'), full_name: 'Othello, the Moor of Venice', profile_data: {} });
    expect((await getUser(as('hamlet'), { userId: id('lear') })).user.is_active).toBe(false);
    expect((await getUser(as('hamlet'), { userId: botId })).user.is_bot).toBe(true);
  });

  it('answers BAD_REQUEST "No such user" for an unknown ID', async () => {
    const { as } = setup();
    const e = await caughtApiError(getUser(as('hamlet'), { userId: 9999 }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'No such user', 400]);
  });

  it('finds a user by API email, case-insensitively', async () => {
    const { as, id } = setup();
    const body = await getUserByEmail(as('hamlet'), { email: 'IAGO@zulip.example.com' });
    expectValidResponse('GET', '/users/iago@zulip.example.com', body);
    expect(body.user.user_id).toBe(id('iago'));
  });

  it('finds a user with a hidden email by placeholder, and by real address only for those who may see it', async () => {
    const { as, id } = setup();
    const cordelia = id('cordelia');
    expect((await getUserByEmail(as('hamlet'), { email: `user${cordelia}@zulip.example.com` })).user.user_id).toBe(cordelia);
    expect((await getUserByEmail(as('iago'), { email: 'cordelia@zulip.example.com' })).user.user_id).toBe(cordelia);
    const e = await caughtApiError(getUserByEmail(as('hamlet'), { email: 'cordelia@zulip.example.com' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'No such user']);
  });

  it('answers "No such user" for an unknown email', async () => {
    const { as } = setup();
    const e = await caughtApiError(getUserByEmail(as('hamlet'), { email: 'nobody@zulip.example.com' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'No such user']);
  });
});

describe('GET /users/me', () => {
  it("returns the caller's own data with the real email", async () => {
    const { as, id } = setup();
    const body = await getOwnUser(as('cordelia'));
    expectValidResponse('GET', '/users/me', body);
    expect(body).toMatchObject({
      user_id: id('cordelia'),
      email: `user${id('cordelia')}@zulip.example.com`,
      delivery_email: 'cordelia@zulip.example.com',
      role: 400,
      is_admin: false,
      is_owner: false,
      is_bot: false,
      is_active: true,
    });
    expect(body.avatar_url).toMatch(/^https:/);
    expect(body.max_message_id).toBeGreaterThan(0);
  });
});

describe('PATCH /users/{user_id}', () => {
  it('lets an administrator rename a user and tells those who can access the user', async () => {
    const { as, id, record } = setup();
    const hamlet = as('hamlet');
    const queue = await registerQueue(hamlet);
    const body = await updateUser(as('iago'), { userId: id('othello'), fullName: '  Othello the General ' });
    expectValidResponse('PATCH', `/users/${id('othello')}`, body);
    expect(record('othello').full_name).toBe('Othello the General');
    expect(await eventsOf(hamlet, queue)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: id('othello'), full_name: 'Othello the General' } },
    ]);
  });

  it('refuses non-administrators with BAD_REQUEST and changes nothing', async () => {
    const { as, id, record } = setup();
    const e = await caughtApiError(updateUser(as('hamlet'), { userId: id('othello'), fullName: 'Hacked' }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Insufficient permission', 400]);
    const m = await caughtApiError(updateUser(as('shiva'), { userId: id('othello'), role: 300 }));
    expect(m.code).toBe('BAD_REQUEST');
    expect(record('othello')).toMatchObject({ full_name: 'Othello, the Moor of Venice', role: 400 });
  });

  it('refuses to make a guest an administrator (the spec example)', async () => {
    const { as, id, record } = setup();
    const e = await caughtApiError(updateUser(as('iago'), { userId: id('polonius'), role: 200 }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['BAD_REQUEST', 'Guests cannot be organization administrators', 400]);
    expect(e.data).toEqual({});
    expect(record('polonius').role).toBe(600);
    // A guest may still become a member.
    await updateUser(as('iago'), { userId: id('polonius'), role: 400 });
    expect(record('polonius').role).toBe(400);
  });

  it('lets only owners add or remove the owner role', async () => {
    const { as, id, record } = setup();
    const e = await caughtApiError(updateUser(as('iago'), { userId: id('hamlet'), role: 100 }));
    expect([e.code, e.message, e.httpStatus]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400]);
    const demote = await caughtApiError(updateUser(as('iago'), { userId: id('desdemona'), role: 400 }));
    expect(demote.code).toBe('UNAUTHORIZED_PRINCIPAL');
    expect(record('hamlet').role).toBe(400);
    await updateUser(as('desdemona'), { userId: id('hamlet'), role: 100 });
    expect(record('hamlet').role).toBe(100);
  });

  it('never takes the owner role from the only owner; a second owner makes it possible', async () => {
    const { as, id, record } = setup();
    const e = await caughtApiError(updateUser(as('desdemona'), { userId: id('desdemona'), role: 200 }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'The owner permission cannot be removed from the only organization owner.']);
    expect(record('desdemona').role).toBe(100);
    await updateUser(as('desdemona'), { userId: id('iago'), role: 100 });
    await updateUser(as('iago'), { userId: id('desdemona'), role: 200 });
    expect(record('desdemona').role).toBe(200);
  });

  it('rejects an unknown role and an unknown user', async () => {
    const { as, id } = setup();
    const e = await caughtApiError(updateUser(as('iago'), { userId: id('hamlet'), role: 500 as 400 }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid role']);
    const u = await caughtApiError(updateUser(as('iago'), { userId: 9999, fullName: 'Ghost' }));
    expect([e.code, u.message]).toEqual(['BAD_REQUEST', 'No such user']);
  });

  it('sends the role event and moves the user between system groups', async () => {
    const { as, id, store } = setup();
    const othello = as('othello');
    const queue = await registerQueue(othello, ['realm_user', 'user_group']);
    await updateUser(as('iago'), { userId: id('hamlet'), role: 300 });
    expect(await eventsOf(othello, queue)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: id('hamlet'), role: 300 } },
      { type: 'user_group', op: 'remove_members', group_id: store.systemGroupId('role:fullmembers'), user_ids: [id('hamlet')] },
      { type: 'user_group', op: 'add_members', group_id: store.systemGroupId('role:moderators'), user_ids: [id('hamlet')] },
    ]);
    expect(store.groupMembersRecursive(store.systemGroupId('role:moderators')).has(id('hamlet'))).toBe(true);
  });

  it('validates full names', async () => {
    const { as, id, record } = setup();
    const long = await caughtApiError(updateUser(as('iago'), { userId: id('othello'), fullName: 'x'.repeat(101) }));
    expect([long.code, long.message]).toEqual(['BAD_REQUEST', 'Name too long!']);
    const bad = await caughtApiError(updateUser(as('iago'), { userId: id('othello'), fullName: 'Evil *bold*' }));
    expect(bad.message).toBe('Invalid characters in name!');
    expect(record('othello').full_name).toBe('Othello, the Moor of Venice');
  });

  it('sets and clears custom profile fields, one event per field', async () => {
    const { as, id, record } = setup();
    const cordelia = as('cordelia');
    const queue = await registerQueue(cordelia);
    await updateUser(as('iago'), {
      userId: id('hamlet'),
      profileData: [
        { id: 2, value: '+1 555 0100' },
        { id: 1, value: null },
        { id: 3, value: '1600-01-01' },
      ],
    });
    expect(record('hamlet').profile_data).toEqual({
      '2': { value: '+1 555 0100', rendered_value: '<p>+1 555 0100</p>' },
      '3': { value: '1600-01-01' },
    });
    const person = (field: Record<string, unknown>) => ({ type: 'realm_user', op: 'update', person: { user_id: id('hamlet'), custom_profile_field: field } });
    expect(await eventsOf(cordelia, queue)).toEqual([
      person({ id: 2, value: '+1 555 0100', rendered_value: '<p>+1 555 0100</p>' }),
      person({ id: 1, value: null }),
      person({ id: 3, value: '1600-01-01' }),
    ]);
  });

  it('rejects an unknown profile field or a bad value without applying any change of the request', async () => {
    const { as, id, record } = setup();
    const unknown = await caughtApiError(updateUser(as('iago'), { userId: id('hamlet'), fullName: 'Prince Hamlet', profileData: [{ id: 99, value: 'x' }] }));
    expect([unknown.code, unknown.message]).toEqual(['BAD_REQUEST', 'Field id 99 not found.']);
    const date = await caughtApiError(updateUser(as('iago'), { userId: id('hamlet'), role: 300, profileData: [{ id: 3, value: 'yesterday' }] }));
    expect(date.message).toBe('Birthday is not a date');
    expect(record('hamlet')).toMatchObject({ full_name: 'King Hamlet', role: 400 });
    expect(record('hamlet').profile_data).toEqual({ '1': { value: 'Prince of Denmark', rendered_value: '<p>Prince of Denmark</p>' } });
  });

  it('changes an email only for an owner holding can_change_user_emails', async () => {
    const { as, id, record } = setup();
    const refused = await caughtApiError(updateUser(as('desdemona'), { userId: id('othello'), newEmail: 'moor@zulip.example.com' }));
    expect([refused.code, refused.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    record('iago').can_change_user_emails = true;
    const admin = await caughtApiError(updateUser(as('iago'), { userId: id('othello'), newEmail: 'moor@zulip.example.com' }));
    expect(admin.code).toBe('BAD_REQUEST');
    expect(record('othello').delivery_email).toBe('othello@zulip.example.com');

    record('desdemona').can_change_user_emails = true;
    const hamlet = as('hamlet');
    const queue = await registerQueue(hamlet);
    await updateUser(as('desdemona'), { userId: id('othello'), newEmail: 'moor@zulip.example.com' });
    expect(record('othello')).toMatchObject({ delivery_email: 'moor@zulip.example.com', email: 'moor@zulip.example.com' });
    expect(await eventsOf(hamlet, queue)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: id('othello'), delivery_email: 'moor@zulip.example.com' } },
      { type: 'realm_user', op: 'update', person: { user_id: id('othello'), new_email: 'moor@zulip.example.com' } },
    ]);
    const taken = await caughtApiError(updateUser(as('desdemona'), { userId: id('othello'), newEmail: 'iago@zulip.example.com' }));
    expect([taken.code, taken.message]).toEqual(['BAD_REQUEST', "Email 'iago@zulip.example.com' already in use"]);
    const invalid = await caughtApiError(updateUser(as('desdemona'), { userId: id('othello'), newEmail: 'not an address' }));
    expect(invalid.code).toBe('BAD_REQUEST');
  });

  it('sends a hidden email change only to those who may see it, and no new_email event', async () => {
    const { as, id, record } = setup();
    record('desdemona').can_change_user_emails = true;
    const hamlet = as('hamlet');
    const iago = as('iago');
    const hamletQueue = await registerQueue(hamlet);
    const iagoQueue = await registerQueue(iago);
    await updateUser(as('desdemona'), { userId: id('cordelia'), newEmail: 'cordelia.lear@zulip.example.com' });
    expect(record('cordelia').email).toBe(`user${id('cordelia')}@zulip.example.com`);
    expect(await eventsOf(hamlet, hamletQueue)).toEqual([]);
    expect(await eventsOf(iago, iagoQueue)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: id('cordelia'), delivery_email: 'cordelia.lear@zulip.example.com' } },
    ]);
  });
});

describe('PATCH /users/{email}', () => {
  it('updates a user addressed by API email, and by real address when the administrator sees it', async () => {
    const { as, id, record } = setup();
    const body = await updateUserByEmail(as('iago'), { email: 'othello@zulip.example.com', fullName: 'Othello' });
    expectValidResponse('PATCH', `/users/${id('othello')}`, body);
    expect(record('othello').full_name).toBe('Othello');
    await updateUserByEmail(as('iago'), { email: 'cordelia@zulip.example.com', fullName: 'Cordelia' });
    expect(record('cordelia').full_name).toBe('Cordelia');
    const e = await caughtApiError(updateUserByEmail(as('iago'), { email: 'ghost@zulip.example.com', fullName: 'Ghost' }));
    expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'No such user']);
  });
});

describe('DELETE /users/{user_id}', () => {
  it('deactivates a user, tells those who can access it, and drops it from group member lists', async () => {
    const { as, id, store, record } = setup();
    const hamlet = as('hamlet');
    const queue = await registerQueue(hamlet, ['realm_user', 'user_group']);
    const players = store.groupByName('players')!;
    const body = await deactivateUser(as('iago'), { userId: id('othello') });
    expectValidResponse('DELETE', `/users/${id('othello')}`, body);
    expect(record('othello').is_active).toBe(false);
    expect(await eventsOf(hamlet, queue)).toEqual([{ type: 'realm_user', op: 'update', person: { user_id: id('othello'), is_active: false } }]);
    const { user_groups } = await hamlet.request<{ user_groups: { id: number; members: number[] }[] }>('get-user-groups', 'GET', 'user_groups');
    expect(user_groups.find((g) => g.id === players.id)!.members).not.toContain(id('othello'));
    expect((await getUser(hamlet, { userId: id('othello') })).user.is_active).toBe(false);
    // The deactivated account can no longer authenticate.
    const login = await caughtApiError(getOwnUser(as('othello')));
    expect([login.code, login.httpStatus]).toEqual(['USER_DEACTIVATED', 401]);
  });

  it("deactivates the user's bots with it", async () => {
    const { as, id, record, botId, store } = setup();
    await deactivateUser(as('iago'), { userId: id('hamlet') });
    expect(record('hamlet').is_active).toBe(false);
    expect(store.users.get(botId)!.is_active).toBe(false);
  });

  it('refuses to deactivate the only owner, and lets only owners deactivate owners', async () => {
    const { as, id, record } = setup();
    const last = await caughtApiError(deactivateUser(as('desdemona'), { userId: id('desdemona') }));
    expect([last.code, last.message, last.httpStatus]).toEqual(['BAD_REQUEST', 'Cannot deactivate the only organization owner', 400]);
    await updateUser(as('desdemona'), { userId: id('shiva'), role: 100 });
    const byAdmin = await caughtApiError(deactivateUser(as('iago'), { userId: id('shiva') }));
    expect([byAdmin.code, byAdmin.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
    await deactivateUser(as('desdemona'), { userId: id('shiva') });
    expect(record('shiva').is_active).toBe(false);
    expect(record('desdemona').is_active).toBe(true);
  });

  it('refuses non-administrators, deactivated users, bots and unknown IDs', async () => {
    const { as, id, botId, record } = setup();
    const member = await caughtApiError(deactivateUser(as('hamlet'), { userId: id('othello') }));
    expect([member.code, member.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    expect(record('othello').is_active).toBe(true);
    expect((await caughtApiError(deactivateUser(as('iago'), { userId: id('lear') }))).message).toBe('User is deactivated');
    expect((await caughtApiError(deactivateUser(as('iago'), { userId: botId }))).message).toBe('No such user');
    expect((await caughtApiError(deactivateUser(as('iago'), { userId: 9999 }))).message).toBe('No such user');
  });
});

describe('realm_user events reach only the queues that may see them', () => {
  it('leaves out a guest without access to the changed user', async () => {
    const { as, id, store, clock, limitGuests, connect } = setup();
    limitGuests();
    const stranger = addUser(store, { full_name: 'Fortinbras', delivery_email: 'fortinbras@zulip.example.com' }, clock.now());
    const hamlet = as('hamlet');
    const polonius = as('polonius');
    const hamletQueue = await registerQueue(hamlet);
    const poloniusQueue = await registerQueue(polonius);

    await updateUser(as('iago'), { userId: stranger.user_id, fullName: 'Fortinbras of Norway' });
    await updateUser(as('iago'), { userId: id('othello'), fullName: 'Othello' });

    const rename = (userId: number, name: string) => ({ type: 'realm_user', op: 'update', person: { user_id: userId, full_name: name } });
    expect(await eventsOf(hamlet, hamletQueue)).toEqual([rename(stranger.user_id, 'Fortinbras of Norway'), rename(id('othello'), 'Othello')]);
    expect(await eventsOf(polonius, poloniusQueue)).toEqual([rename(id('othello'), 'Othello')]);
    // The renamed stranger still authenticates with its key and sees its own name.
    const self = connect('fortinbras@zulip.example.com', stranger.api_key);
    expect((await getOwnUser(self)).full_name).toBe('Fortinbras of Norway');
  });
});

describe('POST /register', () => {
  async function register(conn: ZulipConnection, fetchTypes: string[], capabilities: Record<string, boolean> = {}) {
    return conn.request<Record<string, unknown>>('register-queue', 'POST', 'register', {
      fetch_event_types: json(fetchTypes),
      event_types: json(fetchTypes),
      client_capabilities: json({ notification_settings_null: true, ...capabilities }),
    });
  }

  it('returns realm_users, realm_non_active_users, cross_realm_bots and the own-user fields', async () => {
    const { as, id, store } = setup();
    const state = await register(as('shiva'), ['realm_user']);
    const realmUsers = state.realm_users as User[];
    expect(realmUsers.map((u) => u.user_id)).toEqual([...store.users.values()].filter((u) => u.is_active).map((u) => u.user_id));
    expect(realmUsers.find((u) => u.user_id === id('hamlet'))!.profile_data).toEqual({
      '1': { value: 'Prince of Denmark', rendered_value: '<p>Prince of Denmark</p>' },
    });
    expect((state.realm_non_active_users as User[]).map((u) => u.user_id)).toEqual([id('lear')]);
    expect(state.cross_realm_bots).toEqual([]);
    expect(state).toMatchObject({
      user_id: id('shiva'),
      email: 'shiva@zulip.example.com',
      delivery_email: 'shiva@zulip.example.com',
      full_name: 'Shiva',
      is_admin: false,
      is_owner: false,
      is_moderator: true,
      is_guest: false,
    });
    expect(state.avatar_url).toMatch(/^https:/);
    expect(state).not.toHaveProperty('realm_bots');
  });

  it('lists bots in realm_bots for their owner and for administrators only', async () => {
    const { as, botId } = setup();
    const owner = await register(as('hamlet'), ['realm_bot']);
    expect((owner.realm_bots as { user_id: number; owner_id: number }[]).map((b) => b.user_id)).toEqual([botId]);
    const admin = await register(as('iago'), ['realm_bot']);
    expect((admin.realm_bots as unknown[]).length).toBe(1);
    expect((await register(as('othello'), ['realm_bot'])).realm_bots).toEqual([]);
  });

  it('gives a limited guest placeholders, or nothing with user_list_incomplete', async () => {
    const { as, store, clock, limitGuests } = setup();
    limitGuests();
    const stranger = addUser(store, { full_name: 'Fortinbras', delivery_email: 'fortinbras@zulip.example.com' }, clock.now());
    const legacy = (await register(as('polonius'), ['realm_user'])).realm_users as User[];
    expect(legacy.find((u) => u.user_id === stranger.user_id)).toMatchObject({
      full_name: 'Unknown user',
      email: `user${stranger.user_id}@zulip.example.com`,
      delivery_email: null,
    });
    const modern = (await register(as('polonius'), ['realm_user'], { user_list_incomplete: true })).realm_users as User[];
    expect(modern.map((u) => u.user_id)).not.toContain(stranger.user_id);
  });
});

describe('GET /users user_ids by feature level', () => {
  it('returns only the listed users from feature level 384 (Zulip 11.0)', async () => {
    const t = setupEmulator({ settings: { featureLevel: 384 } });
    const ids = [t.user('othello').user_id, t.user('iago').user_id];
    const body = await t.as('hamlet').request<{ members: User[]; ignored_parameters_unsupported?: string[] }>('get-users', 'GET', 'users', { user_ids: json(ids) });
    expect(body.members.map((u) => u.user_id)).toEqual([...ids].sort((a, b) => a - b));
    expect(body.ignored_parameters_unsupported).toBeUndefined();
  });

  it('ignores user_ids below feature level 384 and says so, as an older server does', async () => {
    const t = setupEmulator({ settings: { featureLevel: 383 } });
    const body = await t.as('hamlet').request<{ members: User[]; ignored_parameters_unsupported?: string[] }>('get-users', 'GET', 'users', {
      user_ids: json([t.user('othello').user_id]),
    });
    expect(body.members.length).toBeGreaterThan(1);
    expect(body.ignored_parameters_unsupported).toEqual(['user_ids']);
  });
});
