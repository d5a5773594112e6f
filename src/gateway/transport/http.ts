/**
 * The gateway over node:http: yoga's own node adapter (`gateway` is a node request listener) for
 * every HTTP request, GraphQL over SSE included, and graphql-ws (ws.ts) on the same path for
 * WebSocket upgrades. `npm start` (src/main.ts) and the test harness both serve through
 * `createGatewayServer`, so tests run the code production runs.
 *
 * Request bodies are bounded by plugins/body-limit.ts (GatewayOptions.maxRequestBodyBytes): refused
 * from Content-Length alone, or as soon as a chunked body passes the limit.
 *
 * Slow and greedy clients are bounded here: node's header, request and keep-alive timeouts (with
 * node's own 60 s header and 300 s request defaults replaced), the lingering after a refused body
 * (by time and bytes), and the connections one instance holds. Every refusal made here, like every
 * refusal yoga makes (plugins/refusals.ts), has a JSON body with a code.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GatewayErrorCode, refusalBody } from '../errors.js';
import type { Gateway } from '../yoga.js';
import { attachGraphQLWs, type GraphQLWsOptions, type GraphQLWsServer } from './ws.js';

/** Port of the GraphQL endpoint when PORT is unset. */
export const DEFAULT_PORT = 4000;
/** Loopback unless HOST says otherwise: a gateway is not exposed by accident. */
export const DEFAULT_HOST = '127.0.0.1';
/** How long `close()` (SIGTERM) lets requests in flight finish before connections are cut. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Production defaults of the slow-client bounds (config HEADERS_TIMEOUT_MS and the rest; docs/configuration.md says why). */
export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  lingerMs: 5_000,
  lingerMaxBytes: 8_000_000,
  maxConnections: 10_000,
} as const;

export interface GatewayServerOptions {
  /** graphql-ws options (path, timeouts). */
  ws?: GraphQLWsOptions;
  /** How long `close()` waits for requests in flight before cutting connections. @default DEFAULT_DRAIN_MS */
  drainMs?: number;
  /**
   * How long a connection answered before its request body was read whole keeps reading (and
   * discarding) what the client still sends, before it is cut. @default SERVER_LIMITS.lingerMs
   */
  lingerMs?: number;
  /** How many bytes such a connection reads, from its start, before it is cut. @default SERVER_LIMITS.lingerMaxBytes */
  lingerMaxBytes?: number;
  /**
   * How long a request's headers may take to arrive, from the connection's start or the end of
   * the previous request; past it the client gets 408 REQUEST_TIMEOUT. @default SERVER_LIMITS.headersTimeoutMs
   */
  headersTimeoutMs?: number;
  /** How long a whole request (headers and body) may take to arrive; 408 past it. At least `headersTimeoutMs`. @default SERVER_LIMITS.requestTimeoutMs */
  requestTimeoutMs?: number;
  /** How long a connection may stay idle between requests before it is closed. @default SERVER_LIMITS.keepAliveTimeoutMs */
  keepAliveTimeoutMs?: number;
  /**
   * Connections this instance holds at once, WebSockets included; a connection over it is answered
   * 503 TOO_MANY_CONNECTIONS and closed without its request being read. @default SERVER_LIMITS.maxConnections
   */
  maxConnections?: number;
}

export interface GatewayServer {
  readonly server: Server;
  readonly ws: GraphQLWsServer;
  /** Connections held now (those being refused over the cap not included). */
  readonly connections: number;
  /** Listens; resolves with the GraphQL endpoint's URL, e.g. http://127.0.0.1:4000/graphql. */
  listen(port: number, host: string): Promise<string>;
  /**
   * Closes every WebSocket with 1001 Going Away, stops accepting, lets requests in flight finish
   * (up to `drainMs`), then cuts what is left. The gateway itself is the caller's to dispose.
   */
  close(): Promise<void>;
}

interface Linger {
  ms: number;
  maxBytes: number;
}

