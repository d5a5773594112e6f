import { persistedExchange } from '@urql/exchange-persisted';

/** Sends each codegen document as its persisted hash alone, queries, mutations and subscriptions alike. */
export const persistedDocuments = () =>
  persistedExchange({
    enforcePersistedQueries: true,
    enableForMutation: true,
    enableForSubscriptions: true,
    // POST: a GET is refused by chatgraph's CSRF protection.
    preferGetForPersistedQueries: false,
    generateHash: async (_query, document) => (document as { __meta__?: { hash?: string } }).__meta__!.hash!,
  });
