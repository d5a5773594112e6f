/**
 * Turns what came back (a response, or a thrown fetch/undici error) into the success body or one of
 * the closed set of `ZulipError`s. See https://zulip.com/api/rest-error-handling.
 */
import type { Credentials } from '../credentials.js';
import { ZulipErrorCode } from '../error-codes.js';
import {
  MalformedResponseError,
  NetworkError,
  ServerError,
  ZulipApiError,
  type NetworkErrorReason,
  type ZulipError,
} from '../errors.js';
import type { Deadline } from './deadline.js';
import { redactCredentials } from './redact.js';
import type { UpstreamResponse } from './transport.js';

/**
 * Codes for a 4xx whose body is not a Zulip error envelope (a proxy's page, an empty body): the
 * request was refused at the HTTP level, and the caller still gets a stable code to switch on.
 */
const HTTP_STATUS_CODES: Readonly<Record<number, ZulipErrorCode>> = {
  400: ZulipErrorCode.badRequest,
  401: ZulipErrorCode.unauthorized,
  403: ZulipErrorCode.forbidden,
  404: ZulipErrorCode.notFound,
  405: ZulipErrorCode.methodNotAllowed,
  408: ZulipErrorCode.requestTimeout,
  409: ZulipErrorCode.conflict,
  413: ZulipErrorCode.payloadTooLarge,
  415: ZulipErrorCode.unsupportedMediaType,
  422: ZulipErrorCode.unprocessableEntity,
  429: ZulipErrorCode.rateLimitHit,
};

/** Reads the body and classifies the response: the success body or an error. */
export async function readOutcome(
  routeName: string,
  response: UpstreamResponse,
  deadline: Deadline,
  credentials: Credentials | undefined,
): Promise<Record<string, unknown> | ZulipError> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return networkError(routeName, error, deadline);
  }
  const status = response.status;
  if (status >= 500) return new ServerError(routeName, status);
  const body = parseObject(text);
  if (body?.result === 'success' && status >= 200 && status < 300) return body;
  if (body?.result === 'error') return apiError(routeName, status, body, response.headers, credentials);
  // A 404 that is not JSON at all is no Zulip answer: Zulip answers every unknown API path with a
  // JSON envelope, so an HTML 404 means the origin is not the chat server's (misconfiguration),
  // never "no such record".
  if (status === 404 && body === undefined) return new MalformedResponseError(routeName, status);
  // A 4xx without an error envelope (HTML, empty, JSON of another shape) is still a refusal with a
  // status, never a success: an empty 401 is an authentication failure, a 415 a refused encoding.
  // Only a success envelope on a 4xx other than 401 contradicts itself (malformed).
  if (status === 401 || (status >= 400 && status < 500 && body?.result !== 'success')) {
    return new ZulipApiError(routeName, {
      code: HTTP_STATUS_CODES[status] ?? `HTTP_${status}`,
      httpStatus: status,
      retryAfter: status === 429 ? retryAfterSeconds(undefined, response.headers.get('retry-after')) : undefined,
    });
  }
  return new MalformedResponseError(routeName, status);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function apiError(
  routeName: string,
  status: number,
  body: Record<string, unknown>,
  headers: UpstreamResponse['headers'],
  credentials: Credentials | undefined,
): ZulipApiError {
  const { result: _result, msg, code, ...data } = body;
  for (const key in data) {
    const value = data[key];
    if (typeof value === 'string') data[key] = redactCredentials(value, credentials);
  }
  return new ZulipApiError(routeName, {
    code: typeof code === 'string' && code !== '' ? code : undefined,
    httpStatus: status,
    msg: typeof msg === 'string' ? redactCredentials(msg, credentials) : undefined,
    data,
    retryAfter: status === 429 ? retryAfterSeconds(body['retry-after'], headers.get('retry-after')) : undefined,
  });
}

/** Zulip sends a float number of seconds in the body and in the header; the header may also be an HTTP date. */
function retryAfterSeconds(fromBody: unknown, fromHeader: string | null): number | undefined {
  const bodySeconds = typeof fromBody === 'string' ? Number(fromBody) : fromBody;
  if (typeof bodySeconds === 'number' && Number.isFinite(bodySeconds) && bodySeconds >= 0) return bodySeconds;
  if (fromHeader === null || fromHeader.trim() === '') return undefined;
  const headerSeconds = Number(fromHeader);
  if (Number.isFinite(headerSeconds) && headerSeconds >= 0) return headerSeconds;
  const date = Date.parse(fromHeader);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Classifies a thrown fetch/undici/stream error; only the code survives, never the message. */
export function networkError(routeName: string, error: unknown, deadline: Deadline): NetworkError {
  const code = causeCode(error);
  return new NetworkError(routeName, networkReason(error, code, deadline), code);
}

function networkReason(error: unknown, code: string | undefined, deadline: Deadline): NetworkErrorReason {
  if (deadline.callerAborted) return 'aborted';
  if (deadline.timedOut) return 'timeout';
  if (code !== undefined) {
    if (CONNECT_CODES.has(code)) return 'connect';
    if (RESET_CODES.has(code)) return 'reset';
    if (TIMEOUT_CODES.has(code)) return 'timeout';
  }
  const name = error instanceof Error ? error.name : undefined;
  if (name === 'TimeoutError') return 'timeout';
  if (name === 'AbortError') return 'aborted';
  // undici fails a body read cut by the peer with TypeError('terminated').
  if (error instanceof TypeError && error.message === 'terminated') return 'reset';
  return 'other';
}

/** The first string `code` along the cause chain (and inside AggregateErrors). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    const candidate = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof candidate.code === 'string') return candidate.code;
    current =
      candidate.cause ?? (Array.isArray(candidate.errors) && candidate.errors.length > 0 ? candidate.errors[0] : undefined);
  }
  return undefined;
}
