/**
 * Users end to end: GraphQL → gateway → REST → emulator. Queries (`users`, `user`, `userByEmail`,
 * `me`), the `updateUser` and `deactivateUser` mutations with their errors, feature-level gates,
 * upstream request counts, and the events other clients receive after a change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { getOwnUser } from '../../../src/zulip/routes/users.js';
import { createHarness, setupHarness, TEST_LIVE_DIRECTORY } from '../../helpers/harness.js';
import { caughtUp, rest } from '../../helpers/unreads.js';
import { json, raw } from '../../../src/zulip/params.js';

const EMAIL = (login: string) => `${login}@zulip.example.com`;

interface GqlUser {
  zulipId: number;
  email: string;
  deliveryEmail: string | null;
  fullName: string;
  role: string;
  isActive: boolean;
  isBot: boolean;
  botType: string | null;
  botOwner: { zulipId: number; fullName: string } | null;
  profileData: { fieldId: number; value: string; renderedValue: string | null }[];
}

const USER_FIELDS = /* GraphQL */ `
  zulipId email deliveryEmail fullName dateJoined isActive role isBot botType timezone avatarUrl avatarVersion
  botOwner { zulipId fullName }
`;

describe('users queries', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('lists active users with nested bot owners for exactly one upstream request', async () => {
    h.resetUpstreamRequests();
    const { data, errors, extensions } = await h.gql<{ users: GqlUser[] }>(`{ users { ${USER_FIELDS} } }`, {}, { as: EMAIL('hamlet') });
    expect(errors).toBeUndefined();
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET users']);
    expect(extensions).toMatchObject({ upstreamRequests: 1 });
    const users = data!.users;
    expect(users.map((u) => u.zulipId)).toEqual([...h.emulator.store.users.values()].filter((u) => u.is_active).map((u) => u.user_id));
    const bot = users.find((u) => u.isBot)!;
    expect(bot).toMatchObject({ botType: 'GENERIC', botOwner: { zulipId: h.userId('hamlet'), fullName: 'King Hamlet' } });
    expect(users.find((u) => u.zulipId === h.userId('desdemona'))).toMatchObject({ role: 'OWNER', botType: null, botOwner: null });
    expect(new Set(users.map((u) => u.role))).toEqual(new Set(['OWNER', 'ADMINISTRATOR', 'MODERATOR', 'MEMBER', 'GUEST']));
  });

  it('includes deactivated users on request', async () => {
    const { data } = await h.gql<{ users: GqlUser[] }>('{ users(includeDeactivated: true) { zulipId isActive } }');
    expect(data!.users.find((u) => u.zulipId === h.userId('lear'))).toEqual({ zulipId: h.userId('lear'), isActive: false });
  });

  it('shows the real email only to those allowed to see it', async () => {
    const query = '{ user(id: $id) { email deliveryEmail } }'.replace('$id', String(h.userId('cordelia')));
    const cordelia = h.userId('cordelia');
    const asMember = await h.gql<{ user: GqlUser }>(query, {}, { as: EMAIL('hamlet') });
    expect(asMember.data!.user).toEqual({ email: `user${cordelia}@zulip.example.com`, deliveryEmail: null });
    const asAdmin = await h.gql<{ user: GqlUser }>(query, {}, { as: EMAIL('iago') });
    expect(asAdmin.data!.user.deliveryEmail).toBe('cordelia@zulip.example.com');
  });

  it('returns one user by ID with profile data, and NOT_FOUND for an unknown ID', async () => {
    const { data, errors } = await h.gql<{ user: GqlUser; ghost: GqlUser | null }>(
      'query($id: Long!) { user(id: $id) { fullName profileData { fieldId value renderedValue } } ghost: user(id: 9999) { zulipId } }',
      { id: h.userId('hamlet') },
    );
    expect(data!.user).toEqual({
      fullName: 'King Hamlet',
      profileData: [{ fieldId: 1, value: 'Prince of Denmark', renderedValue: '<p>Prince of Denmark</p>' }],
    });
    expect(data!.ghost).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors![0]).toMatchObject({ path: ['ghost'], extensions: { code: 'NOT_FOUND' } });
  });

  it('finds a user by email', async () => {
    const { data, errors } = await h.gql<{ a: GqlUser; b: GqlUser }>(
      `{ a: userByEmail(email: "othello@zulip.example.com") { zulipId fullName } b: userByEmail(email: "cordelia@zulip.example.com") { zulipId } }`,
      {},
      { as: EMAIL('iago') },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ a: { zulipId: h.userId('othello'), fullName: 'Othello, the Moor of Venice' }, b: { zulipId: h.userId('cordelia') } });
    const hidden = await h.gql('{ userByEmail(email: "cordelia@zulip.example.com") { zulipId } }', {}, { as: EMAIL('hamlet') });
    expect(hidden.errors![0]!.extensions).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, route: 'get-user-by-email' });
    expect(hidden.errors![0]!.message).toBe('No such user');
  });

  it('answers me with the caller', async () => {
    const { data, errors } = await h.gql<{ me: { zulipId: number; user: GqlUser } }>('{ me { zulipId user { fullName role deliveryEmail } } }', {}, { as: EMAIL('shiva') });
    expect(errors).toBeUndefined();
    expect(data!.me).toEqual({ zulipId: h.userId('shiva'), user: { fullName: 'Shiva', role: 'MODERATOR', deliveryEmail: 'shiva@zulip.example.com' } });
  });

  // The same answer from the caller's live directory (no call) as from GET /users/me (one call).
  describe.each([
    ['on', true],
    ['off', false],
  ] as const)('me with the live directory %s', (_, liveDirectory) => {
    it.runIf(TEST_LIVE_DIRECTORY || !liveDirectory).each(['desdemona', 'polonius', 'cordelia'])('answers %s as GET /users/me does', async (login) => {
      const own = setupHarness({ gateway: { liveDirectory } });
      const query = `{ me { id zulipId user { id ${USER_FIELDS} } node: user { zulipId } } }`;
      const first = await own.gql(query, {}, { as: EMAIL(login) });
      expect(first.errors).toBeUndefined();
      if (liveDirectory) await caughtUp(own, login);
      own.resetUpstreamRequests();
      const { data, errors } = await own.gql<{ me: { id: string; zulipId: number } }>(query, {}, { as: EMAIL(login) });
      expect(errors).toBeUndefined();
      const calls = own.upstreamRequests.map((r) => `${r.method} ${r.path}`);
      // Off, `user` costs its own lookup (users.ts picks which); `me` is the one GET /users/me.
      if (liveDirectory) expect(calls).toEqual([]);
      else expect([calls.length, calls.filter((c) => c === 'GET users/me')]).toEqual([2, ['GET users/me']]);
      expect(data).toEqual(first.data);
      const server = await getOwnUser(rest(own, login));
      expect(data!.me.zulipId).toBe(server.user_id);
      // The global id round-trips through node(id:), from the same source.
      own.resetUpstreamRequests();
      const node = await own.gql<{ node: { zulipId: number } }>('query($id: ID!) { node(id: $id) { ... on Me { zulipId } } }', { id: data!.me.id }, { as: EMAIL(login) });
      expect(node.data).toEqual({ node: { zulipId: server.user_id } });
      expect(own.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(liveDirectory ? [] : ['GET users/me']);
    });
  });

  it('marks the REST role booleans as deprecated', async () => {
    const { data } = await h.gql<{ __type: { fields: { name: string; deprecationReason: string | null }[] } }>(
      '{ __type(name: "User") { fields(includeDeprecated: true) { name deprecationReason } } }',
    );
    const deprecated = data!.__type.fields.filter((f) => f.deprecationReason).map((f) => f.name);
    expect(deprecated.sort()).toEqual(['isAdmin', 'isGuest', 'isOwner']);
  });
});

