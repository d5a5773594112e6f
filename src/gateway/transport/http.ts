/**
 * The gateway over node:http: yoga's own node adapter (`gateway` is a node request listener) for
 * every HTTP request, GraphQL over SSE included, and graphql-ws (ws.ts) on the same path for
 * WebSocket upgrades. `npm start` (src/main.ts) and the test harness both serve through
 * `createGatewayServer`, so tests run the code production runs.
 *
 * There is no fast path of our own in front of yoga: measured over loopback HTTP, one saved less
 * than 30% of the gateway's CPU for a single-endpoint query and about 6% for the dashboard query
 * (`BENCH_MODE=transport npm run bench:gateway`), not worth a second
 * HTTP implementation. Request bodies are bounded by yoga (GatewayOptions.maxRequestBodyBytes):
 * refused from Content-Length alone, or as soon as a chunked body passes the limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../yoga.js';
import { attachGraphQLWs, type GraphQLWsOptions, type GraphQLWsServer } from './ws.js';

export interface GatewayServerOptions {
  /** graphql-ws options (path, timeouts). */
  ws?: GraphQLWsOptions;
  /** How long `close()` waits for requests in flight before cutting connections. @default 10_000 */
  drainMs?: number;
}

export interface GatewayServer {
  readonly server: Server;
  readonly ws: GraphQLWsServer;
  /** Listens; resolves with the GraphQL endpoint's URL, e.g. http://127.0.0.1:4000/graphql. */
  listen(port: number, host: string): Promise<string>;
  /**
   * Closes every WebSocket with 1001 Going Away, stops accepting, lets requests in flight finish
   * (up to `drainMs`), then cuts what is left. The gateway itself is the caller's to dispose.
   */
  close(): Promise<void>;
}

export function createGatewayServer(gateway: Gateway, options: GatewayServerOptions = {}): GatewayServer {
  const server = createServer(gateway);
  // A request answered before its body was read whole (refused as too large, or failed) is not
  // read on: the connection closes once the answer is written, instead of node discarding the rest.
  server.on('request', (req, res) => {
    const socket = req.socket; // detached from req by the time the answer is written
    res.once('finish', () => {
      if (!req.complete) socket.end();
    });
  });
  const ws = attachGraphQLWs(server, gateway, options.ws);
  const drainMs = options.drainMs ?? 10_000;
  return {
    server,
    ws,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const { port: actual } = server.address() as AddressInfo;
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${actual}${gateway.graphqlEndpoint}`);
        });
      }),
    async close() {
      await ws.close();
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => (clearTimeout(cut), resolve()));
        server.closeIdleConnections();
      });
    },
  };
}
