/**
 * An Authorization header that is present but unusable is refused by the gateway itself, with
 * UNAUTHENTICATED and its own message, and nothing goes upstream, not even an anonymous call for a
 * public field (plugins/credentials.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../helpers/harness.js';

const h = createHarness();
afterAll(() => h.close());

const unusable: [string, string][] = [
  // (Bearer is a session token: test/gateway/schema/sessions.test.ts.)
  ['another scheme', 'Digest abc.def'],
  ['garbage', 'garbage'],
  ['an empty value', ''],
  ['no base64', 'Basic !!!not-base64!!!'],
  ['no colon', `Basic ${Buffer.from('hamlet@zulip.example.com').toString('base64')}`],
  ['no API key', `Basic ${Buffer.from('hamlet@zulip.example.com:').toString('base64')}`],
];

describe('unusable Authorization headers', () => {
  it.each(unusable)('refuses %s with UNAUTHENTICATED and no upstream call', async (_, authorization) => {
    h.resetUpstreamRequests();
    const { status, data, errors } = await h.gql('{ serverSettings { realmName } }', {}, { headers: { authorization } });
    expect(status).toBe(200);
    expect(data ?? null).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors![0]!.extensions?.code).toBe('UNAUTHENTICATED');
    expect(errors![0]!.message).toMatch(/^The Authorization header must/);
    expect(errors![0]!.message).not.toContain(authorization || '\u0000');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses a subscription over SSE the same way', async () => {
    h.resetUpstreamRequests();
    const stream = await h.sse('subscription { events { __typename } }', {}, { headers: { authorization: 'Digest abc' } });
    const [result] = await stream.waitFor(1);
    stream.close();
    expect(result!.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('still serves a request without any Authorization header anonymously', async () => {
    const { data, errors } = await h.gql('{ serverSettings { realmName } }', {}, { as: null });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ serverSettings: { realmName: expect.any(String) } });
  });
});

describe('anonymous operations', () => {
  it('refuses a field that needs credentials (`me`) with UNAUTHENTICATED before any upstream call', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql('{ me { zulipId } }', {}, { as: null });
    expect(data ?? null).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors![0]!.extensions?.code).toBe('UNAUTHENTICATED');
    expect(errors![0]!.message).toMatch(/`me` needs credentials/);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses it behind a fragment, and with a public field beside it', async () => {
    h.resetUpstreamRequests();
    const { errors } = await h.gql('query { serverSettings { realmName } ...F } fragment F on Query { users { zulipId } }', {}, { as: null });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses an anonymous subscription over SSE before any upstream call', async () => {
    h.resetUpstreamRequests();
    const stream = await h.sse('subscription { events { __typename } }', {}, { as: null });
    const [result] = await stream.waitFor(1);
    stream.close();
    expect(result!.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('serves the fields that declare `anonymous`: login and server settings', async () => {
    const { errors } = await h.gql('{ serverSettings { realmName } __typename }', {}, { as: null });
    expect(errors).toBeUndefined();
    const login = await h.gql('mutation { fetchApiKey(username: "nobody@zulip.example.com", password: "wrong") { apiKey } }', {}, { as: null });
    expect(login.errors?.[0]?.extensions?.upstreamCode).toBe('AUTHENTICATION_FAILED');
  });
});
