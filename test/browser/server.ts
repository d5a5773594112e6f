/**
 * What the browser test drives: CHATGRAPH_URL (a running `npm start`, e.g.
 * http://127.0.0.1:4000/graphql) when set, else a throwaway yoga on loopback serving GraphiQL as
 * the gateway configures it, over a stand-in schema that answers the dashboard query. It records
 * the headers of the GraphQL requests it receives and refuses any without the CSRF header (stricter
 * than the gateway's rule, to prove GraphiQL always sends it).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga, createGraphQLError } from 'graphql-yoga';
import { graphiqlOptions, packagedGraphiQLRenderer } from '../../src/gateway/graphiql.js';

export const DEMO_AUTHORIZATION = 'Basic aWFnb0BleGFtcGxlLmNvbTpkZW1vLWtleQ==';
const CSRF_HEADER = 'x-graphql-yoga-csrf';

export interface BrowserTarget {
  url: string;
  /** Headers of GraphQL POSTs received (throwaway server only). */
  requests: Record<string, string>[];
  close(): Promise<void>;
}

const typeDefs = /* GraphQL */ `
  type Query { messages(last: Int): MessageConnection! }
  type Subscription { ticks(n: Int!): Int! }
  type MessageConnection { edges: [MessageEdge!]!, pageInfo: PageInfo! }
  type PageInfo { hasPreviousPage: Boolean!, startCursor: String }
  type MessageEdge { cursor: String!, node: Message! }
  type Message { id: ID!, timestamp: Int!, content: String!, sender: User!, channel: Channel, reactions: [Reaction!]! }
  type User { fullName: String!, avatarUrl: String, role: String! }
  type Channel { name: String!, description: String! }
  type Reaction { emojiName: String!, user: User! }
`;

const iago = { fullName: 'Iago', avatarUrl: null, role: 'OWNER' };

export async function browserTarget(): Promise<BrowserTarget> {
  if (process.env.CHATGRAPH_URL) return { url: process.env.CHATGRAPH_URL, requests: [], close: async () => {} };
  const requests: Record<string, string>[] = [];
  const schema = createSchema({
    typeDefs,
    resolvers: {
      Query: {
        messages: () => ({
          edges: [{ cursor: 'c1', node: { id: '1', timestamp: 1, content: '<p>Hello from the browser test</p>', sender: iago, channel: { name: 'general', description: '' }, reactions: [] } }],
          pageInfo: { hasPreviousPage: false, startCursor: 'c1' },
        }),
      },
      Subscription: {
        ticks: {
          async *subscribe(_: unknown, { n }: { n: number }) {
            for (let i = 1; i <= n; i++) yield { ticks: i };
          },
        },
      },
    },
  });
  const yoga = createYoga({
    schema,
    logging: false,
    graphiql: graphiqlOptions({ csrfHeader: CSRF_HEADER, demoAuthorization: DEMO_AUTHORIZATION }),
    renderGraphiQL: packagedGraphiQLRenderer(),
    plugins: [
      {
        onRequestParse({ request }) {
          requests.push(Object.fromEntries(request.headers));
          if (!request.headers.has(CSRF_HEADER)) throw createGraphQLError('missing CSRF header', { extensions: { http: { status: 403 } } });
        },
      },
    ],
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    requests,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
