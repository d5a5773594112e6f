import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws'; // Node before 22 has no global WebSocket; browsers need neither

export function chatgraphApollo(url: string, authorization: string) {
  const http = new HttpLink({ uri: url, headers: { authorization } });
  const ws = new GraphQLWsLink(createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization } }));
  const isSubscription = ({ query }: { query: Parameters<typeof getMainDefinition>[0] }) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  return new ApolloClient({
    link: split(isSubscription, ws, http),
    // No type policies: every object with an identity has a global `id`.
    cache: new InMemoryCache(),
    // chatgraph sends @defer in the 2022-08-24 format (`incremental`, `hasNext`).
    incrementalHandler: new Defer20220824Handler(),
  });
}
