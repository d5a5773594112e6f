/**
 * "tickets": a small second subgraph for the supergraph test, as another team would write it with
 * Apollo's own subgraph library. A `Ticket` references a chat `User` (its assignee) and a chat
 * `Channel` by zulipId only: both are stubs (`resolvable: false`) here, so every other field of them can
 * only come from chatgraph, through the router.
 *
 * ```ts
 * const tickets = createTicketsSubgraph([{ id: 'T-1', title: 'Fix login', assigneeId: 4, channelId: 2 }]);
 * await tickets.yoga.fetch('http://tickets.localhost/graphql', { ... });
 * tickets.requests; // the Authorization header of every request it received
 * ```
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';

export interface Ticket {
  id: string;
  title: string;
  /** A chat user ID. */
  assigneeId: number;
  /** A chat channel ID. */
  channelId: number;
}

/** The tickets subgraph SDL: what its team would publish to the router. */
export const TICKETS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  "An integer that may exceed 32 bits; the same scalar as chatgraph's, for chat ids."
  scalar Long

  "A support ticket, assigned to a chat user and discussed in a chat channel."
  type Ticket @key(fields: "id") {
    id: ID!
    title: String!
    "The chat user working on it (resolved by chatgraph)."
    assignee: User
    "Where it is discussed (resolved by chatgraph)."
    channel: Channel
  }

  type User @key(fields: "zulipId", resolvable: false) {
    zulipId: Long!
  }

  type Channel @key(fields: "zulipId", resolvable: false) {
    zulipId: Long!
  }

  type Query {
    "Every ticket."
    tickets: [Ticket!]!
    "One ticket by id."
    ticket(id: ID!): Ticket
  }
`;

export interface TicketsSubgraph {
  yoga: YogaServerInstance<Record<string, never>, Record<string, never>>;
  sdl: string;
  /** One entry per request received: its Authorization header (null when none). */
  requests: { authorization: string | null }[];
}

export function createTicketsSubgraph(tickets: readonly Ticket[]): TicketsSubgraph {
  const requests: TicketsSubgraph['requests'] = [];
  const schema = buildSubgraphSchema({
    typeDefs: parse(TICKETS_SDL),
    resolvers: {
      Query: {
        tickets: () => tickets,
        ticket: (_root: unknown, { id }: { id: string }) => tickets.find((t) => t.id === id) ?? null,
      },
      Ticket: {
        __resolveReference: ({ id }: { id: string }) => tickets.find((t) => t.id === id) ?? null,
        // Representations of the chat entities: only the key, which is all this subgraph knows.
        assignee: (ticket: Ticket) => ({ __typename: 'User', zulipId: ticket.assigneeId }),
        channel: (ticket: Ticket) => ({ __typename: 'Channel', zulipId: ticket.channelId }),
      },
    },
  });
  const yoga = createYoga<Record<string, never>>({
    schema,
    logging: false,
    graphiql: false,
    landingPage: false,
    plugins: [{ onRequest: ({ request }) => void requests.push({ authorization: request.headers.get('authorization') }) }],
  });
  return { yoga, sdl: TICKETS_SDL, requests };
}
