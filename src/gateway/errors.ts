/**
 * The single place where failures become GraphQL errors. Resolvers let `ZulipError`s propagate;
 * yoga's `maskedErrors.maskError` (see yoga.ts) calls `toGraphQLError` on every error of a
 * result, so a client sees either a deliberate GraphQLError, a mapped upstream failure with a
 * stable `extensions.code`, or "Unexpected error." and nothing else.
 *
 * Extensions of a mapped upstream failure: `code`, `httpStatus` (the chat server's HTTP status),
 * `route` (the REST operation, e.g. `getMessages`), `retryAfter` (seconds, rate limits only) and
 * the extra fields of the Zulip error body (e.g. `stream_id`). The status is deliberately not under
 * `extensions.http`: yoga strips that key from responses and turns it into the HTTP status of the
 * whole GraphQL response, which would hide partial data behind an upstream 4xx.
 *
 * Nothing here reads the upstream URL, headers or credentials, so none can leak.
 */
import { GraphQLError } from 'graphql';
import {
  MalformedResponseError,
  NetworkError,
  ServerError,
  ZulipApiError,
  ZulipError,
  isAuthError,
} from '../zulip/errors.js';
import { RedisUnavailableError } from './cluster/errors.js';

/**
 * Every `extensions.code` the gateway itself produces, in one place (Zulip's own codes, such as
 * STREAM_DOES_NOT_EXIST, pass through unchanged besides these). Clients may rely on
 * them: renaming one is a breaking change.
 */
