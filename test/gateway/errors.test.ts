/**
 * The ZulipError → GraphQLError table (src/gateway/errors.ts): one stable `extensions.code` per
 * failure, the route and status kept, nothing unexpected shown.
 */
import { RedisUnavailableError } from '../../src/gateway/cluster/errors.js';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  badInput,
  GatewayErrorCode,
  isNotFound,
  notFoundError,
  toGraphQLError,
  unsupportedByServer,
} from '../../src/gateway/errors.js';
import { MalformedResponseError, NetworkError, ServerError, ZulipApiError } from '../../src/zulip/errors.js';

const route = 'get-messages';

describe('toGraphQLError', () => {
  const table: [string, unknown, string, Record<string, unknown>][] = [
    [
      'an API error keeps the upstream message, code, status and extra fields',
      new ZulipApiError(route, { code: 'STREAM_DOES_NOT_EXIST', httpStatus: 400, msg: "Channel 'x' does not exist", data: { stream: 'x' } }),
      "Channel 'x' does not exist",
      { code: 'STREAM_DOES_NOT_EXIST', httpStatus: 400, route, stream: 'x' },
    ],
    [
      'an API error without a code counts as BAD_REQUEST',
      new ZulipApiError(route, { httpStatus: 400, msg: 'Invalid narrow' }),
      'Invalid narrow',
      { code: 'BAD_REQUEST', httpStatus: 400, route },
    ],
    [
      'a move over the time limit carries the fields a client needs to retry',
      new ZulipApiError('update-message', {
        code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
        httpStatus: 400,
        msg: 'You only have permission to move the 2/3 most recent messages in this topic.',
        data: { first_message_id_allowed_to_move: null, total_messages_allowed_to_move: 2, total_messages_in_topic: 3 },
      }),
      'You only have permission to move the 2/3 most recent messages in this topic.',
      {
        code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
        httpStatus: 400,
        route: 'update-message',
        first_message_id_allowed_to_move: null,
        total_messages_allowed_to_move: 2,
        total_messages_in_topic: 3,
      },
    ],
    [
      'a 429 is RATE_LIMIT_HIT with retryAfter',
      new ZulipApiError(route, { code: 'RATE_LIMIT_HIT', httpStatus: 429, msg: 'API usage exceeded rate limit', retryAfter: 2.5 }),
      'API usage exceeded rate limit',
      { code: 'RATE_LIMIT_HIT', httpStatus: 429, route, retryAfter: 2.5 },
    ],
    [
      'a 429 without a code is still RATE_LIMIT_HIT',
      new ZulipApiError(route, { httpStatus: 429, msg: 'Slow down' }),
      'Slow down',
      { code: 'RATE_LIMIT_HIT', httpStatus: 429, route },
    ],
    [
      'an invalid API key is UNAUTHENTICATED, keeping the server code',
      new ZulipApiError(route, { code: 'INVALID_API_KEY', httpStatus: 401, msg: 'Invalid API key' }),
      'Invalid API key',
      { code: 'UNAUTHENTICATED', upstreamCode: 'INVALID_API_KEY', httpStatus: 401, route },
    ],
    [
      'a deactivated user is UNAUTHENTICATED',
      new ZulipApiError(route, { code: 'USER_DEACTIVATED', httpStatus: 403, msg: 'Account is deactivated' }),
      'Account is deactivated',
      { code: 'UNAUTHENTICATED', upstreamCode: 'USER_DEACTIVATED', httpStatus: 403, route },
    ],
    [
      'a timeout is UPSTREAM_TIMEOUT',
      new NetworkError(route, 'timeout'),
      'The chat server did not answer in time (get-messages).',
      { code: 'UPSTREAM_TIMEOUT', route },
    ],
    [
      'a refused connection is UPSTREAM_UNAVAILABLE',
      new NetworkError(route, 'connect', 'ECONNREFUSED'),
      'The chat server could not be reached (get-messages).',
      { code: 'UPSTREAM_UNAVAILABLE', route },
    ],
    [
      'a reset connection is UPSTREAM_UNAVAILABLE',
      new NetworkError(route, 'reset', 'ECONNRESET'),
      'The chat server could not be reached (get-messages).',
      { code: 'UPSTREAM_UNAVAILABLE', route },
    ],
    [
      'any other network failure is UPSTREAM_UNAVAILABLE',
      new NetworkError(route, 'other'),
      'The chat server could not be reached (get-messages).',
      { code: 'UPSTREAM_UNAVAILABLE', route },
    ],
    [
      'a 5xx is UPSTREAM_UNAVAILABLE with its status',
      new ServerError(route, 503),
      'The chat server failed with HTTP 503 (get-messages).',
      { code: 'UPSTREAM_UNAVAILABLE', httpStatus: 503, route },
    ],
    [
      'a body that is not a Zulip envelope is UPSTREAM_BAD_RESPONSE',
      new MalformedResponseError(route, 200),
      'The chat server sent a response that is not valid for get-messages.',
      { code: 'UPSTREAM_BAD_RESPONSE', httpStatus: 200, route, hint: "is ZULIP_URL the chat server's origin?" },
    ],
  ];

  it.each(table)('%s', (_name, thrown, message, extensions) => {
    const mapped = toGraphQLError(thrown);
    expect(mapped).toBeInstanceOf(GraphQLError);
    expect(mapped.message).toBe(message);
    expect(mapped.extensions).toEqual(extensions);
  });

  it('keeps the path and locations when graphql-js wrapped the ZulipError', () => {
    const located = new GraphQLError('ignored', {
      path: ['messages', 0, 'sender'],
      originalError: new NetworkError(route, 'timeout'),
    });
    const mapped = toGraphQLError(located);
    expect(mapped.path).toEqual(['messages', 0, 'sender']);
    expect(mapped.extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(mapped.originalError).toBeUndefined();
  });

  it('does not let error data overwrite code, route or status', () => {
    const mapped = toGraphQLError(
      new ZulipApiError(route, { code: 'BAD_REQUEST', httpStatus: 400, msg: 'no', data: { code: 'X', route: 'y', httpStatus: 1 } }),
    );
    expect(mapped.extensions).toMatchObject({ code: 'BAD_REQUEST', route, httpStatus: 400 });
  });

  it('a Redis outage (cluster mode) is REDIS_UNAVAILABLE, not a masked bug nor UPSTREAM_ERROR', () => {
    const mapped = toGraphQLError(new RedisUnavailableError('Redis is unreachable: connect ECONNREFUSED 10.0.0.5:6379'));
    expect(mapped.extensions).toEqual({ code: 'REDIS_UNAVAILABLE' });
    expect(mapped.message).not.toContain('10.0.0.5');
  });

  it('passes deliberate GraphQLErrors through unchanged', () => {
    const deliberate = new GraphQLError('needs credentials', { extensions: { code: 'UNAUTHENTICATED' } });
    expect(toGraphQLError(deliberate)).toBe(deliberate);
    const wrapped = new GraphQLError('needs credentials', { path: ['me'], originalError: deliberate });
    expect(toGraphQLError(wrapped)).toBe(wrapped);
  });

  it.each([
    ['an Error', new Error('secret-key-123 at http://10.1.2.3/api/v1/users')],
    ['a TypeError wrapped by graphql-js', new GraphQLError('x', { path: ['a'], originalError: new TypeError('secret-key-123') })],
    ['a string', 'secret-key-123'],
    ['undefined', undefined],
  ])('masks %s as "Unexpected error." with no details', (_name, thrown) => {
    const mapped = toGraphQLError(thrown);
    expect(mapped.message).toBe('Unexpected error.');
    expect(mapped.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', unexpected: true });
    expect(JSON.stringify(mapped.toJSON())).not.toMatch(/secret|10\.1\.2\.3|stack/);
  });
});

describe('the error catalogue', () => {
  it('has one distinct SCREAMING_SNAKE_CASE code per name', () => {
    const codes = Object.values(GatewayErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
  });

  it('builds BAD_USER_INPUT, NOT_FOUND and UNSUPPORTED_BY_SERVER errors that pass through unchanged', () => {
    const bad = badInput('`first` must be between 0 and 1000.', { argument: 'first' });
    expect(bad.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'first' });
    const missing = notFoundError('No user with ID 9 exists or is visible to you.');
    expect(isNotFound(missing)).toBe(true);
    expect(isNotFound(bad)).toBe(false);
    expect(isNotFound(new Error('NOT_FOUND'))).toBe(false);
    const old = unsupportedByServer('Editing scheduled messages', 184, 150);
    expect(old.message).toBe('Editing scheduled messages needs a chat server with feature level 184 or newer; this one has feature level 150.');
    expect(old.extensions).toEqual({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 184, featureLevel: 150 });
    for (const error of [bad, missing, old]) expect(toGraphQLError(error)).toBe(error);
  });
});
