/**
 * Server-side sessions end to end (schema/sessions.ts, sessions/): signIn by password or API key,
 * the cookie's attributes, the bearer token and who may have one, a query and a subscription on
 * the session, signOut, expiry on an injected clock, revocation, and every bad input refused with
 * its code, before any upstream call where it can be, with no session created or changed. The
 * gateway on a loopback port (the harness), the emulator behind it.
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { initialPassword } from '../../../src/emulator/routes/settings.js';
import { demoUser } from '../../../src/emulator/seed.js';
import type { MemorySessionStore } from '../../../src/gateway/sessions/store.js';
import { basicAuth, createHarness, setupHarness, type Harness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const HAMLET = demoUser('hamlet');
const IAGO = demoUser('iago');
const PASSWORD = initialPassword(HAMLET.email);
const SIGN_IN = `mutation($email: String!, $password: String, $apiKey: String, $server: String, $bearer: Boolean) {
  signIn(email: $email, password: $password, apiKey: $apiKey, server: $server, bearer: $bearer) { bearerToken session { accounts { accountId server email } expiresAt } }
}`;
const ME = '{ me { user { fullName } } }';
const SIGN_OUT = 'mutation { signOut { signedOut } }';
const EVENTS = 'subscription { events { __typename } }';

type Errors = { message: string; extensions?: Record<string, unknown> }[] | undefined;
const code = (errors: Errors) => errors?.[0]?.extensions?.code;

/** POSTs an operation with exactly these headers (no Authorization unless given). */
async function post(h: Harness, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  await h.ready;
  const response = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const text = await response.text();
  return { status: response.status, setCookie: response.headers.getSetCookie(), text, ...(JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: Errors }) };
}

/** Signs Hamlet in by password; answers the cookie pair (`name=value`). */
async function signIn(h: Harness): Promise<string> {
  const result = await post(h, SIGN_IN, { email: HAMLET.email, password: PASSWORD });
  expect(result.errors).toBeUndefined();
  return result.setCookie[0]!.split(';')[0]!;
}

const storeOf = (h: Harness) => h.gateway.sessions.store as MemorySessionStore;

