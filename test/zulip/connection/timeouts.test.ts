import { describe, expect, test } from 'vitest';
import { NetworkError, ServerError } from '../../../src/zulip/index.js';
import { success } from '../../helpers/scripted-fetch.js';
import { connect, failure } from './shared.js';

describe('timeouts and aborts', () => {
  test('a call that outlives deadlineMs fails with reason timeout', async () => {
    const { connection, fetch } = connect([{ hang: true }], { deadlineMs: 30 });
    const error = (await failure(connection.request('get-events', 'GET', 'events', {}, { retry: false }))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('timeout');
    expect(fetch.requests).toHaveLength(1);
  });

  test('SendOptions.deadlineMs overrides the connection deadline', async () => {
    const { connection } = connect([{ hang: true }], { deadlineMs: 60_000 });
    const started = performance.now();
    const error = (await failure(connection.request('get-events', 'GET', 'events', {}, { retry: false, deadlineMs: 20 }))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('a timed-out GET is not retried: its one deadline is spent', async () => {
    const { connection, fetch } = connect([{ hang: true }, success({ streams: [] })], { deadlineMs: 20 });
    const error = (await failure(connection.request('get-streams', 'GET', 'streams'))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(fetch.requests).toHaveLength(1);
  });

  test('a retry whose wait does not fit in the deadline is not made; the real failure is thrown', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()], {
      deadlineMs: 200,
      retry: { maxRetries: 2, minDelayMs: 1_000, maxDelayMs: 1_000 },
    });
    const started = performance.now();
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(performance.now() - started).toBeLessThan(1_000); // the retry would have waited 1 s first
    expect(fetch.requests).toHaveLength(1);
  });

  test("the caller's signal aborts with reason aborted, and is not retried", async () => {
    const { connection, fetch } = connect([{ hang: true }, success()]);
    const controller = new AbortController();
    const pending = failure(connection.request('get-events', 'GET', 'events', {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    const error = (await pending) as NetworkError;
    expect(error.reason).toBe('aborted');
    expect(fetch.requests).toHaveLength(1);
  });

  test('an already-aborted signal fails without waiting', async () => {
    const { connection } = connect([{ hang: true }]);
    const error = (await failure(connection.request('get-events', 'GET', 'events', {}, { signal: AbortSignal.abort() }))) as NetworkError;
    expect(error.reason).toBe('aborted');
  });

  test('aborting during a retry pause ends the call as aborted', async () => {
    const { connection, fetch } = connect([{ status: 503, text: '' }, success()], {
      retry: { maxRetries: 2, minDelayMs: 5_000, maxDelayMs: 5_000 },
    });
    const controller = new AbortController();
    const pending = failure(connection.request('get-users', 'GET', 'users', {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect(((await pending) as NetworkError).reason).toBe('aborted');
    expect(fetch.requests).toHaveLength(1);
  });
});
