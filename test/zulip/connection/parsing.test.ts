import { describe, expect, test } from 'vitest';
import { MalformedResponseError, NetworkError, ServerError, ZulipApiError, ZulipError, isAuthError } from '../../../src/zulip/index.js';
import { apiError, refusedError, resetError, success } from '../../helpers/scripted-fetch.js';
import { FAST_RETRY, connect, failure } from './shared.js';
import { json, raw } from '../../../src/zulip/params.js';

describe('parsing', () => {
  test('returns the success body, with ignored parameters, and reports them', async () => {
    const { connection, seen } = connect([success({ ids: [7], ignored_parameters_unsupported: ['colour'] })]);
    const body = await connection.request<{ ids: number[] }>('create-drafts', 'POST', 'drafts', { drafts: json([]), colour: raw('x') });
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
    const error = await failure(connection.request('update-message', 'PATCH', 'messages/9', { topic: raw('x') }));
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
    const error = (await failure(connection.request('update-stream', 'PATCH', 'streams/99'))) as ZulipApiError;
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
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as ServerError;
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
    ['an HTML 404 (a web server, not the chat server)', { status: 404, text: '<html>Not Found</html>' }, 404],
    ['an empty 404', { status: 404, text: '' }, 404],
  ])('%s is a MalformedResponseError', async (_name, response, status) => {
    const { connection } = connect([response]);
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as MalformedResponseError;
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.kind).toBe('malformed');
    expect(error.httpStatus).toBe(status);
  });

  test.each([
    ['a non-JSON 403', { status: 403, text: 'Forbidden' }, 403, 'FORBIDDEN'],
    ['a JSON 404 of another shape', { status: 404, json: { detail: 'Not Found' } }, 404, 'NOT_FOUND'],
    ['an empty 415', { status: 415, text: '' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a JSON 415 of another shape', { status: 415, json: { detail: 'Unsupported Media Type' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an unusual non-JSON 418', { status: 418, text: "I'm a teapot" }, 418, 'HTTP_418'],
  ])('%s is a ZulipApiError with a code from its status, never a success', async (_name, response, status, code) => {
    const { connection } = connect([response]);
    const error = (await failure(connection.request('send-message', 'POST', 'messages', { content: raw('x') }))) as ZulipApiError;
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
    const error = (await failure(connection.request('get-own-user', 'GET', 'users/me'))) as ZulipApiError;
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
      const error = (await failure(connection.request('get-events', 'GET', 'events'))) as ZulipApiError;
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
    const error = (await failure(connection.request('send-message', 'POST', 'messages', { content: raw('hi') }))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toBeInstanceOf(ZulipError);
    expect(error.kind).toBe('network');
    expect(error.reason).toBe(reason);
    expect(error.causeCode).toBe(code);
    expect(seen).toHaveLength(0); // no HTTP response was received
  });
});
