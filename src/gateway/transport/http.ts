/**
 * The gateway over node:http: yoga's own node adapter (`gateway` is a node request listener) for
 * every HTTP request, GraphQL over SSE included, and graphql-ws (ws.ts) on the same path for
 * WebSocket upgrades. `npm start` (src/main.ts) and the test harness both serve through
 * `createGatewayServer`, so tests run the code production runs.
 *
 * Request bodies are bounded by plugins/body-limit.ts (GatewayOptions.maxRequestBodyBytes): refused
 * from Content-Length alone, or as soon as a chunked body passes the limit.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Gateway } from '../yoga.js';
import { attachGraphQLWs, type GraphQLWsOptions, type GraphQLWsServer } from './ws.js';

export interface GatewayServerOptions {
  /** graphql-ws options (path, timeouts). */
  ws?: GraphQLWsOptions;
  /** How long `close()` waits for requests in flight before cutting connections. @default 10_000 */
  drainMs?: number;
  /**
   * How long a connection answered before its request body was read whole keeps reading (and
   * discarding) what the client still sends, before it is cut. @default 5_000
   */
  lingerMs?: number;
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
  const lingerMs = options.lingerMs ?? 5_000;
  // A request answered before its body was read whole (refused as too large, or failed) ends its
  // connection once the answer is written. A request pipelined behind it is then neither run nor
  // answered, and reading stops: its client sees the connection end without an answer, which
  // tells it the request was not processed (a mutation run unanswered might be sent again).
  const closing = new WeakSet<Socket>();
  const server = createServer((req, res) => {
    if (closing.has(req.socket)) return void req.socket.pause();
    const socket = req.socket; // detached from req by the time the answer is written
    res.once('finish', () => {
      if (req.complete) return;
      closing.add(socket);
      closeLingering(req, socket, lingerMs);
    });
    void gateway(req, res);
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

/**
 * Ends a connection whose client may still be sending a body we did not read, without losing the
 * answer already written: our side ends after the answer, node's parser goes on reading and
 * discarding the body, and the socket is destroyed when the client ends its side or after
 * `lingerMs`. Destroyed at once (node's own way for `Connection: close`), the kernel answers the
 * client's next bytes with a reset, and a client that writes before it reads can lose the 413: the
 * reset can reach it before it reads the answer, as a raw-socket client still sending a large body
 * often does on a busy host. (undici read the 413 either way.)
 */
function closeLingering(req: IncomingMessage, socket: Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  // node's destroySoon() (called first, for `Connection: close`) destroys once our side is ended.
  socket.removeListener('finish', socket.destroy);
  // node's parser pauses the socket at each piece of a body whose request stream yoga destroyed
  // (a chunked body over the limit): read on until that body ends, a piece per turn of the event
  // loop. Pauses after it stand: they stop the reading of requests pipelined behind it, which are
  // not answered (our side has ended); resumed at once, node's own pause for them spun.
  socket.on('pause', () => {
    if (!req.complete) setImmediate(() => socket.resume());
  });
  socket.end();
  const cut = setTimeout(() => socket.destroy(), lingerMs).unref();
  socket.once('close', () => clearTimeout(cut));
}