describe('signIn, a query and a subscription on the session, signOut', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('sets an HttpOnly, SameSite=Lax cookie (no Secure on loopback) and answers no key; one upstream call', async () => {
    h.resetUpstreamRequests();
    const result = await post(h, SIGN_IN, { email: HAMLET.email, password: PASSWORD });
    expect(result.errors).toBeUndefined();
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST fetch_api_key']);
    expect(result.setCookie).toHaveLength(1);
    const cookie = result.setCookie[0]!;
    expect(cookie).toMatch(/^chatgraph-session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    expect(cookie).not.toMatch(/Secure/);
    expect(result.text).not.toContain(HAMLET.apiKey);
    expect(result.data).toEqual({
      signIn: { bearerToken: null, session: { accounts: [{ accountId: expect.any(String), server: h.zulipUrl, email: HAMLET.email }], expiresAt: expect.any(String) } },
    });
  });

  it('serves queries on the cookie as Authorization: Basic would, and a subscription until signOut', async () => {
    const cookie = await signIn(h);
    const me = await post(h, ME, {}, { cookie });
    expect(me.errors).toBeUndefined();
    expect(me.data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });
    const basic = await post(h, ME, {}, { authorization: basicAuth(HAMLET) });
    expect(basic.data).toEqual(me.data);

    const stream = await h.sse(EVENTS, {}, { as: null, headers: { cookie } });
    await until(() => stream.status !== undefined, 5_000, 'the SSE response');
    expect(stream.status).toBe(200);
    const sent = await post(h, 'mutation($c: Long!) { sendMessage(channelId: $c, topic: "sessions", content: "on the session") { messageId } }', { c: h.channelId('general') }, { cookie });
    expect(sent.errors).toBeUndefined();
    await stream.waitFor(1);

    const out = await post(h, SIGN_OUT, {}, { cookie });
    expect(out.errors).toBeUndefined();
    expect(out.setCookie[0]).toMatch(/^chatgraph-session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    await stream.waitDone();
    expect(code(stream.results.at(-1)!.errors as Errors)).toBe('SESSION_ENDED');
    h.resetUpstreamRequests();
    const after = await post(h, ME, {}, { cookie });
    expect(code(after.errors)).toBe('SESSION_INVALID');
    expect(h.upstreamRequests).toHaveLength(0);
    const again = await post(h, SIGN_OUT, {}, { cookie });
    expect(code(again.errors)).toBe('SESSION_INVALID');
  });

  it('gives a bearer token to a client that is no browser, and serves it; never to a browser', async () => {
    const result = await post(h, SIGN_IN, { email: HAMLET.email, apiKey: HAMLET.apiKey, bearer: true });
    expect(result.errors).toBeUndefined();
    expect(result.setCookie).toEqual([]);
    const token = (result.data!.signIn as { bearerToken: string }).bearerToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await post(h, ME, {}, { authorization: `Bearer ${token}` })).data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });

    const size = storeOf(h).size;
    h.resetUpstreamRequests();
    for (const headers of [{ origin: 'http://app.example' }, { cookie: 'theme=dark' }] as Record<string, string>[]) {
      const refused = await post(h, SIGN_IN, { email: HAMLET.email, apiKey: HAMLET.apiKey, bearer: true }, headers);
      expect(code(refused.errors)).toBe('BEARER_REFUSED');
      expect(refused.text).not.toContain(HAMLET.apiKey);
    }
    expect(h.upstreamRequests).toHaveLength(0);
    expect(storeOf(h).size).toBe(size);
  });

  it('keeps Authorization: Basic as it is, cookie or not', async () => {
    const cookie = await signIn(h);
    const as = await post(h, '{ me { user { fullName } } session { accounts { email } } }', {}, { cookie, authorization: basicAuth(IAGO) });
    expect(as.errors).toBeUndefined();
    expect(as.data).toEqual({ me: { user: { fullName: 'Iago' } }, session: null });
  });

  it('holds no key, email or token in the clear in its store', async () => {
    const cookie = await signIn(h);
    const token = cookie.split('=')[1]!;
    const session = await h.gateway.sessions.resolve(token);
    expect(session?.accounts[0]?.email).toBe(HAMLET.email);
    expect(session!.id).not.toContain(token);
    const stored = JSON.stringify(await storeOf(h).get(session!.id));
    expect(stored).toContain('"sealed":"v1.');
    for (const secret of [HAMLET.apiKey, HAMLET.email, token, PASSWORD]) expect(stored).not.toContain(secret);
  });
});

