/**
 * graphql-ws on the gateway's `/graphql` path (the `graphql-transport-ws` protocol), wired to yoga
 * through `gateway.getEnveloped` as in yoga's graphql-ws example, so that WebSocket operations get
 * the same context, plugins, limits and error masking as HTTP and SSE.
 *
 * Credentials travel in the `connection_init` payload, as `{ authorization: "Basic base64(email:apiKey)" }`
 * or `{ email, apiKey }` (the upgrade request's Authorization header is accepted too; with none at
 * all, the gateway's default credentials apply if configured, as for HTTP). They are
 * checked once, in `onConnect`, by registering the credential's event queue (the call its first
 * subscription needs anyway; the queue then waits out the hub's grace period). Close codes:
 *
 * - 4403 Forbidden: no usable credentials, or the chat server refused them. graphql-ws clients
 *   retry 4403 by default; give them a `shouldRetry` that stops on it.
 * - 1013 Try Again Later: the chat server could not be reached to check them.
 * - graphql-ws's own: 4408 no `connection_init` in time, 4409 duplicate operation id, 4429 second
 *   `connection_init`, 4401 subscribe before ack, 4400 malformed message; and keep-alive pings,
 *   terminating peers that stop answering.
 *
 * Identical subscriptions (same credential, operation and variables, not resuming from a cursor)
 * run once and share their results (events/multicast.ts): with many sockets per user, the cost of
 * an event is one GraphQL execution plus one frame per socket. The result is serialized once, and
 * each socket's `next` frame is its operation's prefix plus those bytes, written in the execution's
 * own turn (graphql-ws's per-socket loop only sees the end of the stream: complete, error or
 * SLOW_CONSUMER). Each socket still has its own bounded backlog (frames its peer has not taken
 * yet) and ends alone with SLOW_CONSUMER if it cannot keep up.
 */
import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, Kind, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAuthError } from '../zulip/errors.js';
import type { Context } from './context.js';
import { Multicast, type Sink } from './events/multicast.js';
import type { Gateway } from './yoga.js';

export interface GraphQLWsOptions {
  /** Where to accept upgrades. @default '/graphql' */
  path?: string;
  /**
   * Run identical subscriptions (same credential, operation and variables) once and share the
   * results among their sockets. @default true
   */
  shareSubscriptions?: boolean;
  /** Results a socket's subscription may have waiting before it ends with SLOW_CONSUMER. @default 1000 */
  subscriberBufferSize?: number;
  /** Close with 4408 when no `connection_init` arrives within this time. @default 3_000 */
  connectionInitWaitTimeoutMs?: number;
  /** WebSocket ping interval; a peer that misses a pong for as long is terminated. 0 disables. @default 12_000 */
  keepAliveMs?: number;
}

export interface GraphQLWsServer {
  readonly wss: WebSocketServer;
  /** Open sockets, and the socket subscriptions currently served by a shared execution. */
  stats(): { sockets: number; sharedSubscriptions: number };
  /** Closes every socket with 1001 Going Away and stops accepting upgrades. */
  close(): Promise<void>;
}

type Extra = { socket: WebSocket; request: IncomingMessage };
type Params = Record<string, unknown>;

/** What onSubscribe puts in `rootValue` for the execute/subscribe hooks below (yoga's recipe, plus a share key). */
interface Root {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
  /** Identical subscriptions share one execution; undefined for unshared ones. */
  shareKey?: string;
  /** Where a shared execution writes this operation's `next` frames. */
  sink?: Sink<Buffer>;
}

const SLOW_CONSUMER_MESSAGE =
  'The subscription fell too far behind and was closed; resubscribe with the last cursor received.';

/**
 * Whether a subscription can share its execution with identical ones: it must not resume from a
 * cursor (`after`), since a later identical request would then miss the replay the first one got.
 */
function shareable(document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'subscription') return false;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return false; // fragments at the root: keep it simple, do not share
    for (const argument of selection.arguments ?? []) {
      if (argument.name.value !== 'after') continue;
      const value = argument.value;
      if (value.kind === Kind.VARIABLE ? variables?.[value.name.value] != null : value.kind !== Kind.NULL) return false;
    }
  }
  return true;
}

/**
 * The `payload` of the `next` message graphql-ws would send for a result (its `emit.next`: the
 * result, with `errors` last and only when present), serialized once for every socket sharing it.
 */
function encodeNextPayload(result: ExecutionResult): Buffer {
  const { errors, ...rest } = result;
  return Buffer.from(JSON.stringify(errors ? { ...rest, errors: errors.map((e) => e.toJSON()) } : rest), 'utf8');
}

/** The part of ws's socket object that frames are written to (ws has no public handle on it). */
interface WithTcpSocket {
  _socket?: { write(chunk: Buffer): boolean; readonly writableLength: number };
}

/**
 * Writes one operation's `next` messages to its socket, byte for byte what graphql-ws would send
 * (`{"id":…,"type":"next","payload":…}`, no replacer), from a payload encoded once per result.
 *
 * Each frame is built here (final, text, unmasked as server frames are) and written in one call to
 * the TCP socket under ws: ws's `send` would frame it again (two option objects, a header buffer,
 * cork and writev), which made a delivery cost about a third more. This keeps the order of ws's own
 * frames (pongs, pings, close) because ws's sender never queues on this server: it queues only while
 * compressing (permessage-deflate is off, and `extensions` shows none was negotiated) or reading a
 * Blob (graphql-ws sends strings), so every frame reaches the TCP socket in call order. Without that
 * socket (another ws), frames go through `send`.
 *
 * A frame counts as flushed when nothing waits in the socket's buffer after it (the kernel took it).
 * Exported for its tests.
 */
