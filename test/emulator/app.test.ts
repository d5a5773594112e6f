/**
 * The emulator's request plumbing: authentication, envelope, ignored parameters, routing errors,
 * fault injection and serving on a loopback port. Driven through the REST client, which is the
 * contract between the emulator and the gateway.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/app.js';
import { DEMO_USERS, demoUser } from '../../src/emulator/seed.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { MalformedResponseError, NetworkError, ServerError, ZulipApiError } from '../../src/zulip/errors.js';
import { caughtError, documentedFetch } from '../helpers/emulator.js';
import { validateResponse } from '../helpers/openapi.js';
import { until } from '../helpers/ws-client.js';
import { json, raw } from '../../src/zulip/params.js';
import { fetch as undiciFetch, FormData as UndiciFormData } from 'undici';

/** A full garbage collection now (V8's gc, exposed at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const emulator = createEmulator();
// Every answer is checked against its documented shape at the emulator's level (test/helpers/emulator.ts).
const fetch = documentedFetch(emulator);
const noRetry = { maxRetries: 0, minDelayMs: 1, maxDelayMs: 1 };

function connectionAs(login: string | null, apiKey?: string) {
  const credentials = login === null ? undefined : { email: demoUser(login).email, apiKey: apiKey ?? demoUser(login).apiKey };
  return new ZulipConnection({ baseUrl: 'http://emulator.test', credentials, fetch, retry: noRetry });
}

afterAll(() => emulator.close());

describe('authentication', () => {
  it('answers 401 UNAUTHORIZED with Zulip\'s body when credentials are missing', async () => {
    const response = await emulator.fetch(new Request('http://emulator.test/api/v1/register', { method: 'POST' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    const body = await response.json();
    expect(body).toEqual({ result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });
  });

  it('answers INVALID_API_KEY for a wrong key and an unknown email', async () => {
    for (const conn of [connectionAs('hamlet', 'wrong-key'), new ZulipConnection({ baseUrl: 'http://e.test', credentials: { email: 'nobody@x.test', apiKey: 'k' }, fetch })]) {
      const e = await caughtError(conn.request('deleteQueue', 'DELETE', 'events', { queue_id: raw('x') }));
      expect(e).toBeInstanceOf(ZulipApiError);
      expect((e as ZulipApiError).code).toBe('INVALID_API_KEY');
      expect((e as ZulipApiError).httpStatus).toBe(401);
    }
  });

  it('refuses a deactivated user with USER_DEACTIVATED', async () => {
    const lear = [...emulator.store.users.values()].find((u) => !u.is_active)!;
    const conn = new ZulipConnection({ baseUrl: 'http://e.test', credentials: { email: lear.delivery_email, apiKey: lear.api_key }, fetch });
    const e = (await caughtError(conn.request('deleteQueue', 'DELETE', 'events', { queue_id: raw('x') }))) as ZulipApiError;
    expect([e.code, e.httpStatus]).toEqual(['USER_DEACTIVATED', 401]);
  });
});

describe('envelope and routing', () => {
  it('reports parameters an endpoint does not read in ignored_parameters_unsupported', async () => {
    const body = await connectionAs(null).request<Record<string, unknown>>('getServerSettings', 'GET', 'server_settings', { bogus: json(1), other: raw('x') });
    expect(body.ignored_parameters_unsupported).toEqual(['bogus', 'other']);
  });

  it('answers 404 for unknown paths and 405 for a known path with the wrong method', async () => {
    const notFound = (await caughtError(connectionAs('hamlet').request('x', 'GET', 'no_such_endpoint'))) as ZulipApiError;
    expect(notFound.httpStatus).toBe(404);
    const wrongMethod = (await caughtError(connectionAs('hamlet').request('x', 'PATCH', 'server_settings'))) as ZulipApiError;
    expect(wrongMethod.httpStatus).toBe(405);
  });

  it('rejects malformed typed parameters with a Zulip-shaped error, not a 500', async () => {
    const e = (await caughtError(connectionAs('hamlet').request('getEvents', 'GET', 'events', { queue_id: raw('q'), last_event_id: raw('abc') }))) as ZulipApiError;
    expect(e.httpStatus).toBe(400);
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toBe('last_event_id is not an integer');
  });

  it('records every request with the authenticated email', async () => {
    const before = emulator.requests.length;
    await connectionAs('iago').request('getServerSettings', 'GET', 'server_settings');
    await connectionAs('iago').request('register', 'POST', 'register', { event_types: json(['message']) });
    const recent = emulator.requests.slice(before);
    expect(recent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /server_settings', 'POST /register']);
    expect(recent[1]!.email).toBe(demoUser('iago').email);
  });
});

describe('GET /server_settings', () => {
  it('needs no credentials and matches the OpenAPI schema', async () => {
    const body = await connectionAs(null).request<Record<string, unknown>>('getServerSettings', 'GET', 'server_settings');
    expect(body.service_feature_level).toBe(372);
    expect(body.zulip_feature_level).toBe(372);
    expect(body.realm_name).toBe('Zulip Dev');
    const result = validateResponse({ method: 'GET', path: '/server_settings' }, 200, body, {
      allowExtra: ['service_feature_level', 'service_version', 'service_merge_base', 'realm_url'],
    });
    expect(result.errors).toBe('');
  });

  it('reports the configured feature level', async () => {
    const old = createEmulator({ settings: { featureLevel: 200 } });
    const body = await new ZulipConnection({ baseUrl: 'http://e.test', fetch: (i, init) => old.fetch(new Request(i, init)) }).request<{ service_feature_level: number }>(
      'getServerSettings',
      'GET',
      'server_settings',
    );
    expect(body.service_feature_level).toBe(200);
  });
});

describe('development endpoints', () => {
  it('fetches an API key by username and lists users without authentication', async () => {
    const conn = connectionAs(null);
    const key = await conn.request<{ api_key: string; email: string }>('devFetchApiKey', 'POST', 'dev_fetch_api_key', { username: raw(DEMO_USERS[3]!.email) });
    expect(key.api_key).toBe(DEMO_USERS[3]!.apiKey);
    const list = await conn.request<{ direct_admins: { email: string }[]; direct_users: { email: string }[] }>('devListUsers', 'GET', 'dev_list_users');
    expect(list.direct_admins.map((u) => u.email)).toContain(demoUser('iago').email);
    expect(list.direct_users.map((u) => u.email)).toContain(demoUser('hamlet').email);
    const unknown = (await caughtError(conn.request('devFetchApiKey', 'POST', 'dev_fetch_api_key', { username: raw('ghost@x.test') }))) as ZulipApiError;
    expect(unknown.httpStatus).toBe(401);
    const missing = (await caughtError(conn.request('devFetchApiKey', 'POST', 'dev_fetch_api_key'))) as ZulipApiError;
    expect([missing.code, missing.data.var_name]).toEqual(['REQUEST_VARIABLE_MISSING', 'username']);
  });
});

describe('fault injection', () => {
  it('injects 5xx HTML pages, malformed bodies, 429 with Retry-After and resets, a limited number of times', async () => {
    const e = createEmulator();
    const conn = new ZulipConnection({ baseUrl: 'http://e.test', fetch: (i, init) => e.fetch(new Request(i, init)), retry: noRetry });
    e.faults.inject('GET /server_settings', { status: 502, times: 1 });
    expect(await caughtError(conn.request('s', 'GET', 'server_settings'))).toBeInstanceOf(ServerError);
    e.faults.inject('GET /server_settings', { malformed: true, times: 1 });
    expect(await caughtError(conn.request('s', 'GET', 'server_settings'))).toBeInstanceOf(MalformedResponseError);
    e.faults.inject('GET /server_settings', { rateLimit: { retryAfter: 30 }, times: 1 });
    const limited = (await caughtError(conn.request('s', 'GET', 'server_settings'))) as ZulipApiError;
    expect([limited.code, limited.httpStatus, limited.retryAfter]).toEqual(['RATE_LIMIT_HIT', 429, 30]);
    e.faults.inject('GET /server_settings', { reset: true, times: 1 });
    const reset = (await caughtError(conn.request('s', 'GET', 'server_settings'))) as NetworkError;
    expect(reset.reason).toBe('reset');
    // Every fault was used up: the next call succeeds.
    await expect(conn.request('s', 'GET', 'server_settings')).resolves.toMatchObject({ result: 'success' });
  });

  it('rejects a hung request like fetch does once the caller gives up, even after a garbage collection', async () => {
    const e = createEmulator();
    const conn = new ZulipConnection({ baseUrl: 'http://e.test', fetch: (i, init) => e.fetch(new Request(i, init)), retry: noRetry, deadlineMs: 50 });
    e.faults.inject('GET /server_settings', { hang: true, times: 1 });
    const hung = caughtError(conn.request('s', 'GET', 'server_settings'));
    // A hung request that nothing held used to be collected here, its abort never delivered.
    await until(() => e.requests.length === 1);
    await new Promise((resolve) => setImmediate(resolve)); // a new job: V8 keeps weak targets alive until the current one ends
    collectGarbage();
    const error = (await hung) as NetworkError;
    expect([error.kind, error.reason]).toEqual(['network', 'timeout']);
    await e.close();
  });

  it('serves the same handler on a loopback port and drops connections for reset faults', async () => {
    const e = createEmulator();
    const server = await e.listen();
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const conn = new ZulipConnection({ baseUrl: server.url, credentials: demoUser('hamlet'), retry: noRetry });
      await expect(conn.request('getOwnUser', 'GET', 'server_settings')).resolves.toMatchObject({ realm_name: 'Zulip Dev' });
      e.faults.inject('*', { reset: true, times: 1 });
      const reset = (await caughtError(conn.request('s', 'GET', 'server_settings'))) as NetworkError;
      expect(reset).toBeInstanceOf(NetworkError);
      await conn.close();
    } finally {
      await server.close();
      await e.close();
    }
  });
});

describe('body encodings', () => {
  // Zulip (Django) reads a multipart body's fields as parameters on every method, not only on
  // uploads: a client that sends every request as FormData works against it.
  it('reads multipart/form-data fields as parameters on POST, PATCH and DELETE, over a real socket', async () => {
    const e = createEmulator();
    const server = await e.listen();
    try {
      const hamlet = demoUser('hamlet');
      const authorization = `Basic ${Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString('base64')}`;
      const send = async (method: string, path: string, fields: Record<string, string>) => {
        const form = new UndiciFormData();
        for (const [k, v] of Object.entries(fields)) form.append(k, v);
        const response = await undiciFetch(`${server.url}/api/v1/${path}`, { method, headers: { authorization }, body: form });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const added = await send('POST', 'users/me/alert_words', { alert_words: JSON.stringify(['multipart', 'form']) });
      expect(added).toMatchObject({ status: 200, body: { result: 'success', alert_words: ['multipart', 'form'] } });
      expect(added.body.ignored_parameters_unsupported).toBeUndefined();
      const removed = await send('DELETE', 'users/me/alert_words', { alert_words: JSON.stringify(['form']) });
      expect(removed).toMatchObject({ status: 200, body: { alert_words: ['multipart'] } });
      const renamed = await send('PATCH', 'settings', { full_name: 'Hamlet of Denmark' });
      expect(renamed.status).toBe(200);
      expect(e.store.userByEmail(hamlet.email)!.full_name).toBe('Hamlet of Denmark');
      const unknown = await send('PATCH', 'settings', { no_such_setting: 'x' });
      expect(unknown.body.ignored_parameters_unsupported).toEqual(['no_such_setting']);
    } finally {
      await server.close();
      await e.close();
    }
  });

  it('refuses a malformed multipart body with BAD_REQUEST', async () => {
    const hamlet = demoUser('hamlet');
    const response = await emulator.fetch(new Request('http://emulator.test/api/v1/users/me/alert_words', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString('base64')}`, 'content-type': 'multipart/form-data; boundary=x' },
      body: 'not multipart at all',
    }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
  });
});