describe('userByEmail on an older server', () => {
  it('fails with UNSUPPORTED_BY_SERVER naming feature level 302, without calling the endpoint', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 301 } });
    const { errors } = await h.gql('{ userByEmail(email: "othello@zulip.example.com") { zulipId } }');
    expect(errors![0]!.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 302, featureLevel: 301 });
    expect(errors![0]!.message).toContain('302');
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
  });
});

const UPDATE = /* GraphQL */ `
  mutation($user: UserLookupInput!, $fullName: String, $role: Role, $profileData: [ProfileDataInput!], $newEmail: String) {
    updateUser(user: $user, fullName: $fullName, role: $role, profileData: $profileData, newEmail: $newEmail) {
      zulipId fullName role email deliveryEmail profileData { fieldId value }
    }
  }
`;

describe('updateUser', () => {
  it('renames and changes the role of a user by ID, returning the updated user', async () => {
    const h = setupHarness();
    const othello = h.userId('othello');
    const { data, errors } = await h.gql<{ updateUser: GqlUser }>(UPDATE, { user: { id: othello }, fullName: 'Othello', role: 'MODERATOR' }, { as: EMAIL('iago') });
    expect(errors).toBeUndefined();
    expect(data!.updateUser).toMatchObject({ zulipId: othello, fullName: 'Othello', role: 'MODERATOR' });
    expect(h.emulator.store.users.get(othello)).toMatchObject({ full_name: 'Othello', role: 300 });
  });

  it('updates a user addressed by email and sets profile data', async () => {
    const h = setupHarness();
    const { data, errors } = await h.gql<{ updateUser: GqlUser }>(
      UPDATE,
      { user: { email: 'cordelia@zulip.example.com' }, profileData: [{ fieldId: 2, value: '555-0100' }] },
      { as: EMAIL('iago') },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateUser).toMatchObject({ zulipId: h.userId('cordelia'), profileData: [{ fieldId: 2, value: '555-0100' }] });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toContain(`PATCH users/${encodeURIComponent('cordelia@zulip.example.com')}`);
  });

  it('changes an email for an owner holding can_change_user_emails', async () => {
    const h = setupHarness();
    h.emulator.store.users.get(h.userId('desdemona'))!.can_change_user_emails = true;
    const othello = h.userId('othello');
    const { data, errors } = await h.gql<{ updateUser: GqlUser }>(UPDATE, { user: { id: othello }, newEmail: 'moor@zulip.example.com' });
    expect(errors).toBeUndefined();
    expect(data!.updateUser).toMatchObject({ email: 'moor@zulip.example.com', deliveryEmail: 'moor@zulip.example.com' });
  });

  it('refuses to make a guest an administrator with BAD_REQUEST', async () => {
    const h = setupHarness();
    const { data, errors } = await h.gql(UPDATE, { user: { id: h.userId('polonius') }, role: 'ADMINISTRATOR' }, { as: EMAIL('iago') });
    expect(data).toBeNull();
    expect(errors![0]).toMatchObject({
      message: 'Guests cannot be organization administrators',
      path: ['updateUser'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'update-user' },
    });
    expect(h.emulator.store.users.get(h.userId('polonius'))!.role).toBe(600);
  });

  it('refuses non-administrators with BAD_REQUEST', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(UPDATE, { user: { id: h.userId('othello') }, fullName: 'Hacked' }, { as: EMAIL('hamlet') });
    expect(errors![0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST' } });
    expect(h.emulator.store.users.get(h.userId('othello'))!.full_name).toBe('Othello, the Moor of Venice');
  });

  it('never takes the owner role from the last owner, and lets only owners grant it', async () => {
    const h = setupHarness();
    const last = await h.gql(UPDATE, { user: { id: h.userId('desdemona') }, role: 'MEMBER' });
    expect(last.errors![0]).toMatchObject({
      message: 'The owner permission cannot be removed from the only organization owner.',
      extensions: { code: 'BAD_REQUEST' },
    });
    const byAdmin = await h.gql(UPDATE, { user: { id: h.userId('hamlet') }, role: 'OWNER' }, { as: EMAIL('iago') });
    expect(byAdmin.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHORIZED_PRINCIPAL', httpStatus: 400 });
  });

  it('validates the lookup and the changes before calling the server', async () => {
    const h = setupHarness();
    const both = await h.gql(UPDATE, { user: { id: 1, email: EMAIL('iago') }, fullName: 'x' });
    expect(both.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const neither = await h.gql(UPDATE, { user: {}, fullName: 'x' });
    expect(neither.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const nothing = await h.gql(UPDATE, { user: { id: 1 } });
    expect(nothing.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(h.upstreamRequests).toEqual([]);
  });

  it('needs feature level 313 to update by email', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 312 } });
    const { errors } = await h.gql(UPDATE, { user: { email: EMAIL('othello') }, fullName: 'Othello' }, { as: EMAIL('iago') });
    expect(errors![0]!.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 313 });
    expect(h.emulator.store.users.get(h.userId('othello'))!.full_name).toBe('Othello, the Moor of Venice');
    // By ID it still works.
    const byId = await h.gql(UPDATE, { user: { id: h.userId('othello') }, fullName: 'Othello' }, { as: EMAIL('iago') });
    expect(byId.errors).toBeUndefined();
  });
});