export const GatewayErrorCode = {
  /** No usable credentials, or the chat server refused them (its own code in `upstreamCode`). */
  unauthenticated: 'UNAUTHENTICATED',
  /** The chat server's rate limit, passed through with `retryAfter` (seconds) when it sent one. */
  rateLimitHit: 'RATE_LIMIT_HIT',
  /** The chat server did not answer within the upstream timeout. */
  upstreamTimeout: 'UPSTREAM_TIMEOUT',
  /**
   * Cluster mode: Redis, which shares event logs between instances, is unreachable (a subscription
   * cannot start); retry later. Events after an outage come with a ResyncEvent of this reason.
   */
  redisUnavailable: 'REDIS_UNAVAILABLE',
  /** The chat server could not be reached or failed with a 5xx. */
  upstreamUnavailable: 'UPSTREAM_UNAVAILABLE',
  /**
   * The chat server answered with something that is not a valid response for the route (an HTML
   * page: usually ZULIP_URL is not the chat server's origin; `hint` says so).
   */
  upstreamBadResponse: 'UPSTREAM_BAD_RESPONSE',
  /** The field needs a newer chat server (`requiredFeatureLevel`, `featureLevel`). */
  unsupportedByServer: 'UNSUPPORTED_BY_SERVER',
  /** A bug: the message is masked ("Unexpected error."). */
  internal: 'INTERNAL_SERVER_ERROR',
  /** An argument the gateway refuses before any upstream call (`argument` names it when known). */
  badUserInput: 'BAD_USER_INPUT',
  /** A record that does not exist or that the caller cannot see. */
  notFound: 'NOT_FOUND',
  /**
   * A mutation of a session that holds several accounts, without `accountId`: which account acts
   * is never guessed (docs/accounts.md).
   */
  accountRequired: 'ACCOUNT_REQUIRED',
  /** An `accountId` (or an `Account` global id) that is not an account of the caller's session. */
  accountNotFound: 'ACCOUNT_NOT_FOUND',
  /**
   * A global id (`node`, `nodes`, a federation representation) that is malformed, or names a type
   * without identity, refused before any upstream call.
   */
  invalidGlobalId: 'INVALID_GLOBAL_ID',
  /** An operation graphql-js finds invalid for the schema: yoga's validation code. */
  validationFailed: 'GRAPHQL_VALIDATION_FAILED',
  /**
   * No operation to run in the document: an `operationName` it does not define, or several
   * operations and no name (yoga's code, HTTP 400).
   */
  operationResolutionFailure: 'OPERATION_RESOLUTION_FAILURE',
  /** An operation of more tokens than the gateway parses (`limit`). */
  maxTokensExceeded: 'MAX_TOKENS_EXCEEDED',
  /** An operation nested deeper than the gateway's limit (`limit`). */
  maxDepthExceeded: 'MAX_DEPTH_EXCEEDED',
  /** An operation with more aliases than the gateway's limit (`limit`). */
  maxAliasesExceeded: 'MAX_ALIASES_EXCEEDED',
  /** An operation with more directives than the gateway's limit (`limit`). */
  maxDirectivesExceeded: 'MAX_DIRECTIVES_EXCEEDED',
  /**
   * An operation refused before any upstream call: its estimated upstream calls (`estimate`) exceed
   * the per-operation cap (`cap`), or what its credential's rate limit has left (`remaining`, less
   * `headroom` and the gateway's own `reserved` calls) until `resetAt` (Unix s).
   */
  upstreamBudgetExceeded: 'UPSTREAM_BUDGET_EXCEEDED',
  /** An operation whose estimated cost is over the gateway's budget (`limit`). */
  maxCostExceeded: 'MAX_COST_EXCEEDED',
  /** A request body over the size limit (HTTP 413). */
  requestEntityTooLarge: 'REQUEST_ENTITY_TOO_LARGE',
  /**
   * A request GraphQL over HTTP refuses (HTTP 400): malformed JSON or HTTP, no query, a parameter
   * of the wrong type, a mutation over GET (405). The same string as Zulip's generic code.
   */
  badRequest: 'BAD_REQUEST',
  /** An HTTP method other than GET and POST on the GraphQL path (HTTP 405, with `Allow`). */
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  /** A POST body of a content type the gateway does not read, e.g. application/xml (HTTP 415). */
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  /** No answer in a media type the request's Accept header allows (HTTP 406). */
  notAcceptable: 'NOT_ACCEPTABLE',
  /** A path the gateway does not serve (HTTP 404). */
  routeNotFound: 'ROUTE_NOT_FOUND',
  /** A request whose headers, or whole request, did not arrive within the server's timeout (HTTP 408). */
  requestTimeout: 'REQUEST_TIMEOUT',
  /** Request headers over node's size limit (HTTP 431). */
  requestHeadersTooLarge: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  /** The instance already holds its most connections (HTTP 503, `Retry-After`): retry shortly, or elsewhere. */
  tooManyConnections: 'TOO_MANY_CONNECTIONS',
  /** A request a browser could have sent cross-site without a preflight (HTTP 403). */
  csrfRefused: 'CSRF_REFUSED',
  /** A subscription that fell too far behind and was closed; resubscribe from the last cursor. */
  slowConsumer: 'SLOW_CONSUMER',
  /** A subscription refused: its credential already has the most this instance serves (`limit`). */
  tooManySubscriptions: 'TOO_MANY_SUBSCRIPTIONS',
  /** A subscription closed by the gateway (shutdown); resubscribe from the last cursor. */
  subscriptionClosed: 'SUBSCRIPTION_CLOSED',
  /** Persisted operations, APQ: unknown hash (send the query with it); trusted: not in the manifest. */
  persistedQueryNotFound: 'PERSISTED_QUERY_NOT_FOUND',
  /** Persisted operations, APQ: the query sent does not hash to the hash sent. */
  persistedQueryHashMismatch: 'PERSISTED_QUERY_HASH_MISMATCH',
  /** Persisted operations: a malformed persistedQuery extension (version, hash format). */
  persistedQueryInvalid: 'PERSISTED_QUERY_INVALID',
  /** Persisted operations, trusted mode: a query text instead of a document id. */
  persistedQueryOnly: 'PERSISTED_QUERY_ONLY',
  /** Persisted operations, trusted mode: neither a query nor a document id. */
  persistedQueryIdRequired: 'PERSISTED_QUERY_ID_REQUIRED',
  // Uploads.
  /**
   * A file over the chat server's upload limit (`maxBytes`): refused before any byte went upstream
   * when the request's declared length is over it, or ended as soon as the streamed bytes passed it.
   */
  uploadTooLarge: 'UPLOAD_TOO_LARGE',
  /**
   * An upload whose file stopped arriving: no byte of it for the upload idle timeout (`idleMs`),
   * counted from when the operation waited for the file, not from the operation's start.
   */
  uploadIdleTimeout: 'UPLOAD_IDLE_TIMEOUT',
  // Sessions (docs/sessions.md).
  /**
   * A session cookie or bearer token the gateway does not hold: forged, from another deployment,
   * expired (idle or absolute) or signed out. Sign in again.
   */
  sessionInvalid: 'SESSION_INVALID',
  /** signOut, addAccount or removeAccount without a session cookie or bearer token. */
  sessionRequired: 'SESSION_REQUIRED',
  /**
   * The session's account was removed because the chat server refused its credential (a 401, a
   * regenerated key, a deactivated user): `accountId`, `server`. Sign that account in again.
   */
  accountRevoked: 'ACCOUNT_REVOKED',
  /** An `accountId` this session does not hold (another session's, or removed). */
  accountNotInSession: 'ACCOUNT_NOT_IN_SESSION',
  /**
   * signIn or addAccount to a chat server not on the gateway's allow-list (`ZULIP_SERVERS`), refused
   * before any connection (`argument: server`).
   */
  serverNotAllowed: 'SERVER_NOT_ALLOWED',
  /** signIn or addAccount with credentials the chat server refused (`upstreamCode`); nothing was stored. */
  signInFailed: 'SIGN_IN_FAILED',
  /**
   * A bearer token asked for by a browser (the request had a cookie or an `Origin`), or a sign-in
   * that could set no cookie (graphql-ws) without asking for one.
   */
  bearerRefused: 'BEARER_REFUSED',
  /**
   * A browser request (a WebSocket or SSE upgrade, or one authenticated by the session cookie) from
   * an `Origin` that is neither this gateway's own nor in CORS_ORIGINS (HTTP 403).
   */
  originRefused: 'ORIGIN_REFUSED',
  /** A subscription whose session was signed out, or whose account was removed from it, ends with this. */
  sessionEnded: 'SESSION_ENDED',
} as const;

