import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import {
  MalformedResponseError,
  NetworkError,
  ServerError,
  ZulipApiError,
  ZulipConnection,
  ZulipError,
  isAuthError,
  type ConnectionOptions,
  type ResponseInfo,
} from '../../src/zulip/index.js';
import {
  apiError,
  refusedError,
  resetError,
  scriptedFetch,
  success,
  type ScriptedResponse,
} from '../helpers/scripted-fetch.js';
import { json, raw, type WireParams } from '../../src/zulip/params.js';

const BASE = 'http://127.0.0.1:9991';
const IAGO = { email: 'iago@zulip.example', apiKey: 'SECRETKEY0123456789abcdef' };
const FAST_RETRY = { maxRetries: 2, minDelayMs: 1, maxDelayMs: 5 };

function connect(responses: ScriptedResponse[], options: Partial<ConnectionOptions> = {}) {
  const fetch = scriptedFetch(responses);
  const seen: ResponseInfo[] = [];
  const connection = new ZulipConnection({
    baseUrl: BASE,
    credentials: IAGO,
    fetch,
    retry: FAST_RETRY,
    onResponse: (info) => seen.push(info),
    ...options,
  });
  return { connection, fetch, seen };
}

/** Runs `promise`, expecting it to reject, and returns the rejection. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('request shape', () => {
  test('GET sends Basic auth, a User-Agent and Zulip-encoded query parameters', async () => {
    const { connection, fetch } = connect([success({ messages: [] })]);
    await connection.send('get-messages', 'GET', 'messages', {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      apply_markdown: false,
      narrow: [{ operator: 'channel', operand: 'design' }],
      client_gravatar: undefined,
    });
    const [request] = fetch.requests;
    expect(request!.method).toBe('GET');
    expect(request!.url.origin + request!.url.pathname).toBe(`${BASE}/api/v1/messages`);
    expect(request!.basicAuth).toEqual(IAGO);
    expect(request!.headers['user-agent']).toBe('chatgraph/0.1');
    expect(request!.query).toEqual({
      anchor: 'newest',
      num_before: '10',
      num_after: '0',
      apply_markdown: 'false',
      narrow: '[{"operator":"channel","operand":"design"}]',
    });
    expect(request!.url.search).not.toMatch(/narrow%5B|narrow\[/);
    expect(request!.form).toEqual({});
  });

  test('POST, PATCH and DELETE send a form body; the query string stays empty', async () => {
    const { connection, fetch } = connect([success(), success(), success(), success()]);
    await connection.send('update-message-flags-for-narrow', 'POST', 'messages/flags/narrow', {
      anchor: '42',
      narrow: [['is', 'unread']],
      op: 'add',
      flag: 'read',
      include_anchor: true,
    });
    await connection.send('update-message', 'PATCH', '/messages/42', { topic: 'a & b = c', send_notification_to_old_thread: false });
    await connection.send('remove-reaction', 'DELETE', 'messages/42/reactions', { emoji_name: 'octopus' });
    await connection.send('delete-queue', 'DELETE', 'events');
    const [flags, edit, reaction, bare] = fetch.requests;
    expect(flags!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(flags!.form).toEqual({
      anchor: '42',
      narrow: '[["is","unread"]]',
      op: 'add',
      flag: 'read',
      include_anchor: 'true',
    });
    expect(flags!.url.search).toBe('');
    expect(edit!.method).toBe('PATCH');
    expect(edit!.path).toBe('messages/42');
    expect(edit!.form).toEqual({ topic: 'a & b = c', send_notification_to_old_thread: 'false' });
    expect(reaction!.method).toBe('DELETE');
    expect(reaction!.form).toEqual({ emoji_name: 'octopus' });
    expect(bare!.form).toEqual({});
    expect(bare!.headers['content-type']).toBeUndefined();
  });

  test('request sends each parameter exactly as its route declared it, raw text or JSON', async () => {
    const { connection, fetch } = connect([success(), success()]);
    await connection.request('update-stream', 'PATCH', 'streams/7', {
      description: raw('"quoted" & plain'),
      message_retention_days: json('unlimited'),
      is_private: json(false),
      can_send_message_group: json({ new: { direct_members: [1], direct_subgroups: [] } }),
      new_name: raw(undefined),
      folder_id: json(null),
    });
    await connection.request('get-messages', 'GET', 'messages', { anchor: raw(42), num_before: json(5), narrow: json([]) });
    const [patch, get] = fetch.requests;
    expect(patch!.form).toEqual({
      description: '"quoted" & plain',
      message_retention_days: '"unlimited"',
      is_private: 'false',
      can_send_message_group: '{"new":{"direct_members":[1],"direct_subgroups":[]}}',
      folder_id: 'null',
    });
    expect(get!.query).toEqual({ anchor: '42', num_before: '5', narrow: '[]' });
  });

  test('a value not declared with raw() or json() is refused before any request', async () => {
    const { connection, fetch } = connect([success()]);
    const undeclared = { narrow: [] } as unknown as WireParams;
    await expect(connection.request('get-messages', 'GET', 'messages', undeclared)).rejects.toThrow(TypeError);
    expect(fetch.requests).toHaveLength(0);
  });

  test('without credentials no Authorization header is sent', async () => {
    const { connection, fetch } = connect([success({ realm_name: 'Zulip' })], { credentials: undefined });
    await connection.send('get-server-settings', 'GET', 'server_settings');
    expect(fetch.requests[0]!.headers.authorization).toBeUndefined();
    expect(connection.credentialKey).toBe('anonymous');
  });

  test('a base URL with a trailing slash does not double it', async () => {
    const { connection, fetch } = connect([success()], { baseUrl: `${BASE}/` });
    await connection.send('get-own-user', 'GET', 'users/me');
    expect(fetch.requests[0]!.url.href).toBe(`${BASE}/api/v1/users/me`);
  });
});

describe('parsing', () => {
  test('returns the success body, with ignored parameters, and reports them', async () => {
    const { connection, seen } = connect([success({ ids: [7], ignored_parameters_unsupported: ['colour'] })]);
    const body = await connection.send<{ ids: number[] }>('create-drafts', 'POST', 'drafts', { drafts: [], colour: 'x' });
    expect(body.ids).toEqual([7]);
    expect(body.ignored_parameters_unsupported).toEqual(['colour']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      routeName: 'create-drafts',
      method: 'POST',
      path: 'drafts',
      status: 200,
      ignoredParametersUnsupported: ['colour'],
    });
    expect(seen[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  test('a JSON error envelope becomes ZulipApiError with code and extra data', async () => {
    const { connection } = connect([
      apiError('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', 'You only have permission to move the 2/5 most recent messages', 400, {
        first_message_id_allowed_to_move: 11,
        total_messages_allowed_to_move: 2,
        total_messages_in_topic: 5,
      }),
    ]);
    const error = await failure(connection.send('update-message', 'PATCH', 'messages/9', { topic: 'x' }));
    expect(error).toBeInstanceOf(ZulipApiError);
    const api = error as ZulipApiError;
    expect(api.kind).toBe('api');
    expect(api.code).toBe('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED');
    expect(api.httpStatus).toBe(400);
    expect(api.routeName).toBe('update-message');
    expect(api.data).toEqual({
      first_message_id_allowed_to_move: 11,
      total_messages_allowed_to_move: 2,
      total_messages_in_topic: 5,
    });
    expect(api.message).toContain('most recent messages');
    expect(api.retryAfter).toBeUndefined();
  });

  test('an error without code counts as BAD_REQUEST', async () => {
    const { connection } = connect([{ status: 400, json: { result: 'error', msg: 'Invalid stream ID' } }]);
    const error = (await failure(connection.send('update-stream', 'PATCH', 'streams/99'))) as ZulipApiError;
    expect(error).toBeInstanceOf(ZulipApiError);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.data).toEqual({});
  });

  test.each([
    ['an HTML 502 page', { status: 502, text: '<html><body>502 Bad Gateway</body></html>' }, 502],
    ['a JSON 500', { status: 500, json: { result: 'error', msg: 'not ready', code: 'SERVER_NOT_READY' } }, 500],
    ['an empty 504', { status: 504, text: '' }, 504],
  ])('%s is a ServerError', async (_name, response, status) => {
    const { connection } = connect([response], { retry: { ...FAST_RETRY, maxRetries: 0 } });
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.kind).toBe('server');
    expect(error.httpStatus).toBe(status);
  });

  test.each([
    ['an HTML 200', { status: 200, text: '<html>login</html>' }, 200],
    ['JSON without result', { status: 200, json: { messages: [] } }, 200],
    ['a JSON array', { status: 200, json: [1, 2] }, 200],
    ['a success envelope on a 400', { status: 400, json: { result: 'success', msg: '' } }, 400],
    ['an empty 200', { status: 200, text: '' }, 200],
    ['an HTML 302', { status: 302, text: '<html>moved</html>' }, 302],
  ])('%s is a MalformedResponseError', async (_name, response, status) => {
    const { connection } = connect([response]);
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as MalformedResponseError;
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.kind).toBe('malformed');
    expect(error.httpStatus).toBe(status);
  });

  test.each([
    ['a non-JSON 403', { status: 403, text: 'Forbidden' }, 403, 'FORBIDDEN'],
    ['an HTML 404', { status: 404, text: '<html>Not Found</html>' }, 404, 'NOT_FOUND'],
    ['an empty 415', { status: 415, text: '' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a JSON 415 of another shape', { status: 415, json: { detail: 'Unsupported Media Type' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an unusual non-JSON 418', { status: 418, text: "I'm a teapot" }, 418, 'HTTP_418'],
  ])('%s is a ZulipApiError with a code from its status, never a success', async (_name, response, status, code) => {
    const { connection } = connect([response]);
    const error = (await failure(connection.send('send-message', 'POST', 'messages', { content: 'x' }))) as ZulipApiError;
    expect(error).toBeInstanceOf(ZulipApiError);
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(status);
    expect(error.data).toEqual({});
    expect(error.message).toBe(`send-message failed with ${code}`);
    expect(isAuthError(error)).toBe(false);
  });

  test.each([
    ['empty', { status: 401, text: '' }],
    ['HTML', { status: 401, text: '<html>Unauthorized</html>' }],
    ['JSON without result', { status: 401, json: {} }],
    ['a success envelope', { status: 401, json: { result: 'success', msg: '' } }],
  ])('an %s 401 is an UNAUTHORIZED auth error, never a success', async (_name, response) => {
    const { connection } = connect([response]);
    const error = (await failure(connection.send('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
    expect(error).toBeInstanceOf(ZulipApiError);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.httpStatus).toBe(401);
    expect(isAuthError(error)).toBe(true);
  });

  test('isAuthError recognises the credential-fatal codes and nothing else', async () => {
    const { connection } = connect([
      apiError('INVALID_API_KEY', 'Invalid API key', 401),
      apiError('USER_DEACTIVATED', 'Account is deactivated', 401),
      apiError('REALM_DEACTIVATED', 'This organization has been deactivated', 403),
      apiError('BAD_EVENT_QUEUE_ID', 'Bad event queue ID: x', 400, { queue_id: 'x' }),
    ]);
    const outcomes = [];
    for (let i = 0; i < 4; i++) {
      const error = (await failure(connection.send('get-events', 'GET', 'events'))) as ZulipApiError;
      outcomes.push([error.code, error.httpStatus, isAuthError(error)]);
    }
    expect(outcomes).toEqual([
      ['INVALID_API_KEY', 401, true],
      ['USER_DEACTIVATED', 401, true],
      ['REALM_DEACTIVATED', 403, true],
      ['BAD_EVENT_QUEUE_ID', 400, false],
    ]);
    expect(isAuthError(new ServerError('x', 500))).toBe(false);
    expect(isAuthError(new Error('401'))).toBe(false);
  });

  test.each([
    ['a reset', resetError(), 'reset', 'ECONNRESET'],
    ['a refused connection', refusedError(), 'connect', 'ECONNREFUSED'],
    ['an unknown throw', new Error('boom'), 'other', undefined],
  ])('%s thrown by fetch is a NetworkError', async (_name, thrown, reason, code) => {
    const { connection, seen } = connect([{ error: thrown }]);
    const error = (await failure(connection.send('send-message', 'POST', 'messages', { content: 'hi' }))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toBeInstanceOf(ZulipError);
    expect(error.kind).toBe('network');
    expect(error.reason).toBe(reason);
    expect(error.causeCode).toBe(code);
    expect(seen).toHaveLength(0); // no HTTP response was received
  });
});

describe('retries', () => {
  test('a GET is retried on 503 and succeeds within three calls', async () => {
    const { connection, fetch, seen } = connect([
      { status: 503, text: 'Service Unavailable' },
      { status: 503, text: 'Service Unavailable' },
      success({ members: [] }),
    ]);
    const body = await connection.send<{ members: unknown[] }>('get-users', 'GET', 'users');
    expect(body.members).toEqual([]);
    expect(fetch.requests).toHaveLength(3);
    expect(seen.map((info) => info.status)).toEqual([503, 503, 200]);
  });

  test('a GET gives up after maxRetries and throws the last error', async () => {
    const { connection, fetch } = connect([{ status: 502, text: '' }, { error: resetError() }, { status: 503, text: '' }, success()]);
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.httpStatus).toBe(503);
    expect(fetch.requests).toHaveLength(3);
    expect(fetch.remaining).toBe(1);
  });

  test.each(['POST', 'PATCH', 'DELETE'] as const)('%s is never retried', async (method) => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, { error: resetError() }, success()]);
    expect(await failure(connection.send('x', method, 'messages/1', { content: 'a' }))).toBeInstanceOf(ServerError);
    expect(await failure(connection.send('x', method, 'messages/1', { content: 'a' }))).toBeInstanceOf(NetworkError);
    expect(fetch.requests).toHaveLength(2);
  });

  test('4xx errors, including 401, are not retried', async () => {
    const { connection, fetch } = connect([apiError('UNAUTHORIZED', 'Not logged in', 401), apiError('BAD_REQUEST', 'Invalid narrow')]);
    expect(isAuthError(await failure(connection.send('get-messages', 'GET', 'messages')))).toBe(true);
    expect(await failure(connection.send('get-messages', 'GET', 'messages'))).toBeInstanceOf(ZulipApiError);
    expect(fetch.requests).toHaveLength(2);
  });

  test('retry: false turns retries off for one call', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()]);
    expect(await failure(connection.send('get-events', 'GET', 'events', {}, { retry: false }))).toBeInstanceOf(ServerError);
    expect(fetch.requests).toHaveLength(1);
  });

  test('a 429 is retried after its Retry-After header', async () => {
    const limited = apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429);
    const { connection, fetch } = connect([{ ...limited, headers: { 'Retry-After': '0.08' } } as ScriptedResponse, success()], {
      retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 1000 },
    });
    const started = performance.now();
    await connection.send('get-users', 'GET', 'users');
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(fetch.requests).toHaveLength(2);
  });

  test('a 429 asking for longer than maxDelayMs is thrown at once with retryAfter', async () => {
    const { connection, fetch } = connect([
      apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': 28.7 }),
      success(),
    ]);
    const started = performance.now();
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as ZulipApiError;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('RATE_LIMIT_HIT');
    expect(error.httpStatus).toBe(429);
    expect(error.retryAfter).toBe(28.7);
    expect(fetch.requests).toHaveLength(1);
  });

  test('a 429 on POST is not retried but still carries the header retryAfter', async () => {
    const limited = apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429);
    const { connection, fetch } = connect([{ ...limited, headers: { 'retry-after': '0.01' } } as ScriptedResponse, success()]);
    const error = (await failure(connection.send('send-message', 'POST', 'messages'))) as ZulipApiError;
    expect(error.retryAfter).toBe(0.01);
    expect(fetch.requests).toHaveLength(1);
  });
});

describe('timeouts and aborts', () => {
  test('a call that outlives timeoutMs fails with reason timeout', async () => {
    const { connection, fetch } = connect([{ hang: true }], { timeoutMs: 30 });
    const error = (await failure(connection.send('get-events', 'GET', 'events', {}, { retry: false }))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('timeout');
    expect(fetch.requests).toHaveLength(1);
  });

  test('SendOptions.timeoutMs overrides the connection timeout', async () => {
    const { connection } = connect([{ hang: true }], { timeoutMs: 60_000 });
    const started = performance.now();
    const error = (await failure(connection.send('get-events', 'GET', 'events', {}, { retry: false, timeoutMs: 20 }))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('a timed-out GET is not retried: its one deadline is spent', async () => {
    const { connection, fetch } = connect([{ hang: true }, success({ streams: [] })], { deadlineMs: 20 });
    const error = (await failure(connection.send('get-streams', 'GET', 'streams'))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(fetch.requests).toHaveLength(1);
  });

  test('a retry whose wait does not fit in the deadline is not made; the real failure is thrown', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()], {
      deadlineMs: 200,
      retry: { maxRetries: 2, minDelayMs: 1_000, maxDelayMs: 1_000 },
    });
    const started = performance.now();
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(performance.now() - started).toBeLessThan(200);
    expect(fetch.requests).toHaveLength(1);
  });

  test("the caller's signal aborts with reason aborted, and is not retried", async () => {
    const { connection, fetch } = connect([{ hang: true }, success()]);
    const controller = new AbortController();
    const pending = failure(connection.send('get-events', 'GET', 'events', {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    const error = (await pending) as NetworkError;
    expect(error.reason).toBe('aborted');
    expect(fetch.requests).toHaveLength(1);
  });

  test('an already-aborted signal fails without waiting', async () => {
    const { connection } = connect([{ hang: true }]);
    const error = (await failure(connection.send('get-events', 'GET', 'events', {}, { signal: AbortSignal.abort() }))) as NetworkError;
    expect(error.reason).toBe('aborted');
  });

  test('aborting during a retry pause ends the call as aborted', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()], {
      retry: { maxRetries: 2, minDelayMs: 5_000, maxDelayMs: 5_000 },
    });
    const controller = new AbortController();
    const pending = failure(connection.send('get-users', 'GET', 'users', {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect(((await pending) as NetworkError).reason).toBe('aborted');
    expect(fetch.requests).toHaveLength(1);
  });
});

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
    const { connection } = connect([response], { timeoutMs: 20 });
    const error = (await failure(connection.send('get-messages', 'POST', 'messages', { narrow: [] }))) as ZulipError;
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
    const error = (await failure(connection.send('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
    expect(error.message).toBe(shown);
  });

  test('redaction covers email:key and its base64 form, in msg and in extra string fields', async () => {
    const pair = `${IAGO.email}:${IAGO.apiKey}`;
    const { connection } = connect([
      apiError('INVALID_API_KEY', `Bad credentials ${pair} (Basic ${token})`, 401, { detail: `sent ${IAGO.apiKey}`, count: 3 }),
    ]);
    const error = (await failure(connection.send('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
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
    await connection.withCredentials(hamlet).send('get-own-user', 'GET', 'users/me');
    await connection.send('get-own-user', 'GET', 'users/me');
    expect(fetch.requests.map((request) => request.basicAuth)).toEqual([hamlet, IAGO]);
    expect(seen).toHaveLength(2);
  });
});

describe('default undici fetch against a real server on 127.0.0.1', () => {
  const servers: Server[] = [];
  const connections: ZulipConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function open(baseUrl: string): ZulipConnection {
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, retry: { ...FAST_RETRY, maxRetries: 0 } });
    connections.push(connection);
    return connection;
  }

  test('a round-trip carries auth and parses the body', async () => {
    const baseUrl = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ result: 'success', msg: '', path: req.url, auth: req.headers.authorization }));
    });
    const body = await open(baseUrl).send<{ path: string; auth: string }>('get-users', 'GET', 'users', { client_gravatar: false });
    expect(body.path).toBe('/api/v1/users?client_gravatar=false');
    expect(body.auth).toBe(`Basic ${Buffer.from(`${IAGO.email}:${IAGO.apiKey}`).toString('base64')}`);
  });

  test('a connection reset by the server is NetworkError reset', async () => {
    const baseUrl = await serve((req) => req.socket.destroy());
    const error = (await failure(open(baseUrl).send('get-users', 'GET', 'users'))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('reset');
    expect(error.message).not.toContain(baseUrl);
  });

  test('a server that never answers hits the per-call timeout', async () => {
    const baseUrl = await serve(() => undefined);
    const started = performance.now();
    const error = (await failure(open(baseUrl).send('get-events', 'GET', 'events', {}, { timeoutMs: 50 }))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('a server that never answers costs one deadline in all, not one per attempt', async () => {
    let requests = 0;
    const baseUrl = await serve(() => {
      requests++;
    });
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, deadlineMs: 300, retry: FAST_RETRY });
    connections.push(connection);
    const started = performance.now();
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as NetworkError;
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(900); // three attempts of 300 ms each would take 900 ms or more
    expect(requests).toBe(1);
  });

  test('retries fit inside the deadline: a 503, then a server that hangs, ends at the deadline', async () => {
    let requests = 0;
    const baseUrl = await serve((_req, res) => {
      requests++;
      if (requests === 1) res.writeHead(503).end('Service Unavailable');
    });
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, deadlineMs: 300, retry: FAST_RETRY });
    connections.push(connection);
    const started = performance.now();
    const error = (await failure(connection.send('get-users', 'GET', 'users'))) as NetworkError;
    const elapsed = performance.now() - started;
    expect(error.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(900);
    expect(requests).toBe(2);
  });

  test('a refused connection is NetworkError connect', async () => {
    const baseUrl = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = (await failure(open(baseUrl).send('get-users', 'GET', 'users'))) as NetworkError;
    expect(error.reason).toBe('connect');
    expect(error.causeCode).toBe('ECONNREFUSED');
  });

  test('close() destroys the agent shared with withCredentials copies', async () => {
    const baseUrl = await serve((_req, res) => res.end('{"result":"success","msg":""}'));
    const connection = open(baseUrl);
    const copy = connection.withCredentials(undefined);
    await copy.send('get-server-settings', 'GET', 'server_settings');
    await connection.close();
    const error = (await failure(copy.send('get-server-settings', 'GET', 'server_settings'))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
  });
});
