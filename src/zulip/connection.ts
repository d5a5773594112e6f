/**
 * ZulipConnection: one Zulip server plus (optionally) one credential.
 *
 * `send` is the single place that encodes parameters, talks HTTP and turns
 * every failure into the closed `ZulipError` set (errors.ts). Route bindings in
 * `routes/*` only name the endpoint and shape the options.
 * See https://zulip.com/api/http-headers and https://zulip.com/api/rest-error-handling.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Agent, request as undiciRequest } from 'undici';
import { defaultSleep } from './backoff.js';
import {
  MalformedResponseError,
  NetworkError,
  ServerError,
  ZulipApiError,
  ZulipError,
  type NetworkErrorReason,
} from './errors.js';

export interface Credentials {
  /** The account's (API) email address, the Basic-auth username. */
  email: string;
  /** The API key, the Basic-auth password. */
  apiKey: string;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The I/O seam: called as `fetch(url, init)` with a string URL. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What `onResponse` observes for each HTTP response received (retries included). */
export interface ResponseInfo {
  routeName: string;
  method: Method;
  /** The path as passed to `send`, relative to /api/v1, without query. */
  path: string;
  status: number;
  durationMs: number;
  /** From a success body, when the server reported unsupported parameters. */
  ignoredParametersUnsupported?: string[];
}

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Floor of every retry delay, and the first backoff bound. */
  minDelayMs: number;
  /** Cap of the backoff bound; a 429 asking for longer is not waited for. */
  maxDelayMs: number;
}

export interface ConnectionOptions {
  /** Server origin, e.g. http://127.0.0.1:9991; '/api/v1/' is appended. */
  baseUrl: string;
  /** HTTP Basic credentials; omitted ⇒ no Authorization header. */
  credentials?: Credentials;
  /** The transport seam. @default undici fetch over a keep-alive Agent owned by this connection family */
  fetch?: FetchLike;
  /** Per-attempt timeout in milliseconds. @default 10_000 */
  timeoutMs?: number;
  /** Retry policy, applied to GET only. @default { maxRetries: 2, minDelayMs: 100, maxDelayMs: 2000 } */
  retry?: RetryOptions;
  /** Observation hook, called once per HTTP attempt before it is sent (retries included). @default none */
  onRequest?: () => void;
  /** Observation hook, called once per HTTP response received. @default none */
  onResponse?: (info: ResponseInfo) => void;
  /** @default 'chatgraph/0.1' */
  userAgent?: string;
}

export interface SendOptions {
  /** Aborting it ends the call with NetworkError reason 'aborted'. */
  signal?: AbortSignal;
  /** Overrides the connection's per-attempt timeout (long-polls pass a larger one). */
  timeoutMs?: number;
  /** `false` disables retries for this call (the event poller owns its own). */
  retry?: false;
}

export type SendResult<T> = T & { ignored_parameters_unsupported?: string[] };

/** The part of a response `send` reads; a fetch `Response` is one. */
interface UpstreamResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

interface RequestInitLite {
  method: Method;
  headers: Record<string, string>;
  body: string | undefined;
  /** Ends the attempt: its timeout or the caller's signal. */
  deadline: Deadline;
}

/** How a connection family talks HTTP. */
interface Transport {
  call(url: string, init: RequestInitLite): Promise<UpstreamResponse>;
  /** Present only when we created it, so `close` never destroys a caller's dispatcher. */
  agent?: Agent;
}

/** What a connection family (a connection and its `withCredentials`/`derive` copies) shares. */
interface Family {
  transport: Transport;
  /** The server origin without trailing slashes. */
  baseUrl: string;
  /** `${baseUrl}/api/v1/` */
  apiBase: string;
}

const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, minDelayMs: 100, maxDelayMs: 2000 };

// Keys per-credential state without keeping anything that could be reversed to the
// API key; the secret lives only as long as the process.
const CREDENTIAL_KEY_SECRET = randomBytes(32);

