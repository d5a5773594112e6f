import { createClient } from 'graphql-ws';
import { Environment, Network, Observable, RecordSource, Store, type GraphQLResponse, type RequestParameters, type Variables } from 'relay-runtime';
import WebSocket from 'ws'; // Node before 22 has no global WebSocket; browsers need neither

export function chatgraphRelay(url: string, authorization: string) {
  const ws = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization } });
  // Every operation over graphql-ws: queries, mutations, subscriptions, and @defer's parts.
  const execute = (request: RequestParameters, variables: Variables) =>
    Observable.create<GraphQLResponse>((sink) =>
      ws.subscribe<Record<string, unknown>>(
        { query: request.text!, variables, operationName: request.name },
        {
          // chatgraph sends @defer's parts in the 2022-08-24 format (`incremental`); Relay takes one
          // payload per part, with its `label` and `path`.
          next: (result) => {
            const { incremental } = result as { incremental?: { data: Record<string, unknown>; label: string; path: (string | number)[] }[] };
            if (!incremental) return sink.next(result as GraphQLResponse);
            for (const part of incremental) sink.next({ data: part.data, label: part.label, path: part.path });
          },
          error: (error) => sink.error(error instanceof Error ? error : new Error(JSON.stringify(error))),
          complete: () => sink.complete(),
        },
      ),
    );
  // No missing-field handlers or getDataID: every object with an identity has a global `id`.
  return new Environment({ network: Network.create(execute, execute), store: new Store(new RecordSource()) });
}
