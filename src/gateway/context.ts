/**
 * The per-request GraphQL context. Each request gets its own `ZulipConnection` carrying the
 * caller's credentials, its own DataLoaders and its own counters, so nothing fetched for one
 * credential can be served to another. What requests share lives on the gateway's
 * {@link UpstreamServer}: the keep-alive pool and public facts about the chat server.
 *
 * Credentials come from `Authorization: Basic base64(email:apiKey)` (Zulip's own scheme, so a
 * client can send the header it already uses with the REST API). The configured default
 * credentials apply only when a request carries no Authorization header at all; a header that
 * is present but unusable never falls back to another identity.
 */
import { GraphQLError } from 'graphql';
import { ZulipConnection, type Credentials, type FetchLike, type ObservedCall, type ResponseInfo } from '../zulip/connection.js';
import { GatewayErrorCode } from './errors.js';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from './input-limits.js';
import type { LiveDirectories } from './directory/live.js';
import { createLoaders, DEFAULT_USER_IDS_THRESHOLD, SharedValue, type Loaders } from './loaders/index.js';
import type { EventHub } from './events/hub.js';

/** How to reach the chat server; fixed for the lifetime of a gateway. */
export interface UpstreamConfig {
  /** Server origin, e.g. `https://chat.example.com` (without `/api/v1`). */
  baseUrl: string;
  /**
   * Transport for every upstream call; the tests' seam.
   * @default undici's request API over one keep-alive pool (see zulip/connection.ts)
   */
  fetch?: FetchLike;
  /** Used for requests that carry no Authorization header. @default none (anonymous) */
  defaultCredentials?: Credentials;
  /** Per-attempt upstream timeout in milliseconds. @default 10_000 (the connection's default) */
  timeoutMs?: number;
}

/**
 * The chat server behind one gateway instance: made once by `createGateway` and closed with it.
 * Holds the one upstream connection (so the one keep-alive pool) that requests derive their
 * credentials and counters from, and the public server facts every caller shares. Nothing here
 * depends on a caller's credentials.
 */
export class UpstreamServer {
  readonly connection: ZulipConnection;
  /** The server's feature level (feature-level.ts). */
  readonly featureLevel = new SharedValue<number>();
  /** `server_presence_offline_threshold_seconds` (schema/presence.ts). */
  readonly presenceOfflineThreshold = new SharedValue<number>();
  /** Each credential's live directory (directory/live.ts); undefined when it is off. Set by createGateway. */
  directories: LiveDirectories | undefined;
  /** Below feature level 384, user batches up to this size are fetched by ID (loaders/users.ts). */
  userIdsThreshold = DEFAULT_USER_IDS_THRESHOLD;
  /** Whether `GET /users` honours `user_ids` (feature level 384), learned from its first answer. */
  userIdsSupported: boolean | undefined = undefined;
  /** The server's length limits (input-limits.ts), learnt from its registration responses. */
  readonly inputLimits: InputLimits = { ...DEFAULT_INPUT_LIMITS };
  /**
   * Observes each upstream call of a request (metrics, trace span, request id; observability/upstream.ts).
   * `observation` is the GraphQL context object, read when the call is made: the request id and the
   * operation's trace context are put on it after the context is built. Set by createGateway.
   */
  observe: ((observation: object, route: string, method: string) => ObservedCall) | undefined;

  constructor(readonly config: UpstreamConfig) {
    this.connection = new ZulipConnection({
      baseUrl: config.baseUrl,
      ...(config.fetch && { fetch: config.fetch }),
      ...(config.timeoutMs !== undefined && { timeoutMs: config.timeoutMs }),
    });
  }

  /** Closes the keep-alive pool (gateway disposal). */
  close(): Promise<void> {
    return this.connection.close();
  }
}

export interface Context {
  /** The gateway's chat server: shared connection pool and server facts. */
  server: UpstreamServer;
  /** Talks to the chat server as the caller (anonymous when there are no credentials). */
  connection: ZulipConnection;
  /** Same server and counters, never any credentials: for public endpoints (server settings). */
  anonymousConnection: ZulipConnection;
  /** Per-request batching over the bulk endpoints; see loaders.ts. */
  loaders: Loaders;
  /** What this request cost upstream; reported in the response `extensions`. */
  upstream: { baseUrl: string; requests: number };
  /** Parameters the chat server reported as unsupported (`ignored_parameters_unsupported`). */
  ignoredParameters: Set<string>;
  /** The caller's credentials, when there are usable ones. */
  credentials?: Credentials;
  /** Why the request's Authorization header was refused, when it was (plugins/credentials.ts refuses the operation). */
  credentialsProblem?: string;
  /**
   * When this operation's upstream calls must all have ended (`performance.now()` time), shared by
   * every call; set as a query or mutation starts (plugins/deadline.ts), never for a subscription.
   */
  deadline: { expiresAt: number | undefined };
  /** The gateway's event hub, for subscriptions (added by `useEventHub` in yoga.ts). */
  events?: EventHub;
}

