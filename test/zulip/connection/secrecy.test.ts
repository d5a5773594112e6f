import { describe, expect, test } from 'vitest';
import { type ZulipApiError, ZulipConnection, ZulipError } from '../../../src/zulip/index.js';
import { apiError, refusedError, resetError, success, type ScriptedResponse } from '../../helpers/scripted-fetch.js';
import { BASE, IAGO, connect, failure } from './shared.js';
import { json } from '../../../src/zulip/params.js';
import { fetchApiKey } from '../../../src/zulip/routes/authentication.js';

describe('secrecy', () => {
  const token = Buffer.from(`${IAGO.email}:${IAGO.apiKey}`).toString('base64');
  const cases: [string, ScriptedResponse][] = [
    ['api error', apiError('BAD_REQUEST', 'Invalid narrow')],
    ['echoing server', apiError('INVALID_API_KEY', `Invalid API key ${IAGO.apiKey}`, 401)],
    ['server error', { status: 502, text: '<html>upstream 127.0.0.1:9991 BODYMARKER</html>' }],
    ['malformed', { status: 200, text: 'BODYMARKER not json' }],
    ['reset', { error: resetError() }],
    ['refused', { error: refusedError() }],
    ['timeout', { hang: true }],
  ];
  test.each(cases)('a %s message names no URL, credential or raw body', async (_name, response) => {
    const { connection } = connect([response], { deadlineMs: 20 });
    const error = (await failure(connection.request('get-messages', 'POST', 'messages', { narrow: json([]) }))) as ZulipError;
    expect(error).toBeInstanceOf(ZulipError);
    const shown = `${error.message} ${String(error)} ${JSON.stringify(error)}`;
    for (const secret of [BASE, '127.0.0.1', '9991', IAGO.apiKey, token, 'BODYMARKER', 'api/v1']) {
      expect(shown).not.toContain(secret);
    }
    expect(error.message).toBeTruthy();
  });

  test.each([
    ['a one-letter key', 'k', 'Invalid API key', 'Invalid API key'],
    ['a one-letter key echoed as a token', 'k', 'Invalid API key: k', 'Invalid API key: [redacted]'],
    ['a key inside a longer word', 'key', 'Invalid API key for keyboard', 'Invalid API [redacted] for keyboard'],
    ['a key echoed in quotes', 'SECRETKEY0123456789abcdef', "Invalid API key 'SECRETKEY0123456789abcdef'", "Invalid API key '[redacted]'"],
    ['a key that is part of a longer token', 'abc', 'token xabcx and abc-def and abc', 'token xabcx and abc-def and [redacted]'],
  ])('redaction replaces whole credentials only: %s', async (_name, apiKey, msg, shown) => {
    const { connection } = connect([apiError('INVALID_API_KEY', msg, 401)], { credentials: { email: IAGO.email, apiKey } });
    const error = (await failure(connection.request('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
    expect(error.message).toBe(shown);
  });

  test('redaction covers email:key and its base64 form, in msg and in extra string fields', async () => {
    const pair = `${IAGO.email}:${IAGO.apiKey}`;
    const { connection } = connect([
      apiError('INVALID_API_KEY', `Bad credentials ${pair} (Basic ${token})`, 401, { detail: `sent ${IAGO.apiKey}`, count: 3 }),
    ]);
    const error = (await failure(connection.request('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
    expect(error.message).toBe('Bad credentials [redacted] (Basic [redacted])');
    expect(error.data).toEqual({ detail: 'sent [redacted]', count: 3 });
  });

  test('credentialKey is stable per credential, differs between credentials and hides the key', async () => {
    const { connection, fetch } = connect([success(), success()]);
    const again = new ZulipConnection({ baseUrl: BASE, credentials: { ...IAGO }, fetch });
    const other = connection.withCredentials({ email: IAGO.email, apiKey: 'another-key' });
    expect(again.credentialKey).toBe(connection.credentialKey);
    expect(other.credentialKey).not.toBe(connection.credentialKey);
    expect(connection.credentialKey).toMatch(/^[0-9a-f]{64}$/);
    expect(connection.credentialKey).not.toContain(IAGO.apiKey);
    expect(connection.withCredentials().credentialKey).toBe('anonymous');
    expect(JSON.stringify(connection)).not.toContain(IAGO.apiKey);
    expect(connection.credentials).toEqual(IAGO);
  });

  test('withCredentials shares the transport and options but sends the new credential', async () => {
    const { connection, fetch, seen } = connect([success(), success()]);
    const hamlet = { email: 'hamlet@zulip.example', apiKey: 'hamletkey' };
    await connection.withCredentials(hamlet).request('get-own-user', 'GET', 'users/me');
    await connection.request('get-own-user', 'GET', 'users/me');
    expect(fetch.requests.map((request) => request.basicAuth)).toEqual([hamlet, IAGO]);
    expect(seen).toHaveLength(2);
  });
});

describe('secrecy of a login', () => {
  const cases: [string, ScriptedResponse][] = [
    ['refusal', apiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401)],
    ['server error', { status: 502, text: '<html>BODYMARKER</html>' }],
    ['malformed', { status: 200, text: 'BODYMARKER not json' }],
    ['reset', { error: resetError() }],
    ['timeout', { hang: true }],
  ];
  test.each(cases)('a %s of fetch-api-key names neither the password nor the body', async (_name, response) => {
    const { connection } = connect([response], { deadlineMs: 20, credentials: undefined });
    const error = (await failure(fetchApiKey(connection, { username: IAGO.email, password: 'PASSWORD-MARKER-1' }))) as ZulipError;
    expect(error).toBeInstanceOf(ZulipError);
    const shown = `${error.message} ${String(error)} ${JSON.stringify(error)} ${String((error as Error).stack)}`;
    for (const secret of ['PASSWORD-MARKER-1', 'password=', 'BODYMARKER']) expect(shown).not.toContain(secret);
  });
});
