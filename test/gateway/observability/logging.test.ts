/** Logging through real HTTP: request ids, levels by cause, redaction, yoga's own logs. */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, yogaLogger } from '../../../src/gateway/observability/logger.js';
import { useLogging } from '../../../src/gateway/plugins/logging.js';
import { useRequestId } from '../../../src/gateway/plugins/request-id.js';
import { memoryDestination, post, startTestServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => server?.close());

async function setup() {
  const destination = memoryDestination();
  const logger = createLogger({ level: 'debug', destination });
  server = await startTestServer({ plugins: [useRequestId(logger), useLogging(logger)] });
  return { destination, server };
}

describe('request ids', () => {
  it('keeps a sane client id, echoes it, logs it and sends it upstream', async () => {
    const { destination, server } = await setup();
    const { response, body } = await post(server.url, { query: '{ upstream }' }, { 'x-request-id': 'abc-123' });
    expect(response.headers.get('x-request-id')).toBe('abc-123');
    expect(JSON.parse(body.data!.upstream as string)).toEqual({ 'x-request-id': 'abc-123' });
    expect(destination.lines.find((l) => l.msg === 'request')).toMatchObject({ requestId: 'abc-123', method: 'POST', path: '/graphql', status: 200, level: 'info' });
  });

  it.each([['has space'], ['x'.repeat(129)], ['new\nline']])('replaces an unusable client id %j with a fresh one', async (id) => {
    const { server } = await setup();
    const { response } = await post(server.url, { query: '{ hello }' }, { 'x-request-id': id.replace('\n', '%0A') });
    const echoed = response.headers.get('x-request-id')!;
    expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('generates distinct ids without a client id', async () => {
    const { server } = await setup();
    const a = (await post(server.url, { query: '{ hello }' })).response.headers.get('x-request-id');
    const b = (await post(server.url, { query: '{ hello }' })).response.headers.get('x-request-id');
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });
});

describe('error levels', () => {
  it('logs a gateway bug at error with its stack, and masks it for the client', async () => {
    const { destination, server } = await setup();
    const { body } = await post(server.url, { query: 'query Broken { fail }' }, { 'x-request-id': 'req-1' });
    expect(body.errors![0]!.message).toBe('Unexpected error.');
    const line = destination.lines.find((l) => l.level === 'error')!;
    expect(line).toMatchObject({ requestId: 'req-1', errorKind: 'bug', operationName: 'Broken', msg: 'gateway error: bug: undefined is not a function' });
    expect((line.err as { stack: string }).stack).toContain('server.ts');
  });

  it('logs an upstream refusal at debug without a stack', async () => {
    const { destination, server } = await setup();
    await post(server.url, { query: '{ refused }' });
    const line = destination.lines.find((l) => l.errorKind === 'refused')!;
    expect(line).toMatchObject({ level: 'debug', route: 'get-messages', httpStatus: 400, code: 'BAD_NARROW' });
    expect(line.err).toBeUndefined();
    expect(destination.lines.some((l) => l.level === 'error' || l.level === 'warn')).toBe(false);
  });
});

describe('redaction', () => {
  it('redacts Authorization, API keys and connection params wherever they are logged', () => {
    const destination = memoryDestination();
    const log = createLogger({ level: 'info', destination });
    log.info({ headers: { authorization: 'Basic c2VjcmV0', cookie: 'sid=1' }, credentials: { email: 'a@b', apiKey: 'k1' }, upstream: { apiKey: 'k2' }, connectionParams: { authorization: 'x' }, variables: { password: 'pw1', pushKey: 'pk1', encryptedPushRegistration: 'epr1' }, password: 'pw2', api_key: 'k3', push_key: 'pk2', encrypted_push_registration: 'epr2' }, 'x');
    const text = JSON.stringify(destination.lines);
    // k3: a regenerated or bot API key (regenerateApiKey, botApiKey) as Zulip's responses name it;
    // pk*, epr*: a device's E2EE push key and encrypted push registration (registerPushDevice).
    for (const secret of ['c2VjcmV0', 'sid=1', 'k1', 'k2', 'k3', 'pw1', 'pw2', 'pk1', 'pk2', 'epr1', 'epr2']) expect(text).not.toContain(secret);
    expect(destination.lines[0]).toMatchObject({ headers: { authorization: '[redacted]' }, credentials: '[redacted]', upstream: { apiKey: '[redacted]' } });
  });

  it('passes yoga\'s own logs through pino, an error with its stack', () => {
    const destination = memoryDestination();
    const adapter = yogaLogger(createLogger({ level: 'info', destination }));
    adapter.debug('not shown at info');
    adapter.warn('something', 'odd');
    adapter.error(new Error('thrown inside yoga'));
    expect(destination.lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'something odd'],
      ['error', 'gateway error: thrown inside yoga'],
    ]);
    expect(destination.lines[1]!.err).toMatchObject({ message: 'thrown inside yoga' });
  });
});

describe('classifyError', () => {
  it('sorts failures by what they mean to an operator', async () => {
    const { classifyError } = await import('../../../src/gateway/observability/logger.js');
    const { NetworkError, ServerError, ZulipApiError } = await import('../../../src/zulip/errors.js');
    const { GraphQLError } = await import('graphql');
    expect(classifyError(new ZulipApiError('get-messages', { httpStatus: 403, code: 'UNAUTHORIZED' }))).toEqual({ level: 'debug', stack: false, kind: 'refused' });
    expect(classifyError(new GraphQLError('wrapped', { originalError: new NetworkError('get-messages', 'timeout') }))).toEqual({ level: 'warn', stack: false, kind: 'upstream' });
    expect(classifyError(new ServerError('get-users', 502))).toEqual({ level: 'warn', stack: false, kind: 'upstream' });
    expect(classifyError(new GraphQLError('bad', { extensions: { code: 'BAD_USER_INPUT' } }))).toEqual({ level: 'debug', stack: false, kind: 'client' });
    expect(classifyError(new TypeError('x is undefined'))).toEqual({ level: 'error', stack: true, kind: 'bug' });
  });
});
