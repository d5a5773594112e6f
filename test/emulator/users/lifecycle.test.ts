/**
 * The emulator's account lifecycle, driven through src/zulip/routes/users.ts and user-status.ts:
 * creating users (can_create_users, name, email and password checks), deactivating one's own
 * account (CANNOT_DEACTIVATE_LAST_USER), reactivating, their `realm_user` events, and an
 * administrator changing another user's status (feature level 407).
 */
import { describe, expect, it } from 'vitest';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { createUser, deactivateOwnUser, deactivateUser, getUser, reactivateUser } from '../../../src/zulip/routes/users.js';
import { getUserStatus, updateStatusForUser } from '../../../src/zulip/routes/user-status.js';
import { fetchApiKey } from '../../../src/zulip/routes/authentication.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

const NEW = { email: 'newbie@zulip.example.com', password: 'correct horse', fullName: 'New User' };

describe('create user', () => {
  it('creates an account that can log in with its password, and tells everyone with a realm_user add', async () => {
    const t = setupEmulator();
    const drain = await t.listen('hamlet', ['realm_user']);
    const { user_id } = await createUser(t.as('desdemona'), NEW);
    const { user } = await getUser(t.as('hamlet'), { userId: user_id });
    expect(user).toMatchObject({ user_id, full_name: 'New User', email: NEW.email, is_active: true, role: 400, is_bot: false });
    const key = await fetchApiKey(t.connect(undefined), { username: NEW.email, password: NEW.password });
    expect(key).toMatchObject({ user_id, email: NEW.email });
    expect(await drain()).toMatchObject([{ type: 'realm_user', op: 'add', person: { user_id, full_name: 'New User' } }]);
    const general = t.channelId('general');
    expect(t.store.isSubscribed(user_id, general)).toBe(true);
  });

  it('needs an administrator, and from feature level 36 the can_create_users permission', async () => {
    const t = setupEmulator();
    const member = await caughtApiError(createUser(t.as('hamlet'), NEW));
    expect([member.code, member.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    const admin = await caughtApiError(createUser(t.as('iago'), NEW));
    expect([admin.code, admin.message]).toEqual(['BAD_REQUEST', 'User not authorized to create users']);
    expect(t.store.userByEmail(NEW.email)).toBeUndefined();
    const old = setupEmulator({ settings: { featureLevel: featureLevels.createUserPermission - 1 } });
    await expect(createUser(old.as('iago'), NEW)).resolves.toMatchObject({ user_id: expect.any(Number) });
  });

  it('refuses a bad name, a bad or used email and a weak password, creating nothing', async () => {
    const t = setupEmulator();
    const before = t.store.users.size;
    const cases: [Parameters<typeof createUser>[1], string][] = [
      [{ ...NEW, fullName: 'x' }, 'Name too short!'],
      [{ ...NEW, email: 'not-an-email' }, 'Bad name or username'],
      [{ ...NEW, email: 'a+b@zulip.example.com' }, 'Email addresses containing + are not allowed.'],
      [{ ...NEW, email: 'HAMLET@zulip.example.com' }, "Email 'HAMLET@zulip.example.com' already in use"],
      [{ ...NEW, password: 'abc' }, 'The password is too weak.'],
    ];
    for (const [params, message] of cases) {
      const e = await caughtApiError(createUser(t.as('desdemona'), params));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
    }
    expect(t.store.users.size).toBe(before);
  });
});

describe('deactivate own user', () => {
  it('deactivates the caller and their bots, after which the key is refused', async () => {
    const t = setupEmulator();
    const hamlet = t.userId('hamlet');
    const bot = [...t.store.users.values()].find((u) => u.is_bot && u.bot_owner_id === hamlet)!;
    const drain = await t.listen('iago', ['realm_user']);
    await deactivateOwnUser(t.as('hamlet'));
    expect([t.store.users.get(hamlet)!.is_active, bot.is_active]).toEqual([false, false]);
    expect(await drain()).toMatchObject([
      { type: 'realm_user', op: 'update', person: { user_id: hamlet, is_active: false } },
      { type: 'realm_user', op: 'update', person: { user_id: bot.user_id, is_active: false } },
    ]);
    const after = await caughtApiError(getUser(t.as('hamlet'), { userId: hamlet }));
    expect(after.code).toBe('USER_DEACTIVATED');
  });

  it('refuses the only owner and the only user with CANNOT_DEACTIVATE_LAST_USER', async () => {
    const t = setupEmulator();
    const owner = await caughtApiError(deactivateOwnUser(t.as('desdemona')));
    expect([owner.code, owner.message, owner.data]).toMatchObject([
      'CANNOT_DEACTIVATE_LAST_USER',
      'Cannot deactivate the only organization owner',
      { entity: 'organization owner', is_last_owner: true },
    ]);
    const alone = setupEmulator({ seed: 'empty' });
    const only = await caughtApiError(deactivateOwnUser(alone.as('desdemona')));
    expect([only.code, only.message, only.data]).toMatchObject(['CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only user', { is_last_owner: false }]);
    expect(t.store.users.get(t.userId('desdemona'))!.is_active).toBe(true);
  });
});

describe('reactivate user', () => {
  it('reactivates a deactivated user (administrators), with a realm_user update', async () => {
    const t = setupEmulator();
    const othello = t.userId('othello');
    await deactivateUser(t.as('iago'), { userId: othello });
    const drain = await t.listen('hamlet', ['realm_user']);
    const refused = await caughtApiError(reactivateUser(t.as('hamlet'), { userId: othello }));
    expect([refused.code, refused.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    await reactivateUser(t.as('iago'), { userId: othello });
    expect(t.store.users.get(othello)!.is_active).toBe(true);
    expect(await drain()).toMatchObject([{ type: 'realm_user', op: 'update', person: { user_id: othello, is_active: true } }]);
    const unknown = await caughtApiError(reactivateUser(t.as('iago'), { userId: 9999 }));
    expect(unknown.message).toBe('No such user');
  });
});

describe('update status for user', () => {
  it('lets an administrator set another user\u2019s status, with the update-status checks', async () => {
    const t = setupEmulator({ settings: { featureLevel: featureLevels.updateStatusForUser } });
    const hamlet = t.userId('hamlet');
    await updateStatusForUser(t.as('iago'), { userId: hamlet, statusText: 'In a meeting', emojiName: 'smile' });
    expect((await getUserStatus(t.as('othello'), { userId: hamlet })).status).toMatchObject({ status_text: 'In a meeting', emoji_name: 'smile' });
    const member = await caughtApiError(updateStatusForUser(t.as('othello'), { userId: hamlet, statusText: 'x' }));
    expect([member.code, member.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    const nothing = await caughtApiError(updateStatusForUser(t.as('iago'), { userId: hamlet }));
    expect(nothing.message).toBe('Client did not pass any new values.');
    const long = await caughtApiError(updateStatusForUser(t.as('iago'), { userId: hamlet, statusText: 'x'.repeat(61) }));
    expect(long.message).toBe('status_text is too long (limit: 60 characters)');
  });

  it('is Not Found below feature level 407', async () => {
    const t = setupEmulator({ settings: { featureLevel: featureLevels.updateStatusForUser - 1 } });
    const e = await caughtApiError(updateStatusForUser(t.as('iago'), { userId: t.userId('hamlet'), statusText: 'x' }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});