export function nextFrames(socket: WebSocket, id: string): Sink<Buffer> {
  const prefix = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`, 'utf8');
  const tcp = socket.extensions === '' ? (socket as unknown as WithTcpSocket)._socket : undefined;
  return {
    write(payload) {
      // As graphql-ws's own send does on a socket that is closing: drop it; the close ends the operation.
      if (socket.readyState !== socket.OPEN) return true;
      if (tcp) {
        tcp.write(textFrame(prefix, payload));
        return tcp.writableLength === 0;
      }
      socket.send(Buffer.concat([prefix, payload, MESSAGE_END]), TEXT_FRAME);
      return socket.bufferedAmount === 0;
    },
  };
}

const TEXT_FRAME = { binary: false } as const;
const MESSAGE_END = Buffer.from('}');

/** A final, unmasked text frame (RFC 6455 §5.2) holding `prefix + payload + "}"`. */
function textFrame(prefix: Buffer, payload: Buffer): Buffer {
  const length = prefix.length + payload.length + 1;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (header === 2) {
    frame[1] = length;
  } else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  prefix.copy(frame, header);
  payload.copy(frame, header + prefix.length);
  frame[frame.length - 1] = 0x7d; // }
  return frame;
}

const CLOSE_FORBIDDEN = 4403;
const CLOSE_TRY_AGAIN_LATER = 1013;

/**
 * The credentials of a `connection_init` payload as the `{ authorization }` form the gateway's
 * context reads, falling back to the upgrade request's header. Never logs or echoes values.
 */
function normalizeParams(payload: unknown, request: IncomingMessage): Params {
  const params: Params = payload !== null && typeof payload === 'object' ? { ...(payload as Params) } : {};
  const { email, apiKey } = params;
  if (params.authorization === undefined && params.Authorization === undefined) {
    if (typeof email === 'string' && typeof apiKey === 'string') {
      params.authorization = `Basic ${Buffer.from(`${email}:${apiKey}`, 'utf8').toString('base64')}`;
    } else if (typeof request.headers.authorization === 'string') {
      params.authorization = request.headers.authorization;
    }
  }
  return params;
}

/** Closes the socket with a reason the client can read; graphql-ws's own close then does nothing. */
function refuse(socket: WebSocket, code: number, reason: string): false {
  socket.close(code, reason.slice(0, 120)); // close reasons are limited to 123 bytes
  return false;
}

export function attachGraphQLWs(server: Server, gateway: Gateway, options: GraphQLWsOptions = {}): GraphQLWsServer {
  // No compression (ws's default for servers, stated): a deflate per frame would cost more than the write.
  const wss = new WebSocketServer({ server, path: options.path ?? '/graphql', perMessageDeflate: false });
  const shared = new Multicast<ExecutionResult, Buffer>({
    limit: options.subscriberBufferSize ?? 1000,
    overflow: () => ({ errors: [new GraphQLError(SLOW_CONSUMER_MESSAGE, { extensions: { code: 'SLOW_CONSUMER' } })] }),
    encode: encodeNextPayload,
  });

  // The normalized connection_init payload of each socket (graphql-ws keeps its own read-only copy).
  const paramsOf = new WeakMap<object, Params>();

  /** The gateway context for a socket's operations (and for the credential check). */
  const contextOf = (ctx: WsContext<Params, Extra>, params?: unknown) =>
    gateway.getEnveloped({
      ...ctx,
      connectionParams: paramsOf.get(ctx) ?? {},
      req: ctx.extra.request,
      socket: ctx.extra.socket,
      params,
    });

  // Shared operations' `next` frames bypass graphql-ws's emit (nextFrames): an `onNext` hook or a
  // `jsonMessageReplacer` added here would not see them.
  const handle = useServer<Params, Extra>(
    {
      connectionInitWaitTimeout: options.connectionInitWaitTimeoutMs ?? 3_000,
      execute: (args) => (args.rootValue as Root).execute(args) as never,
      subscribe: (args) => {
        const root = args.rootValue as Root;
        if (root.shareKey === undefined) return root.subscribe(args) as never;
        return shared.join(
          root.shareKey,
          () => root.subscribe(args) as Promise<AsyncIterable<ExecutionResult> | ExecutionResult>,
          root.sink,
        ) as never;
      },
      onConnect: async (ctx) => {
        const socket = ctx.extra.socket;
        paramsOf.set(ctx, normalizeParams(ctx.connectionParams, ctx.extra.request));
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
      onSubscribe: async (ctx, id, payload) => {
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
        const contextValue = (await contextFactory()) as unknown as Context;
        const rootValue: Root = { execute, subscribe };
        if (options.shareSubscriptions !== false && shareable(document, payload.operationName, payload.variables)) {
          // The credential's HMAC, never the credential, keys the sharing: only one identity's sockets share.
          rootValue.shareKey = JSON.stringify([contextValue.connection.credentialKey, payload.operationName ?? null, payload.query, payload.variables ?? null]);
          rootValue.sink = nextFrames(ctx.extra.socket, id);
        }
        return {
          schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue,
          rootValue,
        };
      },
    },
    wss,
    options.keepAliveMs ?? 12_000,
  );

  return {
    wss,
    stats: () => ({ sockets: wss.clients.size, sharedSubscriptions: shared.size }),
    close: async () => {
      await handle.dispose();
    },
  };
}