export type ParsedAuthorization = { credentials: Credentials } | { problem: string };

/**
 * Parses an `Authorization` header value of the form `Basic base64(email:apiKey)`.
 * The problem text names what is wrong without echoing the value.
 */
export function parseAuthorization(value: string): ParsedAuthorization {
  const match = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(value);
  if (!match) return { problem: 'The Authorization header must be "Basic " followed by base64(email:apiKey).' };
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const email = decoded.slice(0, colon);
  const apiKey = decoded.slice(colon + 1);
  if (colon <= 0 || apiKey === '' || /[\u0000-\u001f]/.test(decoded)) {
    return { problem: 'The Authorization header must carry base64 of "email:apiKey".' };
  }
  return { credentials: { email, apiKey } };
}

/**
 * Builds the context of one HTTP request: a fetch `Request` from yoga, or the request-like object
 * of http.ts's fast path (only the headers are read).
 */
export function createContext({ request, upstream, observation }: { request: { headers: Pick<Headers, 'get'> }; upstream: UpstreamServer; observation?: object }): Context {
  return contextFromAuthorization(upstream, request.headers.get('authorization'), observation);
}

/**
 * Builds a context from an Authorization value wherever it came from: the HTTP header, or the
 * graphql-ws `connection_init` payload (see `authorizationFromConnectionParams`). `null` (none
 * sent) selects the default credentials; anything else must parse.
 */
export function contextFromAuthorization(upstream: UpstreamServer, authorization: string | null, observation?: object): Context {
  if (authorization === null) return contextFromCredentials(upstream, upstream.config.defaultCredentials, undefined, observation);
  const parsed = parseAuthorization(authorization);
  return 'credentials' in parsed
    ? contextFromCredentials(upstream, parsed.credentials, undefined, observation)
    : contextFromCredentials(upstream, undefined, parsed.problem, observation);
}

/**
 * The Authorization value of a graphql-ws `connection_init` payload: clients send
 * `{ authorization: 'Basic …' }` (`Authorization` is accepted too). Null when there is none.
 */
export function authorizationFromConnectionParams(params: unknown): string | null {
  if (params === null || typeof params !== 'object') return null;
  const { authorization, Authorization } = params as Record<string, unknown>;
  const value = authorization ?? Authorization;
  // A non-string value is unusable, not absent: it must not select the default credentials.
  return value === undefined || value === null ? null : typeof value === 'string' ? value : '';
}

/**
 * Builds a context from credentials obtained any other way, e.g. from a graphql-ws
 * `connection_init` payload, so both transports behave the same.
 */
export function contextFromCredentials(
  upstream: UpstreamServer,
  credentials: Credentials | undefined,
  credentialsProblem?: string,
  observation?: object,
): Context {
  const counters = { baseUrl: upstream.config.baseUrl, requests: 0 };
  const ignoredParameters = new Set<string>();
  const deadline: Context['deadline'] = { expiresAt: undefined };
  // Counted per attempt, so attempts that never got a response (timeouts) count too.
  const anonymousConnection = upstream.connection.derive({
    credentials: undefined,
    onRequest: () => void counters.requests++,
    sharedDeadline: () => deadline.expiresAt,
    onResponse: (info: ResponseInfo) => {
      for (const name of info.ignoredParametersUnsupported ?? []) ignoredParameters.add(name);
    },
    onCall: upstream.observe && ((route, method) => upstream.observe!(observation ?? context, route, method)),
  });
  const connection = credentials ? anonymousConnection.withCredentials(credentials) : anonymousConnection;
  const context: Context = {
    server: upstream,
    connection,
    anonymousConnection,
    loaders: createLoaders(connection, upstream),
    upstream: counters,
    ignoredParameters,
    deadline,
  };
  if (credentials) context.credentials = credentials;
  if (credentialsProblem !== undefined) context.credentialsProblem = credentialsProblem;
  return context;
}

/** The caller's credentials, or an `UNAUTHENTICATED` error for fields that need some. */
export function requireCredentials(ctx: Context): Credentials {
  if (ctx.credentials) return ctx.credentials;
  throw new GraphQLError(
    ctx.credentialsProblem ??
      'This field needs credentials: send "Authorization: Basic base64(email:apiKey)" with a Zulip API key.',
    { extensions: { code: GatewayErrorCode.unauthenticated } },
  );
}
