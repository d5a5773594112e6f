/**
 * graphql-ws on the gateway's `/graphql` path (the `graphql-transport-ws` protocol), wired to yoga
 * through `gateway.getEnveloped` as in yoga's graphql-ws example, so that WebSocket operations get
 * the same context, plugins, limits, error masking and subscription sharing as HTTP and SSE.
 *
 * Credentials travel in the `connection_init` payload, as `{ authorization: "Basic base64(email:apiKey)" }`
 * or `{ email, apiKey }`; a payload without any credential field falls back to the upgrade
 * request's Authorization header, then to the gateway's default credentials if configured (as for
 * HTTP). A payload with a credential field that is not usable as it is (`{ authorization: null }`,
 * an email without its key, a key that is not a string, both forms at once) is refused, never
 * taken as "no credentials" (credentials.ts reads them). They are checked once, in `onConnect`, by registering the
 * credential's event queue (the call its first subscription needs anyway; the queue then waits
 * out the hub's grace period). Close codes:
 *
 * - 4403 Forbidden: no usable credentials, or the chat server refused them. graphql-ws clients
 *   retry 4403 by default; give them a `shouldRetry` that stops on it.
 * - 1013 Try Again Later: the chat server could not be reached to check them.
 * - 1009 Message Too Big: a message over the gateway's request body limit (`MAX_BODY_BYTES`), closed
 *   by ws as soon as its frame header announces the size, before the payload is read or parsed.
 * - graphql-ws's own: 4408 no `connection_init` in time, 4409 duplicate operation id, 4429 second
 *   `connection_init`, 4401 subscribe before ack, 4400 malformed message.
 * - Keep-alive: every `keepAliveMs` each socket is pinged, and one that has not answered the
 *   previous ping is terminated. One timer serves every socket (graphql-ws's own keep-alive runs
 *   an interval and a timeout per socket).
 *
 * Operations go through the gateway's persisted-operations rule (`gateway.transport.resolveParams`:
 * APQ hashes, trusted documents) before they are parsed, as HTTP requests do in yoga's onParams;
 * each gets its own request id and logger (plugins/request-id.ts), and the open sockets are a
 * metrics gauge sampled at scrape time.
 *
 * A subscription's `next` messages are written by next-frames.ts (each shared result serialized
 * once for every socket); graphql-ws sends everything else. Sharing identical subscriptions and the
 * slow-consumer policy are the gateway's (plugins/share-subscriptions.ts), the same as for SSE.
 */
import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { GraphQLParams } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAuthError } from '../../zulip/errors.js';
import type { Context } from '../context.js';
import { isAsyncIterable } from '../events/multicast.js';
import type { ResultSinkRoot } from '../plugins/share-subscriptions.js';
import { credentialsFromConnectionParams, type SentCredentials } from '../credentials.js';
import { bearerOf, sentSessionOf, sessionCookieOf, type SentSession } from '../sessions/cookie.js';
import type { Gateway } from '../yoga.js';
import { NextFrames, NextMessages } from './next-frames.js';

export interface GraphQLWsOptions {
  /** Where to accept upgrades. @default '/graphql' */
  path?: string;
  /** Close with 4408 when no `connection_init` arrives within this time. @default 3_000 */
  connectionInitWaitTimeoutMs?: number;
  /** WebSocket ping interval; a peer that misses a pong for as long is terminated. 0 disables. @default 12_000 */
  keepAliveMs?: number;
  /**
   * Offer permessage-deflate (RFC 7692) to clients that ask for it. Off by default: each compressed
   * connection holds its own deflate and inflate state (measured in docs/clients.md, "Compression").
   * @default false
   */
  perMessageDeflate?: boolean;
}

export interface GraphQLWsServer {
  readonly wss: WebSocketServer;
  /** Open sockets. */
  stats(): { sockets: number };
  /** Closes every socket with 1001 Going Away and stops accepting upgrades. */
  close(): Promise<void>;
}

type Extra = { socket: WebSocket; request: IncomingMessage };
type Params = Record<string, unknown>;

