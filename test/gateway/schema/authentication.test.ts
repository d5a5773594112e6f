/**
 * Login end to end: `fetchApiKey` through the gateway to the emulator, without credentials or with
 * unusable ones, its errors, and the password kept out of every log line, span, metric and error.
 */
import { createHmac } from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../../src/emulator/app.js';
import { initialPassword } from '../../../src/emulator/routes/settings.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { start } from '../../../src/main.js';
import { createHarness } from '../../helpers/harness.js';
import { memoryDestination } from '../observability/server.js';

const HAMLET = demoUser('hamlet');
const PASSWORD = initialPassword(HAMLET.email);
const LOGIN = 'mutation($u: String!, $p: String!) { fetchApiKey(username: $u, password: $p) { apiKey email userId } }';

describe('fetchApiKey', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('answers the API key without credentials, in one upstream call, and the key works', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ fetchApiKey: { apiKey: string; email: string; userId: number } }>(
      LOGIN,
      { u: HAMLET.email, p: PASSWORD },
      { as: null },
    );
    expect(errors).toBeUndefined();
    expect(data!.fetchApiKey).toEqual({ apiKey: HAMLET.apiKey, email: HAMLET.email, userId: h.userId('hamlet') });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST fetch_api_key']);
    const me = await h.gql<{ me: { user: { fullName: string } } }>('{ me { user { fullName } } }', {}, { as: { email: data!.fetchApiKey.email, apiKey: data!.fetchApiKey.apiKey } });
    expect(me.errors).toBeUndefined();
    expect(me.data?.me.user.fullName).toBe('King Hamlet');
  });

  it('logs in as the named account whatever credentials the request carries', async () => {
    const { data, errors } = await h.gql<{ fetchApiKey: { email: string } }>(LOGIN, { u: HAMLET.email, p: PASSWORD });
    expect(errors).toBeUndefined();
    expect(data!.fetchApiKey.email).toBe(HAMLET.email);
  });

  it('runs with an unusable Authorization header, which still refuses every other operation', async () => {
    const broken = { as: null, headers: { authorization: 'Digest not-basic' } };
    const login = await h.gql<{ fetchApiKey: { email: string } }>(LOGIN, { u: HAMLET.email, p: PASSWORD }, broken);
    expect(login.errors).toBeUndefined();
    expect(login.data!.fetchApiKey.email).toBe(HAMLET.email);
    h.resetUpstreamRequests();
    const mixed = await h.gql(
      'mutation($u: String!, $p: String!) { fetchApiKey(username: $u, password: $p) { email } deleteDraft(id: 1) { draftId } }',
      { u: HAMLET.email, p: PASSWORD },
      broken,
    );
    expect(mixed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const query = await h.gql('{ me { zulipId } }', {}, broken);
    expect(query.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('answers UNAUTHENTICATED (upstreamCode AUTHENTICATION_FAILED) for a wrong password, without echoing it', async () => {
    const { data, errors } = await h.gql(LOGIN, { u: HAMLET.email, p: 'hunter2-wrong' }, { as: null });
    expect(data).toBeNull();
    expect(errors?.[0]).toMatchObject({
      message: 'Your username or password is incorrect',
      extensions: { code: 'UNAUTHENTICATED', upstreamCode: 'AUTHENTICATION_FAILED', route: 'fetch-api-key', httpStatus: 401 },
    });
    expect(JSON.stringify(errors)).not.toContain('hunter2-wrong');
  });

  it('refuses an empty username or password before any upstream call', async () => {
    h.resetUpstreamRequests();
    for (const [u, p] of [[' ', PASSWORD], [HAMLET.email, '']]) {
      const { errors } = await h.gql(LOGIN, { u, p }, { as: null });
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('fetchApiKey keeps the password secret', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('in no log line (at trace level), span attribute, metric or error, inline or as a variable', async () => {
    const emulator = createEmulator({ seed: 'demo' });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => emulator.close());
    const logs = memoryDestination();
    const spans = new InMemorySpanExporter();
    const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', LOG_LEVEL: 'trace' }, () => undefined, { logDestination: logs, traceExporter: spans });
    cleanups.push(() => started.close());
    const post = async (body: object) => {
      const response = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return JSON.stringify(await response.json());
    };
    const wrong = 'Wr0ng-secret-passphrase';
    const answers = [
      await post({ query: LOGIN, variables: { u: HAMLET.email, p: PASSWORD }, operationName: null }),
      await post({ query: LOGIN, variables: { u: HAMLET.email, p: wrong } }),
      await post({ query: `mutation Login { fetchApiKey(username: "${HAMLET.email}", password: "${wrong}") { email } }` }),
      await post({ query: `mutation Login { fetchApiKey(username: "${HAMLET.email}", password: "${wrong}") { nope } }` }),
    ];
    expect(answers[0]).toContain(HAMLET.apiKey);
    expect(answers.slice(1).join('\n')).toContain('UNAUTHENTICATED');
    const metrics = await (await fetch(`${new URL(started.url).origin}/metrics`)).text();
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(spans.getFinishedSpans().some((s) => s.name === 'mutation Login')).toBe(true);
    const spanText = JSON.stringify(spans.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    for (const secret of [PASSWORD, wrong]) {
      expect(JSON.stringify(logs.lines)).not.toContain(secret);
      expect(spanText).not.toContain(secret);
      expect(metrics).not.toContain(secret);
      expect(answers.slice(1).join('\n')).not.toContain(secret);
    }
  });
});

const JWT_KEY = 'organization-jwt-secret';
const JWT_LOGIN = 'mutation($t: String!) { jwtFetchApiKey(token: $t) { apiKey email userId } }';

/** An HS256 JSON Web Token with these claims, as an identity provider signs one. */
function signJwt(claims: Record<string, unknown>, key = JWT_KEY): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

describe('jwtFetchApiKey', () => {
  const h = createHarness({ emulatorSettings: { jwtAuthKey: JWT_KEY } });
  afterAll(() => h.close());

  it('answers the API key of the account the token names, without credentials', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ jwtFetchApiKey: { apiKey: string; email: string; userId: number } }>(JWT_LOGIN, { t: signJwt({ email: HAMLET.email }) }, { as: null });
    expect(errors).toBeUndefined();
    // Zulip's jwt_fetch_api_key answers no user ID (https://zulip.com/api/jwt-fetch-api-key).
    expect(data!.jwtFetchApiKey).toEqual({ apiKey: HAMLET.apiKey, email: HAMLET.email, userId: null });
    // The feature level is read once per gateway, then the one login call.
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET server_settings', 'POST jwt/fetch_api_key']);
    h.resetUpstreamRequests();
    await h.gql(JWT_LOGIN, { t: signJwt({ email: HAMLET.email }) }, { as: null });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST jwt/fetch_api_key']);
  });

  it('keeps Zulip\u2019s refusals: a bad signature, no email claim, an unknown account; an empty token before any call', async () => {
    const bad = await h.gql(JWT_LOGIN, { t: signJwt({ email: HAMLET.email }, 'another key') }, { as: null });
    expect(bad.errors?.[0]).toMatchObject({ message: 'Bad JSON web token', extensions: { code: 'BAD_REQUEST', route: 'jwt-fetch-api-key' } });
    const noEmail = await h.gql(JWT_LOGIN, { t: signJwt({ sub: 'x' }) }, { as: null });
    expect(noEmail.errors?.[0]?.message).toBe('No email specified in JSON web token claims');
    const unknown = await h.gql(JWT_LOGIN, { t: signJwt({ email: 'nobody@zulip.example.com' }) }, { as: null });
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstreamCode: 'AUTHENTICATION_FAILED' });
    h.resetUpstreamRequests();
    const empty = await h.gql(JWT_LOGIN, { t: ' ' }, { as: null });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 160, without calling the endpoint', async () => {
    const old = createHarness({ emulatorSettings: { jwtAuthKey: JWT_KEY, featureLevel: 159 } });
    try {
      const { errors } = await old.gql(JWT_LOGIN, { t: signJwt({ email: HAMLET.email }) }, { as: null });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 160, featureLevel: 159 });
      expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    } finally {
      await old.close();
    }
  });
});

