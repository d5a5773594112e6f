/**
 * The gateway as `npm start` serves it (over loopback HTTP): error masking, operation limits, CSRF
 * prevention, request validation, upstream failures (refused, hanging) and the `extensions` it reports.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { createGatewayServer } from '../../src/gateway/transport/http.js';
import { CSRF_HEADER, createGateway } from '../../src/gateway/yoga.js';
import { credentialsFromConnectionParams } from '../../src/gateway/credentials.js';
import type { FetchLike } from '../../src/zulip/connection.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { scriptedFetch, success } from '../helpers/scripted-fetch.js';

const owner = DEMO_USERS[0]!;

/** Serves a bare gateway on a loopback port, POSTs a query, and returns the status and raw text. */
async function post(gateway: ReturnType<typeof createGateway>, query: string, headers: Record<string, string> = {}) {
  const served = createGatewayServer(gateway, { drainMs: 0 });
  try {
    const response = await fetch(await served.listen(0, '127.0.0.1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(owner), ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, text: await response.text() };
  } finally {
    await served.close();
    await gateway.dispose();
  }
}

/** Listens on an ephemeral loopback port; `sockets` lets close() end hung connections. */
async function loopbackServer(onRequest: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer(onRequest);
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('error masking', () => {
  it('turns a bug into "Unexpected error." without stack, message or upstream address, even in development', async () => {
    // A transport bug: the response object throws when read, which no classification expects.
    const buggy: FetchLike = async () =>
      ({
        get status(): number {
          throw new Error(`boom with ${owner.apiKey} at http://10.9.8.7/api/v1`);
        },
        text: async () => '{}',
        headers: new Headers(),
      }) as unknown as Response;
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const gateway = createGateway({ zulipUrl: 'http://buggy.localhost', fetch: buggy, logging: false });
      const { text } = await post(gateway, '{ serverSettings { realmName } }');
      const body = JSON.parse(text);
      expect(body.errors).toEqual([
        { message: 'Unexpected error.', locations: [{ line: 1, column: 3 }], path: ['serverSettings'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ]);
      expect(text).not.toMatch(/boom|stack|10\.9\.8\.7|buggy\.localhost/);
      expect(text).not.toContain(owner.apiKey);
    } finally {
      process.env.NODE_ENV = previous;
    }
  });
});

describe('operation limits', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('rejects 10,000 aliases before any upstream call', async () => {
    h.resetUpstreamRequests();
    const before = h.emulator.requests.length;
    const aliases = Array.from({ length: 10_000 }, (_, i) => `a${i}: serverSettings { realmName }`).join(' ');
    const { data, errors } = await h.gql(`{ ${aliases} }`);
    expect(data).toBeUndefined();
    expect(errors?.[0]?.message).toMatch(/Token limit/);
    expect(h.upstreamRequests).toEqual([]);
    expect(h.emulator.requests.length).toBe(before);
  });

  it('rejects nesting deeper than the limit', async () => {
    // Depth 12: __type > fields > type > 8 × ofType > name (cheap enough to pass the cost limit).
    const deep = 'ofType { '.repeat(8) + 'name' + ' }'.repeat(8);
    const { data, errors } = await h.gql(`{ __type(name: "Query") { fields { type { ${deep} } } } }`);
    expect(data).toBeUndefined();
    expect(errors?.map((e) => e.message).join('\n')).toMatch(/Query depth limit of 10 exceeded/);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('admits the introspection query GraphiQL sends', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const { data, errors } = await h.gql<{ __schema: { queryType: { name: string } } }>(query);
    expect(errors).toBeUndefined();
    expect(data?.__schema.queryType.name).toBe('Query');
  });

  it('admits the dashboard query', async () => {
    const dashboard = /* GraphQL */ `
      query Dashboard {
        serverSettings { realmName realmIcon featureLevel }
        messages(last: 100) {
          nodes {
            zulipId content timestamp topic
            sender { zulipId fullName avatarUrl role }
            channel { zulipId name description }
            reactions { emojiName emojiCode user { zulipId fullName } }
          }
        }
      }`;
    const { data, errors } = await h.gql<{ messages: { nodes: unknown[] } }>(dashboard);
    expect(errors).toBeUndefined();
    expect(data?.messages.nodes.length).toBeGreaterThan(0);
  });

  it('hides field suggestions', async () => {
    const { errors } = await h.gql('{ serverSetting { realmName } }');
    expect(errors?.[0]?.message).toMatch(/Cannot query field "serverSetting"/);
    expect(errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});

describe('CSRF prevention', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const query = '{ serverSettings { realmName } }';

  it.each([
    ['a text/plain form POST', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query }) }],
    ['a urlencoded form POST', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `query=${encodeURIComponent(query)}` }],
    ['a multipart form POST', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' }],
    ['a GET without the header', { method: 'GET', headers: { accept: 'application/json' } }],
  ])('refuses %s, before any upstream call', async (_name, init) => {
    await h.ready;
    h.resetUpstreamRequests();
    const target = init.method === 'GET' ? `${h.url}?query=${encodeURIComponent(query)}` : h.url;
    const response = await fetch(target, init);
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/cross-site/);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('accepts a GET that carries the CSRF header', async () => {
    await h.ready;
    const response = await fetch(`${h.url}?query=${encodeURIComponent(query)}`, {
      headers: { accept: 'application/json', [CSRF_HEADER]: '1' },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).data.serverSettings.realmName).toBe(h.emulator.store.realm.name);
  });

  it('still serves GraphiQL to a browser', async () => {
    await h.ready;
    const response = await fetch(h.url, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/graphiql/i);
  });
});

describe('request validation', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('reports a syntax error', async () => {
    const { data, errors } = await h.gql('{ serverSettings { ');
    expect(data).toBeUndefined();
    expect(errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Syntax Error/), extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  });

  it('reports an unknown field as a validation error', async () => {
    const { errors } = await h.gql('{ serverSettings { nope } }');
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('reports variables of the wrong type', async () => {
    const { data, errors } = await h.gql('query ($skip: Boolean!) { serverSettings @skip(if: $skip) { realmName } }', { skip: 'yes' });
    expect(data).toBeUndefined();
    expect(errors?.[0]?.message).toMatch(/Variable "\$skip" got invalid value "yes"/);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('reports a missing required variable', async () => {
    const { errors } = await h.gql('query ($skip: Boolean!) { serverSettings @skip(if: $skip) { realmName } }', {});
    expect(errors?.[0]?.message).toMatch(/Variable "\$skip" of required type "Boolean!" was not provided/);
  });
});

describe('upstream failures', () => {
  it('maps a refused connection (a closed loopback port) to UPSTREAM_UNAVAILABLE', async () => {
    const closed = await loopbackServer(() => undefined);
    await closed.close();
    const gateway = createGateway({ zulipUrl: closed.url, logging: false, upstreamDeadlineMs: 2000 });
    const { status, text } = await post(gateway, '{ serverSettings { realmName } }');
    const body = JSON.parse(text);
    expect(status).toBe(200);
    expect(body.data).toEqual({ serverSettings: null });
    expect(body.errors[0].extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', route: 'get-server-settings' });
    expect(text).not.toContain(closed.url.slice('http://'.length));
    expect(text).not.toContain(owner.apiKey);
    expect(text).not.toContain(basicAuth(owner).slice('Basic '.length));
  });

  it('maps an upstream that never answers to UPSTREAM_TIMEOUT', async () => {
    let received = 0;
    const hanging = await loopbackServer(() => void received++);
    try {
      const gateway = createGateway({ zulipUrl: hanging.url, logging: false, upstreamDeadlineMs: 500 });
      const started = performance.now();
      const { text } = await post(gateway, '{ serverSettings { realmName } }');
      const body = JSON.parse(text);
      expect(body.errors[0].extensions).toEqual({ code: 'UPSTREAM_TIMEOUT', route: 'get-server-settings' });
      expect(received).toBeGreaterThanOrEqual(1);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(text).not.toContain(hanging.url.slice('http://'.length));
      expect(text).not.toContain(owner.apiKey);
    } finally {
      await hanging.close();
    }
  });
});

describe('graphql-ws contexts', () => {
  // What src/gateway/transport/ws.ts does per operation (with the payload's credentials checked
  // first), following yoga's graphql-ws recipe.
  const gateway = createGateway({
    zulipUrl: 'http://ws.localhost',
    fetch: scriptedFetch(),
    defaultCredentials: { email: 'bot@zulip.example.com', apiKey: 'service-key' },
    logging: false,
  });
  const contextOf = async (connectionParams: unknown) =>
    (await gateway
      .getEnveloped({ sentCredentials: credentialsFromConnectionParams(connectionParams, undefined), extra: {} })
      .contextFactory()) as Record<string, unknown>;

  it('takes credentials from the connection_init payload', async () => {
    expect((await contextOf({ authorization: basicAuth(owner) })).credentials).toEqual({ email: owner.email, apiKey: owner.apiKey });
  });

  it('uses the default credentials only when the payload has none, and refuses a bad one', async () => {
    expect((await contextOf({})).credentials).toEqual({ email: 'bot@zulip.example.com', apiKey: 'service-key' });
    const refused = await contextOf({ authorization: 'Bearer x' });
    expect(refused.credentials).toBeUndefined();
    expect(refused.credentialsProblem).toMatch(/Basic/);
  });
});

describe('response extensions', () => {
  it('reports upstreamRequests and the parameters the server ignored', async () => {
    const fetch = scriptedFetch([success({ realm_name: 'Org', ignored_parameters_unsupported: ['made_up'] })]);
    const gateway = createGateway({ zulipUrl: 'http://ignoring.localhost', fetch, logging: false });
    const body = JSON.parse((await post(gateway, '{ serverSettings { realmName } }')).text);
    expect(body.data).toEqual({ serverSettings: { realmName: 'Org' } });
    expect(body.extensions).toEqual({ upstreamRequests: 1, ignoredParametersUnsupported: ['made_up'] });
  });

  it('leaves ignoredParametersUnsupported out when nothing was ignored', async () => {
    const h = createHarness();
    try {
      const { extensions } = await h.gql('{ a: serverSettings { realmName } b: serverSettings { realmUrl } }');
      expect(extensions).toEqual({ upstreamRequests: 2 });
    } finally {
      await h.close();
    }
  });
});
