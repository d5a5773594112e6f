/**
 * Many accounts on many servers (docs/accounts.md), end to end: two emulators on two loopback
 * ports are two servers on the gateway's allow-list; one session (the gateway's own sessions,
 * sent as a bearer token) holds an account on each.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { NewAccount } from '../../src/gateway/sessions/sessions.js';
import { createGatewayServer, type GatewayServer } from '../../src/gateway/transport/http.js';
import { loadConfig } from '../../src/gateway/config/index.js';
import { Readiness } from '../../src/gateway/observability/readiness.js';
import { allowedServer, serverAddress } from '../../src/gateway/upstream/servers.js';
import { createGateway, type Gateway } from '../../src/gateway/yoga.js';
import { sendMessage } from '../../src/zulip/routes/messages.js';
import { updateSettings } from '../../src/zulip/routes/settings.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { basicAuth } from '../helpers/harness.js';
import { sseSubscribe } from '../helpers/sse.js';
import { until } from '../helpers/wait.js';

interface Setup {
  url: string;
  a: { emulator: Emulator; url: string; close(): Promise<void> };
  b: { emulator: Emulator; url: string; close(): Promise<void> };
  gateway: Gateway;
  /** The session's account ids: its account on A, its account on B. */
  ids: { onA: string; onB: string };
  /** The headers that send the session (its bearer token). */
  session: Record<string, string>;
  /** Every upstream call's URL. */
  upstream: string[];
  gql<T = Record<string, unknown>>(query: string, headers?: Record<string, string>): Promise<{ data?: T; errors?: { message: string; path?: (string | number)[]; extensions: { code: string } }[] }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server() {
  const emulator = createEmulator({ seed: 'demo' });
  const listening = await emulator.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => emulator.close());
  return { emulator, url: listening.url, close: () => listening.close() };
}

const hamlet = demoUser('hamlet');
const othello = demoUser('othello');

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function setup(): Promise<Setup> {
  const [a, b] = [await server(), await server()];
  const upstream: string[] = [];
  const gateway = createGateway({
    logging: false,
    zulipUrl: a.url,
    zulipServers: [b.url],
    upstreamDeadlineMs: 2000,
    fetch: (input, init) => {
      upstream.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    },
  });
  const { token, session } = await gateway.sessions.create([
    { server: a.url, email: hamlet.email, apiKey: hamlet.apiKey },
    { server: `${b.url}/`, email: othello.email, apiKey: othello.apiKey },
  ]);
  const served: GatewayServer = createGatewayServer(gateway, { drainMs: 0 });
  const url = await served.listen(0, '127.0.0.1');
  cleanups.push(() => served.close());
  return {
    url,
    a,
    b,
    gateway,
    ids: { onA: session.accounts[0]!.id, onB: session.accounts[1]!.id },
    session: bearer(token),
    upstream,
    async gql(query, headers = bearer(token)) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query }),
      });
      return response.json();
    },
  };
}

/** The global id of an account (Relay's encoding, as `accounts { id }` gives it). */
const accountGlobalId = (id: string) => Buffer.from(`Account:${id}`).toString('base64');

