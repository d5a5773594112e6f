/**
 * Per-request context (src/gateway/context.ts): where credentials come from, that a bad header
 * never falls back to another identity, and what the request's connections send.
 */
import { describe, expect, it } from 'vitest';
import { createContext, requireCredentials } from '../../src/gateway/context.js';
import { AuthorizationCache, credentialsFromConnectionParams, parseAuthorization } from '../../src/gateway/credentials.js';
import { UpstreamServer } from '../../src/gateway/upstream/server.js';
import type { Credentials } from '../../src/zulip/connection.js';
import { getServerSettings } from '../../src/zulip/routes/server-settings.js';
import { basicAuth } from '../helpers/harness.js';
import { scriptedFetch, success } from '../helpers/scripted-fetch.js';

const hamlet: Credentials = { email: 'hamlet@zulip.example.com', apiKey: 'hamlet-key-0001' };
const service: Credentials = { email: 'bot@zulip.example.com', apiKey: 'service-key-0002' };

function request(authorization?: string): Request {
  return new Request('http://gateway.localhost/graphql', authorization === undefined ? {} : { headers: { authorization } });
}

describe('parseAuthorization', () => {
  it('reads Basic base64(email:apiKey), whatever the scheme case', () => {
    expect(parseAuthorization(basicAuth(hamlet))).toEqual({ credentials: hamlet });
    expect(parseAuthorization(basicAuth(hamlet).replace('Basic', 'basic'))).toEqual({ credentials: hamlet });
  });

  it('keeps colons after the first one in the API key', () => {
    const odd = { email: 'a@b.c', apiKey: 'x:y' };
    expect(parseAuthorization(basicAuth(odd))).toEqual({ credentials: odd });
  });

  it.each([
    ['another scheme', 'Bearer abc.def'],
    ['no token', 'Basic '],
    ['not base64', 'Basic ***'],
    ['no colon', `Basic ${Buffer.from('hamlet').toString('base64')}`],
    ['an empty email', `Basic ${Buffer.from(':key').toString('base64')}`],
    ['an empty key', `Basic ${Buffer.from('hamlet@x:').toString('base64')}`],
  ])('refuses %s without echoing the value', (_name, value) => {
    const parsed = parseAuthorization(value);
    expect(parsed).toHaveProperty('problem');
    expect('problem' in parsed && parsed.problem).not.toContain(value.slice(6) || 'Bearer');
  });
});

