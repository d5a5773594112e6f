import { Client, fetchExchange, subscriptionExchange, type Exchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { IntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws'; // Node before 22 has no global WebSocket; browsers need neither

/**
 * `schema`: chatgraph's introspection, so that fragments on unions (typed errors) match exactly.
 * `more`: exchanges to run between the cache and the network (the codegen recipe's persisted documents).
 */
export function chatgraphUrql(url: string, authorization: string, schema: IntrospectionQuery, more: Exchange[] = []) {
  const ws = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization } });
  return new Client({
    url,
    // POST every query: urql's default GET is refused by chatgraph's CSRF protection (403 CSRF_REFUSED).
    preferGetMethod: false,
    fetchOptions: { headers: { authorization } },
    exchanges: [
      // No keys: every object with an identity has a global `id`.
      cacheExchange({ schema }),
      ...more,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}