describe('bad input: each a code, no session created or changed', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('refuses a wrong password (SIGN_IN_FAILED) and a wrong API key, storing nothing', async () => {
    const size = storeOf(h).size;
    const wrong = await post(h, SIGN_IN, { email: HAMLET.email, password: 'not the password' });
    expect(code(wrong.errors)).toBe('SIGN_IN_FAILED');
    expect(wrong.setCookie).toEqual([]);
    const key = await post(h, SIGN_IN, { email: HAMLET.email, apiKey: 'wrongwrongwrongwrongwrongwrong12' });
    expect(code(key.errors)).toBe('SIGN_IN_FAILED');
    expect(storeOf(h).size).toBe(size);
  });

  it('refuses a server not allowed before any connection (SERVER_NOT_ALLOWED)', async () => {
    h.resetUpstreamRequests();
    for (const server of ['http://169.254.169.254', 'https://evil.example', 'not a url']) {
      const result = await post(h, SIGN_IN, { email: HAMLET.email, password: PASSWORD, server });
      expect(code(result.errors)).toBe('SERVER_NOT_ALLOWED');
    }
    expect(h.upstreamRequests).toHaveLength(0);
    const same = await post(h, SIGN_IN, { email: HAMLET.email, password: PASSWORD, server: `${h.zulipUrl}/` });
    expect(same.errors).toBeUndefined();
  });

  it('refuses a forged, a foreign and a malformed cookie with SESSION_INVALID before any upstream call', async () => {
    const other = createHarness({ gateway: { sessions: { secret: 'another-deployment-secret-0123456789' } } });
    try {
      const foreign = await signIn(other);
      h.resetUpstreamRequests();
      for (const cookie of [`chatgraph-session=${'A'.repeat(43)}`, foreign, 'chatgraph-session=short', `__Host-chatgraph-session=${'b'.repeat(43)}`]) {
        const result = await post(h, ME, {}, { cookie });
        expect(code(result.errors), cookie).toBe('SESSION_INVALID');
        expect(result.text).not.toContain('stack');
      }
      const bearer = await post(h, ME, {}, { authorization: `Bearer ${'C'.repeat(43)}` });
      expect(code(bearer.errors)).toBe('SESSION_INVALID');
      expect(h.upstreamRequests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('refuses a cookie-authenticated request without the CSRF header or a JSON content type (CSRF_REFUSED)', async () => {
    const cookie = await signIn(h);
    await h.ready;
    const response = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'text/plain', cookie }, body: JSON.stringify({ query: SIGN_OUT }) });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { errors: Errors }).errors?.[0]?.extensions?.code).toBe('CSRF_REFUSED');
    expect((await post(h, ME, {}, { cookie })).errors).toBeUndefined(); // still signed in
  });

  it('refuses a cookie or an SSE stream from a foreign Origin (ORIGIN_REFUSED); its own host passes', async () => {
    const cookie = await signIn(h);
    const foreign = await post(h, ME, {}, { cookie, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(code(foreign.errors)).toBe('ORIGIN_REFUSED');
    const own = await post(h, ME, {}, { cookie, origin: new URL(h.url).origin });
    expect(own.errors).toBeUndefined();
    const stream = await h.sse(EVENTS, {}, { headers: { origin: 'https://evil.example' } });
    await stream.waitDone();
    expect(stream.status).toBe(403);
  });

  it('refuses an accountId of another session (ACCOUNT_NOT_IN_SESSION) and leaves both unchanged', async () => {
    const mine = await signIn(h);
    const theirs = await signIn(h);
    const theirSession = await post(h, '{ session { accounts { accountId } } }', {}, { cookie: theirs });
    const theirId = (theirSession.data!.session as { accounts: { accountId: string }[] }).accounts[0]!.accountId;
    const refused = await post(h, 'mutation($id: ID!) { removeAccount(id: $id) { session { accounts { accountId } } } }', { id: theirId }, { cookie: mine });
    expect(code(refused.errors)).toBe('ACCOUNT_NOT_IN_SESSION');
    expect((await post(h, ME, {}, { cookie: mine })).errors).toBeUndefined();
    expect((await post(h, '{ session { accounts { accountId } } }', {}, { cookie: theirs })).data).toEqual(theirSession.data);
  });

  it('answers SESSION_REQUIRED to session mutations without a session', async () => {
    for (const query of [SIGN_OUT, 'mutation { removeAccount(id: "x") { session { expiresAt } } }', `mutation { addAccount(email: "${IAGO.email}", apiKey: "${IAGO.apiKey}") { account { accountId } } }`]) {
      expect(code((await post(h, query, {})).errors), query).toBe('SESSION_REQUIRED');
    }
  });
});

describe('accounts of a session', () => {
  it('adds an account (checked upstream) and removes it; removing the last signs out', async () => {
    const h = setupHarness();
    const cookie = await signIn(h);
    const added = await post(h, `mutation { addAccount(email: "${IAGO.email}", apiKey: "${IAGO.apiKey}") { account { accountId email } session { accounts { email } } } }`, {}, { cookie });
    expect(added.errors).toBeUndefined();
    expect(added.text).not.toContain(IAGO.apiKey);
    const payload = added.data!.addAccount as { account: { accountId: string }; session: { accounts: { email: string }[] } };
    expect(payload.session.accounts.map((a) => a.email)).toEqual([HAMLET.email, IAGO.email]);
    const bad = await post(h, `mutation { addAccount(email: "${IAGO.email}", apiKey: "nope-nope-nope-nope-nope-nope-12") { account { accountId } } }`, {}, { cookie });
    expect(code(bad.errors)).toBe('SIGN_IN_FAILED');
    const removed = await post(h, 'mutation($id: ID!) { removeAccount(id: $id) { session { accounts { email } } } }', { id: payload.account.accountId }, { cookie });
    expect(removed.data).toEqual({ removeAccount: { session: { accounts: [{ email: HAMLET.email }] } } });
    const session = await post(h, '{ session { accounts { accountId } } }', {}, { cookie });
    const last = (session.data!.session as { accounts: { accountId: string }[] }).accounts[0]!.accountId;
    const ended = await post(h, 'mutation($id: ID!) { removeAccount(id: $id) { session { expiresAt } } }', { id: last }, { cookie });
    expect(ended.data).toEqual({ removeAccount: { session: null } });
    expect(code((await post(h, ME, {}, { cookie })).errors)).toBe('SESSION_INVALID');
  });

  it('drops an account the chat server refuses from the session, and says so (ACCOUNT_REVOKED)', async () => {
    const h = setupHarness();
    const cookie = await signIn(h);
    const regenerated = await post(h, 'mutation { regenerateApiKey { apiKey } }', {}, { cookie });
    expect(regenerated.errors).toBeUndefined();
    await until(async () => code((await post(h, ME, {}, { cookie })).errors) === 'ACCOUNT_REVOKED', 2_000, 'the account to leave the session');
  });
});