/** What onSubscribe puts in `rootValue` for the execute/subscribe hooks below (yoga's recipe), and the operation's frames. */
interface Root extends ResultSinkRoot {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
  resultSink: NextFrames;
}

const CLOSE_FORBIDDEN = 4403;
const CLOSE_TRY_AGAIN_LATER = 1013;

/** Pings every socket each `intervalMs`, terminating one that has not answered the previous ping; returns its stop. */
function keepAlive(wss: WebSocketServer, intervalMs: number): () => void {
  if (intervalMs <= 0) return () => undefined;
  const answered = new WeakSet<WebSocket>();
  function onPong(this: WebSocket) {
    answered.add(this);
  }
  wss.on('connection', (socket) => {
    answered.add(socket);
    socket.on('pong', onPong);
  });
  const timer = setInterval(() => {
    for (const socket of wss.clients) {
      if (socket.readyState !== socket.OPEN) continue;
      if (!answered.delete(socket)) socket.terminate();
      else socket.ping();
    }
  }, intervalMs);
  return () => clearInterval(timer);
}

/** Closes the socket with a reason the client can read; graphql-ws's own close then does nothing. */
function refuse(socket: WebSocket, code: number, reason: string): false {
  socket.close(code, reason.slice(0, 120)); // close reasons are limited to 123 bytes
  return false;
}