describe('accounts on two servers', () => {
  it('lists both, each with its server, its me and its reads; unreadTotal is the sum', async () => {
    const s = await setup();
    // The two servers' seeds are alike: a name only B has shows B's records were read, nested fields included.
    await updateSettings(new ZulipConnection({ baseUrl: s.b.url, credentials: othello }), { fullName: 'Othello on B' });
    const result = await s.gql<{
      accounts: { id: string; email: string; server: { url: string; name: string; featureLevel: number }; me: { user: { fullName: string } }; unreads: { total: number }; channels: { name: string }[] }[];
      unreadTotal: number;
    }>('{ accounts { id email server { url name featureLevel } me { user { fullName } } unreads { total } channels { name } } unreadTotal }');
    expect(result.errors).toBeUndefined();
    const [onA, onB] = result.data!.accounts;
    expect(onA!.server.url).toBe(s.a.url);
    expect(onB!.server.url).toBe(s.b.url);
    expect(onA!.id).toBe(accountGlobalId(s.ids.onA));
    expect(onA!.me.user.fullName).toBe(hamlet.fullName);
    expect(onB!.me.user.fullName).toBe('Othello on B');
    expect(onA!.server.featureLevel).toBeGreaterThan(0);
    expect(onB!.channels.length).toBeGreaterThan(0);
    expect(result.data!.unreadTotal).toBe(onA!.unreads.total + onB!.unreads.total);
    expect(onA!.unreads.total).toBeGreaterThan(0);
    // Each account's calls went to its own server.
    const hosts = new Set(s.upstream.map((url) => new URL(url).origin));
    expect(hosts).toEqual(new Set([s.a.url, s.b.url]));
  });

  it('keeps today\'s single account with Basic credentials: one account, on the default server', async () => {
    const s = await setup();
    const result = await s.gql<{ accounts: { email: string; server: { url: string } }[]; me: { user: { fullName: string } } }>(
      '{ accounts { email server { url } } me { user { fullName } } }',
      { authorization: basicAuth(hamlet) },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.accounts).toEqual([{ email: hamlet.email, server: { url: s.a.url } }]);
    expect(result.data!.me.user.fullName).toBe(hamlet.fullName);
  });

  it('refuses a mutation without accountId (ACCOUNT_REQUIRED) or with another session\'s, before any upstream call; runs it as the named account', async () => {
    const s = await setup();
    const send = (accountId?: string) =>
      s.gql<{ sendMessage: { messageId: number } }>(
        `mutation { sendMessage(${accountId ? `accountId: "${accountId}", ` : ''}channelName: "general", topic: "accounts", content: "On B") { messageId } }`,
      );
    s.upstream.length = 0;
    const refused = await send();
    expect(refused.errors?.[0]?.extensions.code).toBe('ACCOUNT_REQUIRED');
    const foreign = await send(accountGlobalId('someone-else'));
    expect(foreign.errors?.[0]?.extensions.code).toBe('ACCOUNT_NOT_FOUND');
    expect(s.upstream).toHaveLength(0);
    const sent = await send(accountGlobalId(s.ids.onB));
    expect(sent.errors).toBeUndefined();
    const id = sent.data!.sendMessage.messageId;
    expect(s.b.emulator.store.messages.get(id)?.content).toContain('On B');
    expect(s.a.emulator.store.messages.get(id)?.content ?? '').not.toContain('On B');
  });

  it('carries every account\'s messages in one stream, each with its account, within 1 s at p99', async () => {
    const s = await setup();
    const stream = sseSubscribe<{ accountEvents: { account: { id: string }; event: { kind: string; message?: { content: string; sender: { fullName: string } } } } }>(
      s.url,
      'subscription { accountEvents(filter: { kinds: [MESSAGE] }) { account { id } event { ... on MessageEvent { kind message { content sender { fullName } } } } } }',
      {},
      s.session,
    );
    cleanups.push(async () => stream.close());
    await until(() => stream.status !== undefined, 5000, 'the stream to open');
    await updateSettings(new ZulipConnection({ baseUrl: s.b.url, credentials: demoUser('iago') }), { fullName: 'Iago on B' });
    const senders = {
      a: new ZulipConnection({ baseUrl: s.a.url, credentials: demoUser('iago') }),
      b: new ZulipConnection({ baseUrl: s.b.url, credentials: demoUser('iago') }),
    };
    const latencies: number[] = [];
    const ROUNDS = 20;
    for (let i = 0; i < ROUNDS; i++) {
      for (const side of ['a', 'b'] as const) {
        const content = `round ${i} on ${side}`;
        const started = performance.now();
        const before = stream.results.length;
        await sendMessage(senders[side], { type: 'stream', to: 'general', topic: 'stream test', content });
        await until(() => stream.results.slice(before).some((r) => r.data?.accountEvents.event.message?.content.includes(content)), 2000, content);
        latencies.push(performance.now() - started);
        const result = stream.results.slice(before).find((r) => r.data?.accountEvents.event.message?.content.includes(content))!;
        expect(result.data!.accountEvents.account.id).toBe(accountGlobalId(side === 'a' ? s.ids.onA : s.ids.onB));
        expect(result.data!.accountEvents.event.message!.sender.fullName).toBe(side === 'a' ? demoUser('iago').fullName : 'Iago on B');
      }
    }
    latencies.sort((x, y) => x - y);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    expect(p99).toBeLessThan(1000);
  });

  it('keeps `accounts { unreads }` and unreadTotal live: a message on either server re-runs the query', async () => {
    const s = await setup();
    type Badge = { accounts: { unreads: { total: number } }[]; unreadTotal: number };
    const live = sseSubscribe<Badge>(s.url, 'query Badge @live { accounts { unreads { total } } unreadTotal }', {}, s.session);
    cleanups.push(async () => live.close());
    const [first] = await live.waitFor(1);
    const totals = (result: { data?: Badge | null }) => [...result.data!.accounts.map((a) => a.unreads.total), result.data!.unreadTotal];
    const [onA, onB, sum] = totals(first!);
    expect(sum).toBe(onA! + onB!);
    const iago = demoUser('iago');
    // A direct message to the account on B, then one to the account on A: each re-runs the query.
    await sendMessage(new ZulipConnection({ baseUrl: s.b.url, credentials: iago }), { type: 'private', to: [othello.email], content: 'To B' });
    await until(() => live.results.some((r) => r.data && totals(r)[1] === onB! + 1), 3000, 'the live result after the message on B');
    await sendMessage(new ZulipConnection({ baseUrl: s.a.url, credentials: iago }), { type: 'private', to: [hamlet.email], content: 'To A' });
    await until(() => live.results.some((r) => r.data && totals(r)[0] === onA! + 1 && totals(r)[2] === sum! + 2), 3000, 'the live result after the message on A');
  });

  it('a dead server fails only its accounts\' fields, with a typed error; the other answers', async () => {
    const s = await setup();
    await s.b.close();
    const result = await s.gql<{ accounts: ({ email: string; me: { user: { fullName: string } } | null })[]; unreadTotal: number }>(
      '{ accounts { email me { user { fullName } } } unreadTotal }',
    );
    expect(result.data!.accounts[0]!.me!.user.fullName).toBe(hamlet.fullName);
    expect(result.data!.accounts[1]!.me).toBeNull();
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.path).toEqual(['accounts', 1, 'me']);
    expect(result.errors![0]!.extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(result.data!.unreadTotal).toBeGreaterThan(0);
  });
});

