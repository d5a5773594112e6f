/**
 * A canned-response `fetch` for client unit tests (the analogue of zulip-flutter's
 * FakeApiConnection): answers the queued responses in order and records every
 * request, so tests assert on what was sent and how many round-trips happened.
 */
import type { FetchLike } from '../../src/zulip/connection.js';

/** One scripted answer. */
export type ScriptedResponse =
  | {
      status?: number; // @default 200
      /** JSON body (serialised), or... */
      json?: unknown;
      /** ...a raw text body (HTML pages, empty bodies, broken JSON). */
      text?: string;
      headers?: Record<string, string>;
    }
  /** `fetch` rejects with this error (e.g. `resetError()`). */
  | { error: unknown }
  /** `fetch` never settles until the request's signal aborts, then rejects with its reason. */
  | { hang: true };

export interface RecordedRequest {
  method: string;
  url: URL;
  /** Path relative to /api/v1 (e.g. 'messages/42'), or the whole pathname if elsewhere. */
  path: string;
  /** Decoded query string. */
  query: Record<string, string>;
  /** Decoded application/x-www-form-urlencoded body ({} without a body). */
  form: Record<string, string>;
  /** Request headers, lower-cased names. */
  headers: Record<string, string>;
  /** Decoded Basic credentials, if an Authorization header was sent. */
  basicAuth?: { email: string; apiKey: string };
}

export interface ScriptedFetch extends FetchLike {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Responses still queued. */
  readonly remaining: number;
  /** Queue more responses. */
  push(...responses: ScriptedResponse[]): void;
}

export function scriptedFetch(responses: ScriptedResponse[] = []): ScriptedFetch {
  const queue = [...responses];
  const requests: RecordedRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const recorded = await record(request);
    requests.push(recorded);
    const next = queue.shift();
    if (next === undefined) {
      throw new Error(`scriptedFetch: no response queued for ${recorded.method} ${recorded.path}`);
    }
    return answer(next, request.signal);
  };
  // defineProperties, not Object.assign, which would freeze the getter's current value.
  return Object.defineProperties(fetch, {
    requests: { value: requests },
    remaining: { get: () => queue.length },
    push: { value: (...more: ScriptedResponse[]) => void queue.push(...more) },
  }) as unknown as ScriptedFetch;
}

async function answer(scripted: ScriptedResponse, signal: AbortSignal): Promise<Response> {
  if ('error' in scripted) throw scripted.error;
  if ('hang' in scripted) return hangUntilAborted(signal);
  const headers = new Headers(scripted.headers);
  let body = scripted.text;
  if (scripted.json !== undefined) {
    body = JSON.stringify(scripted.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const status = scripted.status ?? 200;
  // Null-body statuses (204, 304) cannot carry a body at all.
  return new Response(status === 204 || status === 304 ? null : (body ?? ''), { status, headers });
}

function hangUntilAborted(signal: AbortSignal): Promise<Response> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

async function record(request: Request): Promise<RecordedRequest> {
  const url = new URL(request.url);
  const headers = Object.fromEntries(request.headers);
  const body = request.body ? await request.text() : '';
  const recorded: RecordedRequest = {
    method: request.method,
    url,
    path: apiPath(url.pathname),
    query: Object.fromEntries(url.searchParams),
    form: Object.fromEntries(new URLSearchParams(body)),
    headers,
  };
  const auth = decodeBasic(headers.authorization);
  if (auth) recorded.basicAuth = auth;
  return recorded;
}

function apiPath(pathname: string): string {
  const at = pathname.indexOf('/api/v1/');
  return at === -1 ? pathname : pathname.slice(at + '/api/v1/'.length);
}

function decodeBasic(header: string | undefined): { email: string; apiKey: string } | undefined {
  const match = /^Basic (.+)$/.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/** What undici's fetch throws when the peer resets the connection. */
export function resetError(): TypeError {
  return networkFailure('ECONNRESET', 'read ECONNRESET');
}

/** What undici's fetch throws when nothing listens on the port. */
export function refusedError(): TypeError {
  return networkFailure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9');
}

function networkFailure(code: string, message: string): TypeError {
  const cause = Object.assign(new Error(message), { code });
  return new TypeError('fetch failed', { cause });
}

/** A Zulip success body. */
export function success(fields: Record<string, unknown> = {}): ScriptedResponse {
  return { json: { result: 'success', msg: '', ...fields } };
}

/** A Zulip error body. */
export function apiError(
  code: string,
  msg: string,
  status = 400,
  extra: Record<string, unknown> = {},
): ScriptedResponse {
  return { status, json: { result: 'error', msg, code, ...extra } };
}