describe('expiry', () => {
  it('ends a session idle for SESSION_IDLE, and any session at SESSION_MAX however used', async () => {
    let now = Date.UTC(2026, 0, 1);
    const h = setupHarness({ gateway: { sessions: { idleMs: 60_000, maxMs: 150_000, now: () => now } } });
    const idle = await signIn(h);
    const used = await signIn(h);
    now += 59_000;
    expect((await post(h, ME, {}, { cookie: used })).errors).toBeUndefined();
    now += 2_000;
    expect(code((await post(h, ME, {}, { cookie: idle })).errors)).toBe('SESSION_INVALID');
    for (let i = 0; i < 2; i++) {
      now += 40_000;
      expect((await post(h, ME, {}, { cookie: used })).errors).toBeUndefined();
    }
    now += 40_000; // 141 s + 40 s: past SESSION_MAX, though used 40 s ago
    expect(code((await post(h, ME, {}, { cookie: used })).errors)).toBe('SESSION_INVALID');
  });
});

describe('graphql-ws on a session', () => {
  const h = createHarness();
  afterAll(() => h.close());

  /** A graphql-ws client whose upgrade carries `headers` (a browser sends its cookie and Origin). */
  function wsClient(connectionParams: Record<string, unknown>, headers: Record<string, string> = {}): Client {
    class WithHeaders extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    }
    return createClient({ url: h.url.replace(/^http/, 'ws'), webSocketImpl: WithHeaders, connectionParams, retryAttempts: 0, lazy: true });
  }

  it('serves a subscription on a bearer token in connection_init, and on the cookie of the upgrade, each ended by signOut', async () => {
    const bearer = await post(h, SIGN_IN, { email: HAMLET.email, apiKey: HAMLET.apiKey, bearer: true });
    const token = (bearer.data!.signIn as { bearerToken: string }).bearerToken;
    const cookie = await signIn(h);
    for (const [client, headers] of [
      [wsClient({ authorization: `Bearer ${token}` }), { authorization: `Bearer ${token}` }],
      [wsClient({}, { cookie, origin: new URL(h.url).origin }), { cookie }],
    ] as const) {
      const results: { errors?: Errors }[] = [];
      let ended = false;
      let failed: unknown;
      client.subscribe({ query: EVENTS }, { next: (r) => void results.push(r as never), error: (e) => void ((failed = e), (ended = true)), complete: () => void (ended = true) });
      const me = await client.iterate({ query: ME }).next();
      expect((me.value as { data: unknown }).data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });
      expect((await post(h, SIGN_OUT, {}, headers)).errors).toBeUndefined();
      await until(() => ended, 5_000, 'the subscription to end');
      expect(failed ?? code(results.at(-1)?.errors)).toBe('SESSION_ENDED');
      await client.dispose();
    }
  });

  it('refuses an upgrade from a foreign Origin with 403 before the socket opens', async () => {
    const cookie = await signIn(h);
    await h.ready;
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(h.url.replace(/^http/, 'ws'), 'graphql-transport-ws', { headers: { cookie, origin: 'https://evil.example' } });
      socket.on('unexpected-response', (_req, res) => (resolve(res.statusCode ?? 0), socket.terminate()));
      socket.on('open', () => (resolve(101), socket.close()));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(403);
  });

  it('refuses a socket on an invalid session', async () => {
    const client = wsClient({ authorization: `Bearer ${'D'.repeat(43)}` });
    const failure = await client.iterate({ query: ME }).next().catch((error: unknown) => error);
    expect(String((failure as { reason?: string }).reason)).toMatch(/session is not valid/);
    await client.dispose();
  });
});
