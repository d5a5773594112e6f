/**
 * chatgraph in a supergraph, all in one process: its subgraph SDL (as `_service` serves it) is
 * composed with a small "tickets" subgraph by @theguild/federation-composition, and the supergraph
 * runs in @graphql-hive/gateway-runtime, whose subgraph fetches are routed to the two in-process
 * yoga servers. Queries cross both subgraphs; the caller's Authorization header is propagated to
 * chatgraph, whose upstream calls then run as the caller.
 */
import {
  createGatewayRuntime,
  useCustomFetch,
  type GatewayConfigSupergraph,
  type GatewayRuntime,
} from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { getMessages } from '../../src/zulip/routes/messages.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { createTicketsSubgraph, type Ticket } from '../helpers/tickets-subgraph.js';

const CHAT_URL = 'http://chat.subgraph.localhost/graphql';
const TICKETS_URL = 'http://tickets.subgraph.localhost/graphql';

const OWNER = demoUser('desdemona');
const IAGO = demoUser('iago');
const GUEST = demoUser('polonius'); // not subscribed to the private "engineering"

/** Role values of the emulator's users, as the `Role` enum names them. */
const ROLE_NAMES: Record<number, string> = { 100: 'OWNER', 200: 'ADMINISTRATOR', 300: 'MODERATOR', 400: 'MEMBER', 600: 'GUEST' };

type Transports = NonNullable<GatewayConfigSupergraph['transports']>;

/**
 * The `http` transport: POSTs each subgraph operation through the runtime's own fetch, so its
 * hooks (header propagation, the custom fetch below) apply. It stands in for
 * @graphql-mesh/transport-http, which the runtime imports on demand and which is not installed.
 */
const httpTransport: Transports = {
  http: {
    getSubgraphExecutor: ({ transportEntry, fetch }) =>
      async (request) => {
        const response = await fetch!(
          transportEntry.location!,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify({
              query: print(request.document),
              variables: request.variables,
              operationName: request.operationName,
            }),
          },
          request.context,
          request.info,
        );
        return response.json();
      },
  },
};

const BOARD = /* GraphQL */ `
  query Board($limit: Int) {
    tickets {
      id
      title
      assignee { zulipId fullName role }
      channel {
        zulipId
        name
        newestMessages(limit: $limit) { zulipId sender { fullName } }
      }
    }
  }
`;

interface BoardTicket {
  id: string;
  title: string;
  assignee: { zulipId: number; fullName: string; role: string } | null;
  channel: { zulipId: number; name: string; newestMessages: { zulipId: number; sender: { fullName: string } | null }[] } | null;
}

interface Result<T> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

