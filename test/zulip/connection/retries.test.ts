import { describe, expect, test } from 'vitest';
import { NetworkError, ServerError, ZulipApiError, isAuthError } from '../../../src/zulip/index.js';
import { apiError, resetError, success, type ScriptedResponse } from '../../helpers/scripted-fetch.js';
import { connect, failure } from './shared.js';
import { raw } from '../../../src/zulip/params.js';

describe('retries', () => {
  test('a GET is retried on 503 and succeeds within three calls', async () => {
    const { connection, fetch, seen } = connect([
      { status: 503, text: 'Service Unavailable' },
      { status: 503, text: 'Service Unavailable' },
      success({ members: [] }),
    ]);
    const body = await connection.request<{ members: unknown[] }>('get-users', 'GET', 'users');
    expect(body.members).toEqual([]);
    expect(fetch.requests).toHaveLength(3);
    expect(seen.map((info) => info.status)).toEqual([503, 503, 200]);
  });

  test('the waits between retries draw their jitter from the injected random source', async () => {
    const draws: number[] = [];
    const random = () => (draws.push(draws.length), 0.5);
    const { connection, fetch } = connect([{ status: 503, text: '' }, { error: resetError() }, success({ members: [] })], {
      retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 5, random },
    });
    await connection.request('get-users', 'GET', 'users');
    expect(fetch.requests).toHaveLength(3);
    expect(draws).toEqual([0, 1]);
  });

  test('a GET gives up after maxRetries and throws the last error', async () => {
    const { connection, fetch } = connect([{ status: 502, text: '' }, { error: resetError() }, { status: 503, text: '' }, success()]);
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.httpStatus).toBe(503);
    expect(fetch.requests).toHaveLength(3);
    expect(fetch.remaining).toBe(1);
  });

  test.each(['POST', 'PATCH', 'DELETE'] as const)('%s is never retried', async (method) => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, { error: resetError() }, success()]);
    expect(await failure(connection.request('x', method, 'messages/1', { content: raw('a') }))).toBeInstanceOf(ServerError);
    expect(await failure(connection.request('x', method, 'messages/1', { content: raw('a') }))).toBeInstanceOf(NetworkError);
    expect(fetch.requests).toHaveLength(2);
  });

  test('4xx errors, including 401, are not retried', async () => {
    const { connection, fetch } = connect([apiError('UNAUTHORIZED', 'Not logged in', 401), apiError('BAD_REQUEST', 'Invalid narrow')]);
    expect(isAuthError(await failure(connection.request('get-messages', 'GET', 'messages')))).toBe(true);
    expect(await failure(connection.request('get-messages', 'GET', 'messages'))).toBeInstanceOf(ZulipApiError);
    expect(fetch.requests).toHaveLength(2);
  });

  test('retry: false turns retries off for one call', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()]);
    expect(await failure(connection.request('get-events', 'GET', 'events', {}, { retry: false }))).toBeInstanceOf(ServerError);
    expect(fetch.requests).toHaveLength(1);
  });

  test('a 429 is retried after its Retry-After header', async () => {
    const limited = apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429);
    const { connection, fetch } = connect([{ ...limited, headers: { 'Retry-After': '0.08' } } as ScriptedResponse, success()], {
      retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 1000 },
    });
    const started = performance.now();
    await connection.request('get-users', 'GET', 'users');
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(fetch.requests).toHaveLength(2);
  });

  test('a 429 asking for longer than maxDelayMs is thrown at once with retryAfter', async () => {
    const { connection, fetch } = connect([
      apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': 28.7 }),
      success(),
    ]);
    const started = performance.now();
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as ZulipApiError;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('RATE_LIMIT_HIT');
    expect(error.httpStatus).toBe(429);
    expect(error.retryAfter).toBe(28.7);
    expect(fetch.requests).toHaveLength(1);
  });

  test('a 429 on POST is not retried but still carries the header retryAfter', async () => {
    const limited = apiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429);
    const { connection, fetch } = connect([{ ...limited, headers: { 'retry-after': '0.01' } } as ScriptedResponse, success()]);
    const error = (await failure(connection.request('send-message', 'POST', 'messages'))) as ZulipApiError;
    expect(error.retryAfter).toBe(0.01);
    expect(fetch.requests).toHaveLength(1);
  });
});