const DEACTIVATE = 'mutation($user: UserLookupInput!) { deactivateUser(user: $user) { zulipId isActive } }';

describe('deactivateUser', () => {
  it('deactivates a user by ID or by email and returns it inactive', async () => {
    const h = setupHarness();
    const { data, errors } = await h.gql(DEACTIVATE, { user: { id: h.userId('othello') } }, { as: EMAIL('iago') });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ deactivateUser: { zulipId: h.userId('othello'), isActive: false } });
    const byEmail = await h.gql(DEACTIVATE, { user: { email: EMAIL('shiva') } }, { as: EMAIL('iago') });
    expect(byEmail.data).toEqual({ deactivateUser: { zulipId: h.userId('shiva'), isActive: false } });
    const list = await h.gql<{ users: { zulipId: number }[] }>('{ users { zulipId } }', {}, { as: EMAIL('iago') });
    expect(list.data!.users.map((u) => u.zulipId)).not.toContain(h.userId('othello'));
  });

  it('refuses the last owner and non-administrators', async () => {
    const h = setupHarness();
    const last = await h.gql(DEACTIVATE, { user: { id: h.userId('desdemona') } });
    expect(last.errors![0]).toMatchObject({ message: 'Cannot deactivate the only organization owner', extensions: { code: 'BAD_REQUEST', route: 'deactivate-user' } });
    const member = await h.gql(DEACTIVATE, { user: { id: h.userId('othello') } }, { as: EMAIL('hamlet') });
    expect(member.errors![0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST' } });
    expect(h.emulator.store.users.get(h.userId('othello'))!.is_active).toBe(true);
  });
});