export class ZulipConnection {
  readonly baseUrl: string;
  /** Everything but the credentials, which stay in a private field. */
  private readonly options: Omit<ConnectionOptions, 'credentials'>;
  private readonly family: Family;
  // Private, so logging or serialising a connection does not print the key.
  readonly #credentials: Credentials | undefined;
  #credentialKey: string | undefined;
  #authorization: string | undefined;

  /**
   * @param family internal, from `withCredentials`/`derive`: what the family shares. `options`
   *   then carry no credentials; `familyCredentials` are the copy's. (Copies avoid `{ ...a, ...b }`
   *   and rest destructuring: a gateway derives connections on every request, and V8 spends
   *   microseconds on those.)
   */
  constructor(options: ConnectionOptions, family?: Family, familyCredentials?: Credentials) {
    if (family) {
      this.options = options;
      this.#credentials = familyCredentials;
      this.family = family;
    } else {
      this.options = withoutCredentials(options);
      this.#credentials = options.credentials;
      this.family = createFamily(options);
    }
    this.baseUrl = this.family.baseUrl;
  }

  /** HTTP Basic credentials; undefined ⇒ no Authorization header. */
  get credentials(): Credentials | undefined {
    return this.#credentials;
  }

  /**
   * Identifies the credentials without revealing them (an HMAC under a per-process secret;
   * `anonymous` without credentials), for keying per-credential state. Computed on first use: only
   * the event hub and graphql-ws need it, not every request.
   */
  get credentialKey(): string {
    return (this.#credentialKey ??= credentialKeyOf(this.#credentials));
  }

  /** A connection to the same server, with the same transport and options, as someone else. */
  withCredentials(credentials?: Credentials): ZulipConnection {
    return new ZulipConnection(this.options, this.family, credentials);
  }

  /**
   * The same server, transport and options with other hooks (and credentials, when given): how a
   * gateway gives each request its own counters over one shared keep-alive pool.
   */
  derive(overrides: Pick<ConnectionOptions, 'credentials' | 'onRequest' | 'onResponse'>): ZulipConnection {
    const credentials = 'credentials' in overrides ? overrides.credentials : this.#credentials;
    const options = { ...this.options }; // every key present (withoutCredentials): a cheap copy
    if ('onRequest' in overrides) options.onRequest = overrides.onRequest;
    if ('onResponse' in overrides) options.onResponse = overrides.onResponse;
    return new ZulipConnection(options, this.family, credentials);
  }

  /** Destroys the undici Agent this family owns (aborting requests in flight), if any. */
  async close(): Promise<void> {
    const agent = this.family.transport.agent;
    if (agent && !agent.destroyed) await agent.destroy();
  }

  /**
   * Calls `path` (relative to /api/v1, path parameters already percent-encoded)
   * and returns the success body, or throws a `ZulipError`. GET is retried on
   * network errors, 5xx and 429 (see RetryOptions); other methods never are.
   */
  async send<T>(
    routeName: string,
    method: Method,
    path: string,
    params?: Record<string, unknown>,
    options: SendOptions = {},
  ): Promise<SendResult<T>> {
    const policy = method === 'GET' && options.retry !== false ? this.retryPolicy() : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.attempt(routeName, method, path, params, options)) as SendResult<T>;
      } catch (error) {
        const delay = policy && attempt < policy.maxRetries ? retryDelayMs(error, attempt, policy) : undefined;
        if (delay === undefined) throw error;
        await pause(routeName, delay, options.signal);
      }
    }
  }

  private retryPolicy(): RetryOptions {
    return this.options.retry ?? DEFAULT_RETRY;
  }

  /** One HTTP round-trip, classified. */
  private async attempt(
    routeName: string,
    method: Method,
    path: string,
    params: Record<string, unknown> | undefined,
    options: SendOptions,
  ): Promise<Record<string, unknown>> {
    const { url, headers, body } = this.buildRequest(method, path, params);
    const deadline = new Deadline(options.timeoutMs ?? this.options.timeoutMs ?? 10_000, options.signal);
    const started = performance.now();
    this.options.onRequest?.();
    try {
      let response: UpstreamResponse;
      try {
        response = await this.family.transport.call(url, { method, headers, body, deadline });
      } catch (error) {
        throw networkError(routeName, error, deadline);
      }
      const outcome = await readOutcome(routeName, response, deadline, this.#credentials);
      this.report(routeName, method, path, response.status, started, outcome);
      if (outcome instanceof ZulipError) throw outcome;
      return outcome;
    } finally {
      deadline.dispose();
    }
  }

  private buildRequest(method: Method, path: string, params: Record<string, unknown> | undefined) {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'chatgraph/0.1',
    };
    const authorization = this.authorization();
    if (authorization !== undefined) headers.authorization = authorization;
    const encoded = encodeParams(params);
    let url = this.family.apiBase + path.replace(/^\/+/, '');
    let body: string | undefined;
    if (method === 'GET') {
      if (encoded.size > 0) url += `?${encoded}`;
    } else if (encoded.size > 0) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = encoded.toString();
    }
    return { url, headers, body };
  }

  /** The Authorization header value, built once per connection. */
  private authorization(): string | undefined {
    const credentials = this.#credentials;
    if (!credentials) return undefined;
    return (this.#authorization ??= `Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`, 'utf8').toString('base64')}`);
  }

  private report(
    routeName: string,
    method: Method,
    path: string,
    status: number,
    started: number,
    outcome: Record<string, unknown> | ZulipError,
  ): void {
    const onResponse = this.options.onResponse;
    if (!onResponse) return;
    const info: ResponseInfo = {
      routeName,
      method,
      path: path.replace(/^\/+/, ''),
      status,
      durationMs: performance.now() - started,
    };
    const ignored = outcome instanceof ZulipError ? undefined : outcome.ignored_parameters_unsupported;
    if (Array.isArray(ignored)) info.ignoredParametersUnsupported = ignored.map(String);
    onResponse(info);
  }
}