describe('jwtFetchApiKey keeps the token secret', () => {
  // At every log level: a level adds lines (yoga's debug output, access lines), never the token.
  it.each(['trace', 'debug', 'info', 'warn', 'error'])('in no log line at level %s, span attribute, metric or error', async (level) => {
    const emulator = createEmulator({ seed: 'demo', settings: { jwtAuthKey: JWT_KEY } });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    const logs = memoryDestination();
    const spans = new InMemorySpanExporter();
    const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', LOG_LEVEL: level }, () => undefined, { logDestination: logs, traceExporter: spans });
    try {
      const post = async (body: object) => {
        const response = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return JSON.stringify(await response.json());
      };
      const good = signJwt({ email: HAMLET.email });
      const forged = signJwt({ email: HAMLET.email }, 'a forged key');
      const answers = [
        await post({ query: JWT_LOGIN, variables: { t: good } }),
        await post({ query: JWT_LOGIN, variables: { t: forged } }),
        await post({ query: `mutation Login { jwtFetchApiKey(token: "${forged}") { email } }` }),
        await post({ query: `mutation Login { jwtFetchApiKey(token: "${forged}") { nope } }` }),
      ];
      expect(answers[0]).toContain(HAMLET.apiKey);
      expect(answers[1]).toContain('Bad JSON web token');
      const metrics = await (await fetch(`${new URL(started.url).origin}/metrics`)).text();
      const spanText = JSON.stringify(spans.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
      if (level === 'trace') expect(logs.lines.length).toBeGreaterThan(0);
      for (const secret of [good, forged, ...good.split('.').slice(1), ...forged.split('.').slice(1)]) {
        expect(JSON.stringify(logs.lines)).not.toContain(secret);
        expect(spanText).not.toContain(secret);
        expect(metrics).not.toContain(secret);
        expect(answers.slice(1).join('\n')).not.toContain(secret);
      }
    } finally {
      await started.close();
      await emulator.close();
    }
  });
});