export function createGatewayServer(gateway: Gateway, options: GatewayServerOptions = {}): GatewayServer {
  const linger: Linger = { ms: options.lingerMs ?? SERVER_LIMITS.lingerMs, maxBytes: options.lingerMaxBytes ?? SERVER_LIMITS.lingerMaxBytes };
  const headersTimeout = options.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs;
  const requestTimeout = options.requestTimeoutMs ?? Math.max(SERVER_LIMITS.requestTimeoutMs, headersTimeout);
  const maxConnections = options.maxConnections ?? SERVER_LIMITS.maxConnections;
  // A request answered before its body was read whole (refused as too large, or failed) ends its
  // connection once the answer is written. A request pipelined behind it is then neither run nor
  // answered, and reading stops: its client sees the connection end without an answer, which
  // tells it the request was not processed (a mutation run unanswered might be sent again).
  const closing = new WeakSet<Socket>();
  // The answer being written on each connection: node's own refusals (clientError) must not
  // write into it.
  const answering = new WeakMap<Socket, ServerResponse>();
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? SERVER_LIMITS.keepAliveTimeoutMs,
      // node checks the two timeouts above on this interval (30 s by default, which would let a
      // 10 s header timeout run to 40 s): a tenth of the shorter keeps a cut within 10% of it.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 10))),
    },
    (req, res) => {
      if (closing.has(req.socket)) return void req.socket.pause();
      const socket = req.socket; // detached from req by the time the answer is written
      answering.set(socket, res);
      res.once('finish', () => {
        answering.delete(socket);
        if (req.complete) return;
        closing.add(socket);
        closeLingering(req, socket, linger);
      });
      void gateway(req, res);
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const res = answering.get(socket);
    if (error.code === 'ECONNRESET' || !socket.writable || closing.has(socket) || res?.headersSent) return void socket.destroy();
    const [status, code, message] = clientErrorAnswer(error.code);
    socket.end(rawResponse(status, code, message), () => socket.destroy());
  });
  let connections = 0;
  capConnections(server, maxConnections, linger, {
    accepted: () => connections++,
    closed: () => connections--,
    count: () => connections,
  });
  const ws = attachGraphQLWs(server, gateway, options.ws);
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  return {
    server,
    ws,
    get connections() {
      return connections;
    },
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        // A listen failure (EADDRINUSE) is the caller's to report, once: ws forwards the server's
        // errors to graphql-ws, which would print it to the console as an internal error too.
        const others = server.rawListeners('error') as ((error: Error) => void)[];
        server.removeAllListeners('error');
        const failed = (error: Error) => {
          for (const listener of others) server.on('error', listener);
          reject(error);
        };
        server.once('error', failed);
        server.listen(port, host, () => {
          server.off('error', failed);
          for (const listener of others) server.on('error', listener);
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

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** node's own choice of status for a parse or timeout error (its default clientError answer), with our code. */
function clientErrorAnswer(code: string | undefined): [number, GatewayErrorCode, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, GatewayErrorCode.requestTimeout, 'The request did not arrive within the server\'s timeout.'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, GatewayErrorCode.requestHeadersTooLarge, 'Request headers too large.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, GatewayErrorCode.requestEntityTooLarge, 'Request body too large'];
    default:
      return [400, GatewayErrorCode.badRequest, 'Malformed HTTP request.'];
  }
}

/** A whole HTTP/1.1 answer that closes the connection, for refusals made outside yoga. */
function rawResponse(status: number, code: GatewayErrorCode, message: string, headers: Record<string, string> = {}): Buffer {
  const body = Buffer.from(refusalBody(message, code));
  const lines = Object.entries({ 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length), ...headers, connection: 'close' });
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${REASONS[status]}\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`), body]);
}

const TOO_MANY_CONNECTIONS = rawResponse(503, GatewayErrorCode.tooManyConnections, 'Too many connections to this instance: retry shortly.', { 'retry-after': '1' });

/**
 * Holds the server to `max` connections. Over it, a connection is answered 503
 * TOO_MANY_CONNECTIONS at once, before its request is read, and ends like a lingering refusal: a
 * client learns why (a code and Retry-After, which a load balancer retries elsewhere) instead of
 * a reset it cannot tell from a crash, for the cost of one write of a fixed answer. Connections
 * being refused are bounded too: past `max` of them, a new one is destroyed without an answer.
 *
 * node's own `server.maxConnections` can only destroy the socket unanswered, so node's HTTP
 * connection listener (registered by `createServer`) is called from ours instead, for accepted
 * connections only.
 */
function capConnections(
  server: Server,
  max: number,
  linger: Linger,
  count: { accepted(): void; closed(): void; count(): number },
): void {
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  let refusing = 0;
  server.on('connection', (socket: Socket) => {
    if (count.count() < max) {
      count.accepted();
      socket.once('close', count.closed);
      for (const listener of listeners) listener.call(server, socket);
      return;
    }
    if (refusing >= max) return void socket.destroy();
    refusing++;
    socket.once('close', () => refusing--);
    socket.on('error', () => undefined); // a client gone before it read the answer
    socket.resume(); // read and discard its request, bounded below
    socket.end(TOO_MANY_CONNECTIONS);
    lingerThenDestroy(socket, linger);
  });
}

/**
 * Ends a connection whose client may still be sending a body we did not read, without losing the
 * answer already written: our side ends after the answer, node's parser goes on reading and
 * discarding the body, and the socket is destroyed when the client ends its side, after
 * `linger.ms`, or once `linger.maxBytes` were read on it. Destroyed at once (node's own way for
 * `Connection: close`), the kernel answers the client's next bytes with a reset, and a client
 * that writes before it reads can lose the 413.
 */
function closeLingering(req: IncomingMessage, socket: Socket, linger: Linger): void {
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
  lingerThenDestroy(socket, linger);
}

/**
 * Destroys a socket whose side we ended once the client ends its own, after `linger.ms`, or once
 * more than `linger.maxBytes` were read on it in all. node's parser reads without a JavaScript
 * event per piece, so the byte count is looked at on a timer.
 */
function lingerThenDestroy(socket: Socket, linger: Linger): void {
  const cut = setTimeout(() => socket.destroy(), linger.ms).unref();
  // node's timers share one list per duration: one pass over the lingering sockets per tick.
  const watch = setInterval(() => {
    if (socket.bytesRead > linger.maxBytes) socket.destroy();
  }, Math.max(1, Math.min(10, linger.ms / 10))).unref();
  socket.once('close', () => (clearTimeout(cut), clearInterval(watch)));
}