describe('events after a change made through the gateway', () => {
  it('reach the queues of users who can access the changed user, and no others', async () => {
    const h = setupHarness();
    const store = h.emulator.store;
    store.realm.settings.can_access_all_users_group = store.systemGroupId('role:members');
    const fetch = (input: string | URL | Request, init?: RequestInit) => h.emulator.fetch(new Request(input, init));
    const as = (login: string) => new ZulipConnection({ baseUrl: 'http://emulator.test', credentials: demoUser(login), fetch });
    const register = async (conn: ZulipConnection) =>
      (await conn.request<{ queue_id: string }>('register-queue', 'POST', 'register', { event_types: json(['realm_user']), fetch_event_types: json([]) })).queue_id;
    const poll = async (conn: ZulipConnection, queueId: string) =>
      (await conn.request<{ events: Record<string, unknown>[] }>('get-events', 'GET', 'events', { queue_id: raw(queueId), last_event_id: json(-1), dont_block: json(true) })).events.map(
        ({ id: _id, ...e }) => e,
      );
    const [othello, polonius] = [as('othello'), as('polonius')];
    const [othelloQueue, poloniusQueue] = [await register(othello), await register(polonius)];

    // Lear shares no channel with the guest Polonius; Hamlet does.
    await h.gql(UPDATE, { user: { id: h.userId('lear') }, fullName: 'Old King Lear' }, { as: EMAIL('iago') });
    await h.gql(DEACTIVATE, { user: { id: h.userId('hamlet') } }, { as: EMAIL('iago') });

    const botId = [...store.users.values()].find((u) => u.is_bot && u.bot_owner_id === h.userId('hamlet'))!.user_id;
    const renamed = { type: 'realm_user', op: 'update', person: { user_id: h.userId('lear'), full_name: 'Old King Lear' } };
    const deactivated = (userId: number) => ({ type: 'realm_user', op: 'update', person: { user_id: userId, is_active: false } });
    // Hamlet's bot is deactivated with him; everyone may access bots.
    expect(await poll(othello, othelloQueue)).toEqual([renamed, deactivated(h.userId('hamlet')), deactivated(botId)]);
    expect(await poll(polonius, poloniusQueue)).toEqual([deactivated(h.userId('hamlet')), deactivated(botId)]);
  });
});