export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

/**
 * The JSON body of a refusal made outside GraphQL execution (by node's HTTP server or the
 * transport): a GraphQL response's `errors`, so a client reads every refusal the same way.
 */
export function refusalBody(message: string, code: GatewayErrorCode): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}

/**
 * An argument refused before any upstream call, with code BAD_USER_INPUT. `extensions` adds
 * details a client can act on, e.g. `{ argument: 'first', maxPageSize: 1000 }`.
 */
export function badInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: GatewayErrorCode.badUserInput, ...extensions } });
}

/** A record that does not exist or that the caller cannot see, with code NOT_FOUND. */
export function notFoundError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: GatewayErrorCode.notFound } });
}

/** Whether a loader result is the NOT_FOUND error of a record the caller cannot see. */
export function isNotFound(value: unknown): value is GraphQLError {
  return value instanceof GraphQLError && value.extensions.code === GatewayErrorCode.notFound;
}

/** UNSUPPORTED_BY_SERVER: `what` needs feature level `level`, the server has `current`. */
export function unsupportedByServer(what: string, level: number, current: number): GraphQLError {
  return new GraphQLError(
    `${what} needs a chat server with feature level ${level} or newer; this one has feature level ${current}.`,
    { extensions: { code: GatewayErrorCode.unsupportedByServer, requiredFeatureLevel: level, featureLevel: current } },
  );
}

export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

/** What an answer that is not Zulip's usually means (UPSTREAM_BAD_RESPONSE `hint`, readiness, the log). */
export const UPSTREAM_BAD_RESPONSE_HINT = "is ZULIP_URL the chat server's origin?";

/** Keys of a Zulip error body that are already represented (or must not be copied). */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['result', 'msg', 'code', 'retry-after', 'retry_after']);

type Extensions = Record<string, unknown>;

/**
 * Maps anything thrown while serving a request to the GraphQLError the client sees.
 * GraphQLErrors raised on purpose (validation, UNAUTHENTICATED, UNSUPPORTED_BY_SERVER...) pass
 * through; a GraphQLError wrapping a `ZulipError` (how graphql-js reports a resolver throw) keeps
 * its path and locations; everything else is masked.
 */