export function attachGraphQLWs(server: Server, gateway: Gateway, options: GraphQLWsOptions = {}): GraphQLWsServer {
  // No compression unless asked (ws's default for servers, stated): a deflate per frame costs more
  // than the write, and each connection's zlib state costs memory. When on, small frames (most
  // events) are sent as they are, and the deflate window is kept small.
  // ws's own maxPayload default is 100 MiB: a message that size would be buffered and JSON-parsed.
  const wss = new WebSocketServer({
    server,
    path: options.path ?? '/graphql',
    perMessageDeflate: options.perMessageDeflate === true && { threshold: 1024, serverMaxWindowBits: 12, zlibDeflateOptions: { memLevel: 4 } },
    maxPayload: gateway.transport.maxRequestBodyBytes,
    // A browser's upgrade carries its cookies whatever page opened it: one from a foreign origin
    // (neither this gateway's host nor CORS_ORIGINS) is refused before the socket opens.
    verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, status?: number, message?: string) => void) => {
      const origin = req.headers.origin;
      if (origin === undefined) return done(true);
      const withCookie = sessionCookieOf(req.headers.cookie) !== undefined;
      if (gateway.transport.originAllowed(origin, req.headers.host, withCookie)) return done(true);
      done(false, 403, 'ORIGIN_REFUSED: this origin is neither the gateway\'s nor one of CORS_ORIGINS');
    },
  });

  // The credentials each socket sent, read once from its payload (credentials.ts); graphql-ws keeps
  // the raw payload as connectionParams, which operations' contexts do not carry.
  const credentialsOf = new WeakMap<object, SentCredentials | undefined>();
  // The session each socket sent instead: a bearer token in its payload, or the upgrade's cookie or bearer.
  const sessionOf = new WeakMap<object, SentSession>();

  /** The gateway context for a socket's operations (and for the credential check). */
  const contextOf = (ctx: WsContext<Params, Extra>, params?: unknown) =>
    gateway.getEnveloped({
      ...ctx,
      connectionParams: undefined,
      sentCredentials: credentialsOf.get(ctx),
      sentSession: sessionOf.get(ctx),
      req: ctx.extra.request,
      socket: ctx.extra.socket,
      params,
    });

  const messages = new NextMessages();
  const { metrics, resolveParams } = gateway.transport;
  const delivered = metrics && (() => metrics.eventsDelivered());
  const stopSampling = metrics?.addCollector(() => metrics.connections('ws', wss.clients.size));

  const handle = useServer<Params, Extra>(
    {
      connectionInitWaitTimeout: options.connectionInitWaitTimeoutMs ?? 3_000,
      execute: (args) => (args.rootValue as Root).execute(args) as never,
      subscribe: (args) => (args.rootValue as Root).subscribe(args) as never,
      onOperation: (_ctx, _id, _payload, args, result) =>
        isAsyncIterable(result) ? (args.rootValue as Root).resultSink.drain(result as AsyncIterable<ExecutionResult>) : undefined,
      onConnect: async (ctx) => {
        const socket = ctx.extra.socket;
        const header = ctx.extra.request.headers.authorization;
        const session = sentSessionOfSocket(ctx.connectionParams, ctx.extra.request);
        if (session) sessionOf.set(ctx, session);
        const sent = session ? undefined : credentialsFromConnectionParams(ctx.connectionParams, typeof header === 'string' ? header : undefined);
        if (sent && 'problem' in sent && sent.payload) return refuse(socket, CLOSE_FORBIDDEN, `${sent.problem}.`);
        credentialsOf.set(ctx, sent);
        const context = (await contextOf(ctx).contextFactory()) as unknown as Context;
        if (!context.credentials) {
          const problem = context.credentialsProblem ?? 'Missing credentials';
          return refuse(socket, CLOSE_FORBIDDEN, `${problem.replace(/\.$/, '')}: send {authorization: "Basic ..."} in connection_init.`);
        }
        try {
          await context.events!.validate(context.connection);
          return true;
        } catch (error) {
          if (isAuthError(error)) return refuse(socket, CLOSE_FORBIDDEN, `The chat server refused the credentials (${error.code}).`);
          return refuse(socket, CLOSE_TRY_AGAIN_LATER, 'The chat server could not be reached to check the credentials; try again later.');
        }
      },
      onSubscribe: async (ctx, id, message) => {
        let payload = message;
        if (resolveParams) {
          try {
            // graphql-ws requires a query string: a client sending only a hash or id sends ''.
            const resolved = resolveParams({ ...message, query: message.query || undefined } as GraphQLParams);
            payload = { ...message, ...resolved, query: resolved.query ?? '' } as typeof message;
          } catch (error) {
            return [error instanceof GraphQLError ? error : new GraphQLError('The persisted operation could not be resolved.')];
          }
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = contextOf(ctx, payload);
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          // A syntax error is the client's, not a reason to drop the socket: answer with an error message.
          return [error instanceof GraphQLError ? error : new GraphQLError('The query could not be parsed.')];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const rootValue: Root = { execute, subscribe, resultSink: new NextFrames(ctx.extra.socket, id, messages, delivered) };
        return {
          schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          rootValue,
        };
      },
    },
    wss,
    0, // our keep-alive below
  );
  const stopKeepAlive = keepAlive(wss, options.keepAliveMs ?? 12_000);
  // graphql-ws writes a socket's error (ws's, for a client's protocol violation such as a message
  // over maxPayload) to console.error with its stack, once per socket: output any client can
  // fill. ws has already closed the socket with the right code by then; one line at debug, as for
  // other refused client input, through the gateway's logger is enough.
  const { logger } = gateway.transport;
  wss.on('connection', (socket) => {
    socket.removeAllListeners('error'); // added by graphql-ws's own 'connection' listener, just before
    socket.on('error', (error: Error & { code?: string }) => {
      logger?.debug({ wsError: error.code ?? error.name }, 'WebSocket closed on a client protocol error');
    });
  });

  return {
    wss,
    stats: () => ({ sockets: wss.clients.size }),
    close: async () => {
      stopSampling?.();
      stopKeepAlive();
      await handle.dispose();
    },
  };
}

/**
 * The session a socket sent: `{ authorization: "Bearer …" }` in its `connection_init` payload, else
 * (a payload without credentials) the upgrade request's bearer token or session cookie.
 */
function sentSessionOfSocket(payload: unknown, request: IncomingMessage): SentSession | undefined {
  const params = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const authorization = params.authorization ?? params.Authorization;
  if (typeof authorization === 'string') {
    const token = bearerOf(authorization);
    return token === undefined ? undefined : { token, via: 'bearer' };
  }
  if (['email', 'apiKey', 'api_key'].some((field) => Object.hasOwn(params, field))) return undefined;
  const header = request.headers.authorization;
  return sentSessionOf({ authorization: typeof header === 'string' ? header : undefined, cookie: request.headers.cookie });
}