/**
 * Zulip's parameter encoding (api-spec.md, Conventions 1): `undefined` is
 * skipped, strings are sent raw, everything else (numbers, booleans, null,
 * arrays, objects) as JSON text — so `narrow` goes as one JSON parameter, never
 * as bracketed `narrow[0]` keys.
 */
export function encodeParams(params: Record<string, unknown> | undefined): URLSearchParams {
  const encoded = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    encoded.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return encoded;
}

function credentialKeyOf(credentials: Credentials | undefined): string {
  if (!credentials) return 'anonymous';
  return createHmac('sha256', CREDENTIAL_KEY_SECRET)
    .update(`${credentials.email.length}:${credentials.email}:${credentials.apiKey}`)
    .digest('hex');
}

/**
 * Every option but the credentials, each key present (the type makes the compiler check the list
 * is complete). Not `{ credentials, ...rest }`: V8 makes a rest object a dictionary, which every
 * per-request `derive` would then copy slowly.
 */
function withoutCredentials(o: ConnectionOptions): Omit<ConnectionOptions, 'credentials'> {
  const options: { [K in Exclude<keyof ConnectionOptions, 'credentials'>]-?: ConnectionOptions[K] } = {
    baseUrl: o.baseUrl,
    fetch: o.fetch,
    timeoutMs: o.timeoutMs,
    retry: o.retry,
    onRequest: o.onRequest,
    onResponse: o.onResponse,
    userAgent: o.userAgent,
  };
  return options;
}

function createFamily(options: ConnectionOptions): Family {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return { transport: createTransport(options.fetch), baseUrl, apiBase: `${baseUrl}/api/v1/` };
}