export function toGraphQLError(e: unknown): GraphQLError {
  if (e instanceof GraphQLError) {
    const cause = e.originalError;
    if (cause == null) return coded(e);
    if (cause instanceof GraphQLError) return cause.originalError == null ? coded(e) : withPosition(toGraphQLError(cause), e);
    return withPosition(mapThrown(cause), e);
  }
  return mapThrown(e);
}

/**
 * A GraphQLError raised without a code gets one, so that every error a client sees has one.
 * graphql-js raises such errors itself: a variable its type refuses ("Variable "$id" got invalid
 * value…") or an operation name the document lacks, both before any field runs, so without a path:
 * the request's fault, BAD_USER_INPUT. One with a path came from a resolver that forgot its code:
 * the gateway's fault, INTERNAL_SERVER_ERROR (its message kept: it was raised on purpose).
 */
function coded(e: GraphQLError): GraphQLError {
  if (e.extensions.code !== undefined) return e;
  const code = e.path === undefined ? GatewayErrorCode.badUserInput : GatewayErrorCode.internal;
  return new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: { ...e.extensions, code },
  });
}

function mapThrown(e: unknown): GraphQLError {
  if (e instanceof ZulipError) return new GraphQLError(...describeZulipError(e));
  if (e instanceof RedisUnavailableError) {
    return new GraphQLError('Redis (cluster mode) is unreachable; retry shortly.', { extensions: { code: GatewayErrorCode.redisUnavailable } });
  }
  return new GraphQLError(UNEXPECTED_ERROR_MESSAGE, {
    extensions: { code: GatewayErrorCode.internal, unexpected: true },
  });
}

/** Copies where the error happened (path, locations) onto a freshly mapped error. */
function withPosition(mapped: GraphQLError, located: GraphQLError): GraphQLError {
  return new GraphQLError(mapped.message, {
    nodes: located.nodes,
    source: located.source,
    positions: located.positions,
    path: located.path,
    extensions: mapped.extensions,
  });
}

function describeZulipError(e: ZulipError): [string, { extensions: Extensions }] {
  const route = e.routeName;
  if (e instanceof ZulipApiError) return describeApiError(e);
  if (e instanceof NetworkError) {
    return e.reason === 'timeout'
      ? [`The chat server did not answer in time (${route}).`, ext(GatewayErrorCode.upstreamTimeout, route)]
      : [`The chat server could not be reached (${route}).`, ext(GatewayErrorCode.upstreamUnavailable, route)];
  }
  if (e instanceof ServerError) {
    return [
      `The chat server failed with HTTP ${e.httpStatus} (${route}).`,
      ext(GatewayErrorCode.upstreamUnavailable, route, { httpStatus: e.httpStatus }),
    ];
  }
  if (e instanceof MalformedResponseError) {
    return [
      `The chat server sent a response that is not valid for ${route}.`,
      ext(GatewayErrorCode.upstreamBadResponse, route, { httpStatus: e.httpStatus, hint: UPSTREAM_BAD_RESPONSE_HINT }),
    ];
  }
  return [`The chat server request failed (${route}).`, ext(GatewayErrorCode.upstreamUnavailable, route)];
}

function describeApiError(e: ZulipApiError): [string, { extensions: Extensions }] {
  const extra: Extensions = { ...dataFields(e.data), httpStatus: e.httpStatus };
  let code = e.code;
  if (e.httpStatus === 429 || e.code === GatewayErrorCode.rateLimitHit) {
    code = GatewayErrorCode.rateLimitHit;
    if (e.retryAfter !== undefined) extra.retryAfter = e.retryAfter;
  } else if (isAuthError(e)) {
    // One code for "who are you?" whatever the server's wording (UNAUTHORIZED, INVALID_API_KEY,
    // USER_DEACTIVATED...); the server's own code stays available for clients that care.
    code = GatewayErrorCode.unauthenticated;
    extra.upstreamCode = e.code;
  }
  return [e.message, ext(code, e.routeName, extra)];
}

function dataFields(data: unknown): Extensions {
  if (data == null || typeof data !== 'object' || Array.isArray(data)) return {};
  return Object.fromEntries(Object.entries(data).filter(([key]) => !ENVELOPE_KEYS.has(key)));
}

function ext(code: string, route: string, extra: Extensions = {}): { extensions: Extensions } {
  return { extensions: { ...extra, code, route } };
}
