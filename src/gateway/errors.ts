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

/** Stable `extensions.code` values the gateway itself produces (besides Zulip's own codes). */
export const GatewayErrorCode = {
  unauthenticated: 'UNAUTHENTICATED',
  upstreamTimeout: 'UPSTREAM_TIMEOUT',
  upstreamUnavailable: 'UPSTREAM_UNAVAILABLE',
  upstreamBadResponse: 'UPSTREAM_BAD_RESPONSE',
  rateLimitHit: 'RATE_LIMIT_HIT',
  unsupportedByServer: 'UNSUPPORTED_BY_SERVER',
  internal: 'INTERNAL_SERVER_ERROR',
} as const;

export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

/** Keys of a Zulip error body that are already represented (or must not be copied). */
const ENVELOPE_KEYS = new Set(['result', 'msg', 'code', 'retry-after', 'retry_after']);

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
    if (cause == null) return e;
    if (cause instanceof GraphQLError) return cause.originalError == null ? e : withPosition(toGraphQLError(cause), e);
    return withPosition(mapThrown(cause), e);
  }
  return mapThrown(e);
}

function mapThrown(e: unknown): GraphQLError {
  if (e instanceof ZulipError) return new GraphQLError(...describeZulipError(e));
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
      ext(GatewayErrorCode.upstreamBadResponse, route, { httpStatus: e.httpStatus }),
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