describe('createContext', () => {
  const upstream = (fetch = scriptedFetch()) =>
    new UpstreamServer({ baseUrl: 'http://ctx.localhost', fetch, defaultCredentials: service });

  it("uses the caller's credentials when the request has some", () => {
    const ctx = createContext({ request: request(basicAuth(hamlet)), upstream: upstream() });
    expect(ctx.credentials).toEqual(hamlet);
    expect(requireCredentials(ctx)).toEqual(hamlet);
  });

  it('parses a header value once for the requests that repeat it, each still with a connection and key of its own credentials', () => {
    const server = upstream();
    const first = createContext({ request: request(basicAuth(hamlet)), upstream: server });
    const second = createContext({ request: request(basicAuth(hamlet)), upstream: server });
    const other = createContext({ request: request(basicAuth(service)), upstream: server });
    expect(second.credentials).toBe(first.credentials);
    expect(second.connection).not.toBe(first.connection);
    expect(second.connection.credentialKey).toBe(first.connection.credentialKey);
    expect(other.credentials).toEqual(service);
    expect(other.connection.credentialKey).not.toBe(first.connection.credentialKey);
    // The same key as a connection that never shared anything computes for the same credentials.
    expect(new UpstreamServer({ baseUrl: 'http://ctx.localhost' }).connection.withCredentials({ ...hamlet }).credentialKey).toBe(first.connection.credentialKey);
  });

  it('keeps a bounded number of header values, the oldest dropped first', () => {
    const cache = new AuthorizationCache(2);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => basicAuth({ email: `${name}@zulip.example.com`, apiKey: `${name}-key` }));
    const parsedA = cache.get(a!);
    expect(cache.get(a!)).toBe(parsedA);
    cache.get(b!);
    cache.get(c!);
    expect(cache.get(a!)).not.toBe(parsedA);
    expect(cache.get(a!)).toEqual(parsedA);
    expect(cache.get(null)).toBeUndefined();
    expect(cache.get('Bearer x')).toEqual(parseAuthorization('Bearer x'));
  });

  it('uses the configured default credentials only when there is no Authorization header', () => {
    expect(createContext({ request: request(), upstream: upstream() }).credentials).toEqual(service);
  });

  it('never falls back to the default for an unusable header, and says UNAUTHENTICATED', () => {
    const ctx = createContext({ request: request('Bearer nope'), upstream: upstream() });
    expect(ctx.credentials).toBeUndefined();
    expect(() => requireCredentials(ctx)).toThrow(expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } }));
  });

  it('says UNAUTHENTICATED when there are no credentials at all', () => {
    const ctx = createContext({ request: request(), upstream: new UpstreamServer({ baseUrl: 'http://ctx.localhost', fetch: scriptedFetch() }) });
    expect(() => requireCredentials(ctx)).toThrow(/needs credentials/);
  });

  it('sends the caller credentials on `connection`, none on `anonymousConnection`, and counts both', async () => {
    const fetch = scriptedFetch([success(), success(), { status: 503, text: 'down' }, success()]);
    const ctx = createContext({ request: request(basicAuth(hamlet)), upstream: upstream(fetch) });
    await getServerSettings(ctx.connection);
    await getServerSettings(ctx.anonymousConnection);
    await getServerSettings(ctx.anonymousConnection); // one 503, retried once
    expect(fetch.requests.map((r) => r.basicAuth)).toEqual([hamlet, undefined, undefined, undefined]);
    expect(ctx.upstream.requests).toBe(4);
  });

  it('collects the parameters the server ignored', async () => {
    const fetch = scriptedFetch([success({ ignored_parameters_unsupported: ['a', 'b'] }), success({ ignored_parameters_unsupported: ['a'] })]);
    const ctx = createContext({ request: request(), upstream: upstream(fetch) });
    await getServerSettings(ctx.connection);
    await getServerSettings(ctx.connection);
    expect([...ctx.ignoredParameters]).toEqual(['a', 'b']);
  });
});

describe('credentialsFromConnectionParams', () => {
  it.each([
    ['authorization', { authorization: basicAuth(hamlet) }, { credentials: hamlet }],
    ['Authorization', { Authorization: basicAuth(hamlet) }, { credentials: hamlet }],
    ['email and apiKey, read as they are', { email: hamlet.email, apiKey: hamlet.apiKey }, { credentials: hamlet }],
    ['an empty payload', {}, undefined],
    ['no payload', undefined, undefined],
    ['a payload that is not an object', basicAuth(hamlet), undefined],
  ])('reads %s', (_name, params, expected) => {
    expect(credentialsFromConnectionParams(params, undefined)).toEqual(expected);
  });

  it('falls back to the upgrade request header only when the payload has no credential field', () => {
    expect(credentialsFromConnectionParams({}, basicAuth(hamlet))).toEqual({ credentials: hamlet });
    expect(credentialsFromConnectionParams({ email: service.email, apiKey: service.apiKey }, basicAuth(hamlet))).toEqual({ credentials: service });
  });

  it.each([
    ['a non-string authorization', { authorization: 42 }],
    ['a null authorization', { authorization: null }],
    ['an email without its key', { email: hamlet.email }],
    ['both forms', { authorization: basicAuth(hamlet), email: hamlet.email, apiKey: hamlet.apiKey }],
  ])('takes %s as unusable, never as absent', (_name, params) => {
    expect(credentialsFromConnectionParams(params, basicAuth(hamlet))).toEqual({ problem: expect.stringMatching(/^Unusable credentials/), payload: true });
  });

  it('refuses an unusable authorization value as the HTTP header is refused', () => {
    expect(credentialsFromConnectionParams({ authorization: 'Bearer nope' }, undefined)).toEqual(parseAuthorization('Bearer nope'));
    expect(credentialsFromConnectionParams({ authorization: 'Bearer nope' }, undefined)).toHaveProperty('problem');
  });
});