describe('account lifecycle mutations', () => {
  const calls = (h: ReturnType<typeof setupHarness>) => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);

  it('createUser creates an account in one call, the user only when selected', async () => {
    const h = setupHarness();
    const created = await h.gql<{ createUser: { userId: number } }>(
      'mutation { createUser(email: "newbie@zulip.example.com", password: "correct horse", fullName: "New User") { userId } }',
      {},
      { as: EMAIL('desdemona') },
    );
    expect(created.errors).toBeUndefined();
    const userId = created.data!.createUser.userId;
    expect(h.emulator.store.users.get(userId)?.full_name).toBe('New User');
    expect(calls(h)).toEqual(['POST users']);
    h.resetUpstreamRequests();
    const selected = await h.gql<{ createUser: { user: { zulipId: number; fullName: string; isActive: boolean } } }>(
      'mutation { createUser(email: "second@zulip.example.com", password: "correct horse", fullName: "Second") { user { zulipId fullName isActive } } }',
      {},
      { as: EMAIL('desdemona') },
    );
    expect(selected.data?.createUser.user).toMatchObject({ fullName: 'Second', isActive: true });
    expect(calls(h).filter((c) => c !== 'GET server_settings')).toEqual(['POST users', `GET users/${selected.data!.createUser.user.zulipId}`]);
  });

  it('createUser refuses bad input before any call, and passes on the server\u2019s codes without the password', async () => {
    const h = setupHarness();
    for (const [args, argument] of [
      ['email: "nope", password: "correct horse", fullName: "New User"', 'email'],
      ['email: "a@zulip.example.com", password: "", fullName: "New User"', 'password'],
      ['email: "a@zulip.example.com", password: "correct horse", fullName: " x "', 'fullName'],
    ] as const) {
      const { errors } = await h.gql(`mutation { createUser(${args}) { userId } }`, {}, { as: EMAIL('desdemona') });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    expect(calls(h)).toEqual([]);
    const admin = await h.gql('mutation { createUser(email: "a@zulip.example.com", password: "s3cret-pass", fullName: "New User") { userId } }', {}, { as: EMAIL('hamlet') });
    expect(admin.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'create-user' } });
    const weak = await h.gql('mutation { createUser(email: "a@zulip.example.com", password: "abc", fullName: "New User") { userId } }', {}, { as: EMAIL('desdemona') });
    expect(weak.errors?.[0]).toMatchObject({ message: 'The password is too weak.', extensions: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify([admin, weak])).not.toContain('s3cret-pass');
  });

  it('deactivateOwnUser deactivates the caller in one call; the only owner gets CANNOT_DEACTIVATE_LAST_USER', async () => {
    const h = setupHarness();
    const done = await h.gql('mutation { deactivateOwnUser { ok } }', {}, { as: EMAIL('othello') });
    expect(done.data).toEqual({ deactivateOwnUser: { ok: true } });
    expect(calls(h)).toEqual(['DELETE users/me']);
    expect(h.emulator.store.users.get(h.userId('othello'))!.is_active).toBe(false);
    const owner = await h.gql('mutation { deactivateOwnUser { ok } }', {}, { as: EMAIL('desdemona') });
    expect(owner.errors?.[0]).toMatchObject({
      message: 'Cannot deactivate the only organization owner',
      extensions: { code: 'CANNOT_DEACTIVATE_LAST_USER', entity: 'organization owner', is_last_owner: true, route: 'deactivate-own-user' },
    });
  });

  it('reactivateUser reactivates and returns the user; members get Insufficient permission', async () => {
    const h = setupHarness();
    const lear = h.userId('lear');
    const refused = await h.gql('mutation ($id: Long!) { reactivateUser(userId: $id) { zulipId } }', { id: lear }, { as: EMAIL('hamlet') });
    expect(refused.errors?.[0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST', route: 'reactivate-user' } });
    h.resetUpstreamRequests();
    const done = await h.gql('mutation ($id: Long!) { reactivateUser(userId: $id) { zulipId isActive } }', { id: lear }, { as: EMAIL('iago') });
    expect(done.data).toEqual({ reactivateUser: { zulipId: lear, isActive: true } });
    expect(calls(h)).toEqual([`POST users/${lear}/reactivate`, `GET users/${lear}`]);
  });
});