describe('the server allow-list', () => {
  it('is ZULIP_SERVERS (ZULIP_URL, if set, one of them and the default), or ZULIP_URL alone', () => {
    const env = { NODE_ENV: 'production' };
    const listed = loadConfig({ ...env, ZULIP_SERVERS: 'https://a.example, https://b.example/' });
    expect([listed.zulipUrl, listed.zulipServers]).toEqual(['https://a.example', ['https://b.example']]);
    const second = loadConfig({ ...env, ZULIP_SERVERS: 'https://a.example,https://b.example', ZULIP_URL: 'https://b.example' });
    expect([second.zulipUrl, second.zulipServers]).toEqual(['https://b.example', ['https://a.example']]);
    expect(loadConfig({ ...env, ZULIP_URL: 'https://a.example' }).zulipServers).toEqual([]);
    expect(() => loadConfig({ ...env, ZULIP_SERVERS: 'https://a.example', ZULIP_URL: 'https://c.example' })).toThrow(/ZULIP_URL .* must be one of ZULIP_SERVERS/);
    expect(() => loadConfig({ ...env, ZULIP_SERVERS: 'https://a.example/api/v1' })).toThrow(/ZULIP_SERVERS must be the server's address without the API path/);
  });

  it('reports each server in readiness; a dead other server degrades, the default decides', async () => {
    const [a, b] = [await server(), await server()];
    await b.close();
    const readiness = new Readiness({ zulipUrl: a.url, otherServers: [b.url] });
    const report = await readiness.check();
    expect(report).toMatchObject({ ready: true, servers: { [a.url]: 'ok', [b.url]: 'unavailable' } });
    expect(report.detail).toEqual([`${b.url}: chat server unreachable`]);
  });

  it('names a server however it is spelled, and refuses any other', () => {
    const list = ['https://chat.example.com', 'http://127.0.0.1:9991/zulip'];
    expect(allowedServer(list, 'https://CHAT.example.com:443/')).toBe('https://chat.example.com');
    expect(allowedServer(list, 'http://127.0.0.1:9991/zulip/')).toBe('http://127.0.0.1:9991/zulip');
    for (const other of ['https://chat.example.com.evil.test', 'http://chat.example.com', 'https://chat.example.com/other', 'file:///etc/passwd', 'https://user:pw@chat.example.com', 'not a url']) {
      expect(allowedServer(list, other), other).toBeUndefined();
    }
    expect(serverAddress('https://chat.example.com/?x=1')).toBeUndefined();
  });

  it('signs in on A and adds an account on B through the session mutations, each checked on its own server; refuses a server off the list before any connection', async () => {
    const s = await setup();
    const signedIn = await s.gql<{ signIn: { bearerToken: string } }>(
      `mutation { signIn(email: "${hamlet.email}", apiKey: "${hamlet.apiKey}", bearer: true) { bearerToken } }`,
      {},
    );
    expect(signedIn.errors).toBeUndefined();
    const session = bearer(signedIn.data!.signIn.bearerToken);
    s.upstream.length = 0;
    const offList = await s.gql(`mutation { addAccount(server: "http://127.0.0.2:9", email: "${othello.email}", apiKey: "${othello.apiKey}") { account { id } } }`, session);
    expect(offList.errors?.[0]?.extensions.code).toBe('SERVER_NOT_ALLOWED');
    expect(s.upstream).toHaveLength(0);
    const added = await s.gql(`mutation { addAccount(server: "${s.b.url}/", email: "${othello.email}", apiKey: "${othello.apiKey}") { account { id } } }`, session);
    expect(added.errors).toBeUndefined();
    // The key was checked on B, not on the default server.
    expect(s.upstream.map((url) => new URL(url).origin)).toEqual([s.b.url]);
    const result = await s.gql<{ accounts: { email: string; server: { url: string } }[] }>('{ accounts { email server { url } } }', session);
    expect(result.data?.accounts).toEqual([
      { email: hamlet.email, server: { url: s.a.url } },
      { email: othello.email, server: { url: s.b.url } },
    ]);
  });

  it('makes no connection to a server off the list', async () => {
    const offList = 'http://127.0.0.2:9';
    const s = await setup();
    // A session from when the list still had that server (the store keeps what signIn checked then).
    const stale: NewAccount = { server: offList, email: hamlet.email, apiKey: hamlet.apiKey };
    const { token } = await s.gateway.sessions.create([stale]);
    expect(s.gateway.servers.get(offList)).toBeUndefined();
    expect(s.gateway.servers.get(`${s.b.url}/`)?.config.baseUrl).toBe(s.b.url);
    // Its only account is off the list: the session acts as nobody.
    const result = await s.gql('{ accounts { id } unreadTotal }', bearer(token));
    expect(result.errors?.[0]?.extensions.code).toBe('SERVER_NOT_ALLOWED');
    expect(s.upstream.filter((url) => url.startsWith(offList))).toHaveLength(0);
  });
});