function createTransport(fetch: FetchLike | undefined): Transport {
  if (fetch) {
    return {
      call: (url, { method, headers, body, deadline }) => fetch(url, { method, headers, body, signal: deadline.signal }),
    };
  }
  // Headers/body timeouts are off: a long-poll parks for about a minute, and each
  // call's own deadline is the one timeout that applies.
  const agent = new Agent({ connect: { timeout: 5000 }, headersTimeout: 0, bodyTimeout: 0 });
  // undici's request API rather than its fetch: the same pool and errors without the WHATWG
  // stream machinery, which costs about a third of a millisecond of CPU per call.
  const call = async (url: string, init: RequestInitLite): Promise<UpstreamResponse> => {
    const { statusCode, headers, body } = await undiciRequest(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      // An EventEmitter, which undici accepts as a signal: an AbortSignal with undici's listener on
      // it (EventTarget) costs several microseconds of CPU per call, an emitter a tenth of one.
      signal: init.deadline.emitter,
      dispatcher: agent,
    });
    return {
      status: statusCode,
      headers: { get: (name) => headerValue(headers[name.toLowerCase()]) },
      text: () => body.text(),
    };
  };
  return { call, agent };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The signal undici's request API takes besides an AbortSignal: an EventEmitter with `aborted` and `reason`. */
class AbortEmitter extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * The per-attempt deadline, combined with the caller's signal; remembers which fired. It ends the
 * attempt through an AbortSignal (for a fetch) or an AbortEmitter (for undici), whichever the
 * transport asks for, created on demand.
 */
class Deadline {
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort = () => this.abort(this.caller?.reason);
  private controller: AbortController | undefined;
  private abortEmitter: AbortEmitter | undefined;
  private aborted = false;
  private reason: unknown = undefined;
  timedOut = false;

  constructor(
    timeoutMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new DOMException('The request timed out', 'TimeoutError'));
    }, timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.abortEmitter?.abort(reason);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get emitter(): AbortEmitter {
    if (!this.abortEmitter) {
      this.abortEmitter = new AbortEmitter();
      if (this.aborted) this.abortEmitter.abort(this.reason);
    }
    return this.abortEmitter;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted === true && !this.timedOut;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Reads the body and classifies the response: the success body or an error. */
async function readOutcome(
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
  // An empty or non-JSON 401 is still an authentication failure, never a success.
  if (status === 401) return new ZulipApiError(routeName, { code: 'UNAUTHORIZED', httpStatus: 401 });
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
  return new ZulipApiError(routeName, {
    code: typeof code === 'string' && code !== '' ? code : undefined,
    httpStatus: status,
    msg: typeof msg === 'string' ? redact(msg, credentials) : undefined,
    data,
    retryAfter: status === 429 ? retryAfterSeconds(body['retry-after'], headers.get('retry-after')) : undefined,
  });
}

/** The server's msg is shown to users; make sure it cannot carry our API key. */
function redact(msg: string, credentials: Credentials | undefined): string {
  const key = credentials?.apiKey;
  const clipped = msg.length > 500 ? `${msg.slice(0, 500)}…` : msg;
  return key ? clipped.split(key).join('[redacted]') : clipped;
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
function networkError(routeName: string, error: unknown, deadline: Deadline): NetworkError {
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

/** How long to wait before retrying a GET, or undefined when the error is not retried. */
function retryDelayMs(error: unknown, attempt: number, policy: RetryOptions): number | undefined {
  const transient =
    (error instanceof NetworkError && error.reason !== 'aborted') || error instanceof ServerError;
  const rateLimited = error instanceof ZulipApiError && error.httpStatus === 429;
  if (!transient && !rateLimited) return undefined;
  const backoff = jitteredDelayMs(attempt, policy);
  if (!rateLimited) return backoff;
  const requestedMs = (error.retryAfter ?? 0) * 1000;
  // Waiting longer than our cap would stall the caller; let it see retryAfter instead.
  return requestedMs > policy.maxDelayMs ? undefined : Math.max(backoff, requestedMs);
}

/** Uniform in [min, bound], the bound doubling from min per attempt up to max. */
function jitteredDelayMs(attempt: number, { minDelayMs, maxDelayMs }: RetryOptions): number {
  const bound = Math.min(minDelayMs * 2 ** attempt, maxDelayMs);
  return minDelayMs + Math.random() * Math.max(0, bound - minDelayMs);
}

async function pause(routeName: string, delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await defaultSleep(delayMs, signal);
  } catch {
    throw new NetworkError(routeName, 'aborted');
  }
}
