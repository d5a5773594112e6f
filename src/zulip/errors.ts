/**
 * The closed set of failures a Zulip REST call can end in.
 *
 * `ZulipConnection.request` is the only place that sees raw fetch/undici errors
 * and HTTP responses; it turns every failure into exactly one of these classes,
 * so that callers switch on `kind` (and on `code` for API errors) and never
 * parse messages. See https://zulip.com/api/rest-error-handling.
 *
 * Messages never contain the URL, request headers, credentials or the raw
 * upstream body: they may end up in logs and in GraphQL responses.
 */
import { ZulipErrorCode } from './error-codes.js';

export type ZulipErrorKind = 'network' | 'api' | 'server' | 'malformed';

/** The common base: which route failed, and how (`kind`). */
export abstract class ZulipError extends Error {
  abstract readonly kind: ZulipErrorKind;
  /** The route name passed to `request`, e.g. 'get-messages'. */
  readonly routeName: string;

  constructor(routeName: string, message: string) {
    super(message);
    this.routeName = routeName;
  }
}

export type NetworkErrorReason = 'timeout' | 'connect' | 'reset' | 'aborted' | 'other';

/** No usable HTTP response: connection refused or reset, timeout, or the caller aborted. */
export class NetworkError extends ZulipError {
  readonly kind = 'network' as const;
  override readonly name = 'NetworkError';
  readonly reason: NetworkErrorReason;
  /**
   * The system or undici error code behind the failure (e.g. 'ECONNREFUSED',
   * 'UND_ERR_SOCKET'), kept instead of the original error because its message
   * names the upstream address.
   */
  readonly causeCode?: string;

  constructor(routeName: string, reason: NetworkErrorReason, causeCode?: string) {
    super(routeName, `Network error (${reason}) calling ${routeName}`);
    this.reason = reason;
    if (causeCode !== undefined) this.causeCode = causeCode;
  }
}

export interface ZulipApiErrorInit {
  /** Zulip's error `code`; a missing code counts as 'BAD_REQUEST'. */
  code?: string;
  httpStatus: number;
  /** The server's human-readable (translated) `msg`. */
  msg?: string;
  /** Fields of the error body other than result, msg and code. */
  data?: Record<string, unknown>;
  /** Seconds to wait before retrying (rate limits only). */
  retryAfter?: number;
}

/** A JSON error envelope `{result: "error", msg, code, ...data}` (a 4xx, usually). */
export class ZulipApiError extends ZulipError {
  readonly kind = 'api' as const;
  override readonly name = 'ZulipApiError';
  readonly code: string;
  readonly httpStatus: number;
  readonly data: Record<string, unknown>;
  readonly retryAfter?: number;

  constructor(routeName: string, init: ZulipApiErrorInit) {
    const code = init.code ?? ZulipErrorCode.badRequest;
    super(routeName, init.msg ? init.msg : `${routeName} failed with ${code}`);
    this.code = code;
    this.httpStatus = init.httpStatus;
    this.data = init.data ?? {};
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

/** Any 5xx, whatever its body (proxies answer with HTML pages). */
export class ServerError extends ZulipError {
  readonly kind = 'server' as const;
  override readonly name = 'ServerError';
  readonly httpStatus: number;

  constructor(routeName: string, httpStatus: number) {
    super(routeName, `Server error (HTTP ${httpStatus}) calling ${routeName}`);
    this.httpStatus = httpStatus;
  }
}

/** A non-5xx response whose body is not a Zulip JSON envelope. */
export class MalformedResponseError extends ZulipError {
  readonly kind = 'malformed' as const;
  override readonly name = 'MalformedResponseError';
  readonly httpStatus: number;

  constructor(routeName: string, httpStatus: number) {
    super(routeName, `Malformed response (HTTP ${httpStatus}) calling ${routeName}`);
    this.httpStatus = httpStatus;
  }
}

const AUTH_CODES: ReadonlySet<string> = new Set<ZulipErrorCode>([
  ZulipErrorCode.unauthorized,
  ZulipErrorCode.invalidApiKey,
  ZulipErrorCode.userDeactivated,
  ZulipErrorCode.realmDeactivated,
]);

/**
 * True when the credential itself is unusable (https://zulip.com/api/rest-error-handling: fatal for
 * the credential, never retried).
 */
export function isAuthError(error: unknown): error is ZulipApiError {
  return error instanceof ZulipApiError && (error.httpStatus === 401 || AUTH_CODES.has(error.code));
}
