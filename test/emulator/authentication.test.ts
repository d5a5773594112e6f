/**
 * The emulator's login endpoint, driven through src/zulip/routes/authentication.ts without
 * credentials: the initial and the changed password, and Zulip's refusals.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { initialPassword } from '../../src/emulator/routes/settings.js';
import { raw } from '../../src/zulip/params.js';
import { fetchApiKey, jwtFetchApiKey } from '../../src/zulip/routes/authentication.js';
import { updateSettings } from '../../src/zulip/routes/settings.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../helpers/emulator.js';

const HAMLET = 'hamlet@zulip.example.com';

describe('POST /fetch_api_key', () => {
  it('answers the API key of an account for its password, without credentials', async () => {
    const t = setupEmulator();
    const body = await fetchApiKey(t.connect(undefined), { username: HAMLET, password: initialPassword(HAMLET) });
    expectValidResponse('POST', '/fetch_api_key', body);
    const hamlet = t.store.users.get(t.userId('hamlet'))!;
    expect(body).toMatchObject({ api_key: hamlet.api_key, email: hamlet.email, user_id: hamlet.user_id });
  });

  it('follows a password change', async () => {
    const t = setupEmulator();
    await updateSettings(t.as('hamlet'), { oldPassword: initialPassword(HAMLET), newPassword: 'a new passphrase' });
    const anonymous = t.connect(undefined);
    expect((await fetchApiKey(anonymous, { username: HAMLET, password: 'a new passphrase' })).user_id).toBe(t.userId('hamlet'));
    const e = await caughtApiError(fetchApiKey(anonymous, { username: HAMLET, password: initialPassword(HAMLET) }));
    expect(e.code).toBe('AUTHENTICATION_FAILED');
  });

  it('answers AUTHENTICATION_FAILED (401) for a wrong password or an unknown user, USER_DEACTIVATED for a deactivated account', async () => {
    const t = setupEmulator();
    const anonymous = t.connect(undefined);
    for (const [username, password] of [[HAMLET, 'wrong'], ['nobody@zulip.example.com', 'x']] as const) {
      const e = await caughtApiError(fetchApiKey(anonymous, { username, password }));
      expect({ code: e.code, message: e.message, status: e.httpStatus }).toEqual({
        code: 'AUTHENTICATION_FAILED',
        message: 'Your username or password is incorrect',
        status: 401,
      });
    }
    const lear = 'lear@zulip.example.com';
    const e = await caughtApiError(fetchApiKey(anonymous, { username: lear, password: initialPassword(lear) }));
    expect({ code: e.code, status: e.httpStatus }).toEqual({ code: 'USER_DEACTIVATED', status: 401 });
  });

  it('needs both parameters', async () => {
    const t = setupEmulator();
    const e = await caughtApiError(t.connect(undefined).request('fetch-api-key', 'POST', 'fetch_api_key', { username: raw(HAMLET) }));
    expect({ code: e.code, message: e.message }).toEqual({ code: 'REQUEST_VARIABLE_MISSING', message: "Missing 'password' argument" });
  });
});

describe('POST /jwt/fetch_api_key', () => {
  const sign = (claims: object, key: string) => {
    const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
    return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
  };

  it('answers the API key of the account the token\u2019s email claim names, and Zulip\u2019s refusals', async () => {
    const t = setupEmulator({ settings: { jwtAuthKey: 'k' } });
    const anonymous = t.connect(undefined);
    const body = await jwtFetchApiKey(anonymous, { token: sign({ email: HAMLET }, 'k') });
    // Zulip's jwt_fetch_api_key answers the key and the email, no user ID.
    expect(body).toMatchObject({ api_key: t.user('hamlet').api_key, email: HAMLET });
    expect(body).not.toHaveProperty('user_id');
    expect((await caughtApiError(jwtFetchApiKey(anonymous, { token: sign({ email: HAMLET }, 'other') }))).message).toBe('Bad JSON web token');
    expect((await caughtApiError(jwtFetchApiKey(anonymous, { token: 'not.a.jwt' }))).message).toBe('Bad JSON web token');
    expect((await caughtApiError(jwtFetchApiKey(anonymous, { token: sign({}, 'k') }))).message).toBe('No email specified in JSON web token claims');
    const unknown = await caughtApiError(jwtFetchApiKey(anonymous, { token: sign({ email: 'x@example.com' }, 'k') }));
    expect([unknown.code, unknown.httpStatus]).toEqual(['AUTHENTICATION_FAILED', 401]);
  });

  it('answers "Invalid subdomain" without a key for the organization', async () => {
    const t = setupEmulator();
    expect((await caughtApiError(jwtFetchApiKey(t.connect(undefined), { token: 'a.b.c' }))).message).toBe('Invalid subdomain');
  });
});