describe('chatgraph in a supergraph', () => {
  const h = createHarness({ gateway: { subgraph: true } });
  const store = h.emulator.store;
  const channelId = (name: string) => [...store.channels.values()].find((c) => c.name === name)!.stream_id;
  const userId = (email: string) => store.userByEmail(email)!.user_id;
  const tickets: Ticket[] = [
    { id: 'T-1', title: 'Login fails on Safari', assigneeId: userId(demoUser('hamlet').email), channelId: channelId('general') },
    { id: 'T-2', title: 'Pick the new palette', assigneeId: userId(demoUser('cordelia').email), channelId: channelId('design') },
    { id: 'T-3', title: 'Release blocker', assigneeId: userId(IAGO.email), channelId: channelId('engineering') },
    { id: 'T-4', title: 'Deploy failed', assigneeId: userId(demoUser('shiva').email), channelId: channelId('general') },
  ];
  const ticketsSubgraph = createTicketsSubgraph(tickets);
  /** Every subgraph request the runtime made: where, and with which Authorization header. */
  const subgraphRequests: { url: string; authorization: string | null }[] = [];
  let supergraph: GatewayRuntime;
  let composed: ReturnType<typeof composeServices>;

  beforeAll(async () => {
    const chatSdl = await h.gql<{ _service: { sdl: string } }>('{ _service { sdl } }', {}, { as: null });
    composed = composeServices([
      { name: 'chat', typeDefs: parse(chatSdl.data!._service.sdl), url: CHAT_URL },
      { name: 'tickets', typeDefs: parse(ticketsSubgraph.sdl), url: TICKETS_URL },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    const servers = new Map<string, { fetch(url: string, init?: RequestInit): Promise<Response> | Response }>([
      [CHAT_URL, h.gateway],
      [TICKETS_URL, ticketsSubgraph.yoga],
    ]);
    supergraph = createGatewayRuntime({
      supergraph: composed.supergraphSdl!,
      logging: false,
      transports: httpTransport,
      // As the README's gateway.config.ts: the caller's chat credentials go to chatgraph only.
      propagateHeaders: {
        fromClientToSubgraphs: ({ request, subgraphName }) =>
          subgraphName === 'chat' ? { authorization: request.headers.get('authorization') } : undefined,
      },
      plugins: () => [
        useCustomFetch((url, init) => {
          const server = servers.get(url);
          if (!server) throw new Error(`supergraph test: no subgraph at ${url}`);
          const headers = new Headers(init?.headers as HeadersInit | undefined);
          subgraphRequests.push({ url, authorization: headers.get('authorization') });
          return server.fetch(url, init as RequestInit) as Promise<Response>;
        }),
      ],
    });
  });

  afterAll(async () => {
    await supergraph?.dispose();
    await h.close();
  });

  /** Sends a query to the supergraph as a demo user (or with no Authorization header). */
  async function ask<T>(query: string, variables: Record<string, unknown>, as: { email: string; apiKey: string } | null): Promise<Result<T>> {
    const response = await supergraph.fetch('http://supergraph.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(as && { authorization: basicAuth(as) }) },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Result<T>;
  }

  /** What the emulator itself shows `who` as a channel's newest messages (the oracle). */
  async function newestAs(who: { email: string; apiKey: string }, channel: number, limit: number): Promise<number[]> {
    const rest = new ZulipConnection({
      baseUrl: h.zulipUrl,
      credentials: who,
      fetch: (input, init) => h.emulator.fetch(new Request(input, init)),
    });
    const { messages } = await getMessages(rest, {
      anchor: 'newest',
      numBefore: limit,
      numAfter: 0,
      narrow: [{ operator: 'channel', operand: channel }],
    });
    return messages.map((m) => m.id);
  }

  it('composes chatgraph with the tickets subgraph', () => {
    expect(composed.errors ?? []).toEqual([]);
    const publicSchema = parse(composed.publicSdl!);
    const fieldsOf = (name: string) => {
      const type = publicSchema.definitions.find((d) => 'name' in d && d.name?.value === name);
      return type && 'fields' in type ? (type.fields ?? []).map((f) => f.name.value) : [];
    };
    // Ticket (tickets) points at User and Channel, whose fields come from chatgraph.
    expect(fieldsOf('Ticket')).toEqual(expect.arrayContaining(['assignee', 'channel']));
    expect(fieldsOf('User')).toEqual(expect.arrayContaining(['id', 'fullName', 'role']));
    expect(fieldsOf('Channel')).toEqual(expect.arrayContaining(['id', 'name', 'newestMessages', 'topics']));
    expect(fieldsOf('Query')).toEqual(expect.arrayContaining(['tickets', 'users', 'channels', 'messages']));
    expect(fieldsOf('Query')).not.toContain('_entities');
  });

  it('answers tickets with their assignee\u2019s name and role and their channel\u2019s newest messages', async () => {
    h.resetUpstreamRequests();
    subgraphRequests.length = 0;
    const { data, errors } = await ask<{ tickets: BoardTicket[] }>(BOARD, { limit: 2 }, OWNER);
    expect(errors).toBeUndefined();
    const expected = await Promise.all(
      tickets.map(async (ticket) => {
        const assignee = store.users.get(ticket.assigneeId)!;
        const channel = store.channels.get(ticket.channelId)!;
        const newest = await newestAs(OWNER, ticket.channelId, 2);
        return {
          id: ticket.id,
          title: ticket.title,
          assignee: { zulipId: assignee.user_id, fullName: assignee.full_name, role: ROLE_NAMES[assignee.role] },
          channel: {
            zulipId: channel.stream_id,
            name: channel.name,
            newestMessages: newest.map((id) => ({ zulipId: id, sender: { fullName: store.users.get(store.messages.get(id)!.sender_id)!.full_name } })),
          },
        };
      }),
    );
    expect(expected.every((t) => t.channel.newestMessages.length === 2)).toBe(true);
    expect(data!.tickets).toEqual(expected);

    // One request to each subgraph; chatgraph resolved every user (assignees and message senders)
    // with one GET /users, every channel with one GET /streams, and one GET /messages per channel.
    expect(subgraphRequests.map((r) => r.url).sort()).toEqual([CHAT_URL, TICKETS_URL]);
    const paths = h.upstreamRequests.map((r) => r.path).filter((path) => path !== 'server_settings');
    expect(paths.filter((path) => path === 'users')).toHaveLength(1);
    expect(paths.filter((path) => path === 'streams')).toHaveLength(1);
    expect(paths.filter((path) => path === 'messages')).toHaveLength(new Set(tickets.map((t) => t.channelId)).size);
  });

  it('propagates the caller\u2019s Authorization, so chatgraph calls the chat server as the caller', async () => {
    for (const who of [IAGO, OWNER]) {
      subgraphRequests.length = 0;
      const before = h.emulator.requests.length;
      // Lookups are served from the caller's live directory and message cache once warm; a
      // channel's subscriber list always goes upstream, so the call can be observed.
      const { errors } = await ask(BOARD.replace('newestMessages', 'subscriberIds newestMessages'), { limit: 1 }, who);
      expect(errors).toBeUndefined();
      expect(subgraphRequests.find((r) => r.url === CHAT_URL)?.authorization).toBe(basicAuth(who));
      // The tickets subgraph never receives the chat credentials.
      expect(ticketsSubgraph.requests.length).toBeGreaterThan(0);
      expect(ticketsSubgraph.requests.every((r) => r.authorization === null)).toBe(true);
      // Everything but the public server settings ran with the caller's own credentials.
      const calls = h.emulator.requests.slice(before).filter((r) => r.path !== '/server_settings');
      expect(calls.filter((r) => /^\/streams\/\d+\/members$/.test(r.path)).length).toBeGreaterThan(0);
      expect(new Set(calls.map((r) => r.email))).toEqual(new Set([who.email]));
    }
  });

  it('without credentials returns chatgraph\u2019s UNAUTHENTICATED, not someone else\u2019s data', async () => {
    subgraphRequests.length = 0;
    const before = h.emulator.requests.length;
    const { data, errors } = await ask<{ tickets: BoardTicket[] }>(BOARD, { limit: 2 }, null);
    // The tickets subgraph's own fields still arrive; every chat field is null.
    expect(data!.tickets.map((t) => [t.id, t.title, t.assignee, t.channel])).toEqual(
      tickets.map((t) => [t.id, t.title, null, null]),
    );
    expect(errors!.length).toBeGreaterThan(0);
    expect(new Set(errors!.map((e) => e.extensions?.code))).toEqual(new Set(['UNAUTHENTICATED']));
    expect(subgraphRequests.every((r) => r.authorization === null)).toBe(true);
    expect(h.emulator.requests.slice(before).every((r) => r.email === undefined)).toBe(true);
  });

  it('does not show a guest the messages of a private channel', async () => {
    const engineering = channelId('engineering');
    const privateIds = [...store.messages.values()].filter((m) => m.stream_id === engineering).map((m) => m.id);
    expect(privateIds.length).toBeGreaterThan(0);
    const QUERY = /* GraphQL */ `
      query One($id: ID!) { ticket(id: $id) { id channel { zulipId newestMessages(limit: 5) { zulipId content } } } }
    `;

    // A subscriber sees them: the query can reach them.
    const asIago = await ask<{ ticket: BoardTicket }>(QUERY, { id: 'T-3' }, IAGO);
    expect(asIago.errors).toBeUndefined();
    expect(asIago.data!.ticket.channel!.newestMessages.map((m) => m.zulipId)).toEqual(await newestAs(IAGO, engineering, 5));
    expect(asIago.data!.ticket.channel!.newestMessages.length).toBeGreaterThan(0);

    const asGuest = await ask<{ ticket: BoardTicket }>(QUERY, { id: 'T-3' }, GUEST);
    expect(asGuest.data!.ticket).toEqual({ id: 'T-3', channel: null });
    expect(asGuest.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    const body = JSON.stringify(asGuest);
    for (const id of privateIds) expect(body).not.toContain(store.messages.get(id)!.rendered_content);

    // The whole board as the guest: the public channels' messages, nothing of engineering.
    const board = await ask<{ tickets: BoardTicket[] }>(BOARD, { limit: 5 }, GUEST);
    const seen = board.data!.tickets.flatMap((t) => t.channel?.newestMessages.map((m) => m.zulipId) ?? []);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((id) => privateIds.includes(id))).toEqual([]);
    expect(board.data!.tickets.find((t) => t.id === 'T-3')!.channel).toBeNull();
  });
});
