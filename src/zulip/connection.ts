/**
 * ZulipConnection: one Zulip server plus (optionally) one credential.
 *
 * `request` is the single place that talks HTTP and turns every failure into the closed
 * `ZulipError` set (errors.ts). It sends parameters exactly as the route declared them (see
 * params.ts): route bindings in `routes/*` name the endpoint and say, per parameter, whether Zulip
 * reads it as JSON or as plain text. Helpers live in `connection/`: the call deadline, the HTTP
 * transport, response classification, retries and credential redaction.
 * See https://zulip.com/api/http-headers and https://zulip.com/api/rest-error-handling.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Deadline } from './connection/deadline.js';
import { networkError, readOutcome } from './connection/outcome.js';
import type { Backoff } from './backoff.js';
import { DEFAULT_RETRY, retryBackoff, retryDelayMs, type RetryOptions } from './connection/retry.js';
import { createTransport, type FetchLike, type Method, type Transport, type UpstreamResponse } from './connection/transport.js';
import { basicAuthorization, type Credentials } from './credentials.js';
import { NetworkError, ZulipApiError, ZulipError } from './errors.js';
import type { StreamedBody } from './multipart.js';
import { encodeParams, type WireParams } from './params.js';

export type { FetchLike, Method } from './connection/transport.js';
export type { RetryOptions } from './connection/retry.js';
export type { Credentials } from './credentials.js';


/** The rate limit an answer advertised (https://zulip.com/api/http-headers). */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** When the window resets, in Unix seconds. */
  reset: number;
}

/** What `onResponse` observes for each HTTP response received (retries included). */
export interface ResponseInfo {
  routeName: string;
  method: Method;
  /** The path as passed to `request`, relative to /api/v1, without query. */
  path: string;
  status: number;
  durationMs: number;
  /** From a success body, when the server reported unsupported parameters. */
  ignoredParametersUnsupported?: string[];
  /** The X-RateLimit-* headers, when the answer had all three. */
  rateLimit?: RateLimitInfo;
  /** Whose budget it is: the caller's `credentialKey` (absent for an anonymous call). */
  credentialKey?: string;
  /** A 429's `Retry-After`, in seconds, when it said. */
  retryAfter?: number;
}

/** What `onCall` reports once per call, after its last attempt (retries included). */
export interface CallInfo {
  /** HTTP status of the last response; undefined when none came (network error, timeout). */
  status?: number;
  /** The whole call, retry waits included. */
  durationMs: number;
  /** Attempts after the first. */
  retries: number;
  /** The call ended because its deadline passed. */
  timedOut: boolean;
}

/** A call as an observer sees it: headers to add (request id, traceparent), and its end. */
export interface ObservedCall {
  headers?: Record<string, string>;
  end(info: CallInfo): void;
}

/** The default deadline of one call, all its attempts and retry waits included. */
export const DEFAULT_DEADLINE_MS = 10_000;

export interface ConnectionOptions {
  /** Server origin, e.g. http://127.0.0.1:9991; '/api/v1/' is appended. */
  baseUrl: string;
  /** HTTP Basic credentials; omitted ⇒ no Authorization header. */
  credentials?: Credentials;
  /** The transport seam. @default undici's request API over a keep-alive Agent owned by this connection family */
  fetch?: FetchLike;
  /**
   * The deadline of one call: every attempt and every wait between retries fits inside it, so a
   * hung server holds a caller this long, not attempts × this long.
   * @default 10_000
   */
  deadlineMs?: number;
  /** Retry policy, applied to GET only, within the deadline. @default { maxRetries: 2, minDelayMs: 100, maxDelayMs: 2000 } */
  retry?: RetryOptions;
  /** Observation hook, called once per HTTP attempt before it is sent (retries included). @default none */
  onRequest?: () => void;
  /** Observation hook, called once per HTTP response received. @default none */
  onResponse?: (info: ResponseInfo) => void;
  /**
   * Observation hook, called once per call before its first attempt: the headers it returns are
   * sent with every attempt (never replacing the connection's own), and `end` is called once,
   * after the last attempt. How the gateway reports metrics, trace spans and request ids. @default none
   */
  onCall?: (routeName: string, method: Method) => ObservedCall | undefined;
  /**
   * A deadline shared by every call of this connection (the gateway's: one per GraphQL operation),
   * as a `performance.now()` time, or undefined for none: a call ends at the earlier of it and its
   * own deadline, and one made after it fails at once with NetworkError 'timeout'. @default none
   */
  sharedDeadline?: () => number | undefined;
  /** @default 'chatgraph/0.1' */
  userAgent?: string;
}

export interface SendOptions {
  /** Aborting it ends the call with NetworkError reason 'aborted'. */
  signal?: AbortSignal;
  /** Overrides the connection's deadline for this call, retries included (long-polls pass a larger one). */
  deadlineMs?: number;
  /** `false` disables retries for this call (the event poller owns its own). */
  retry?: false;
}

export type SendResult<T> = T & { ignored_parameters_unsupported?: string[] };

/** What a connection family (a connection and its `withCredentials`/`derive` copies) shares. */
interface Family {
  transport: Transport;
  /** The server origin without trailing slashes. */
  baseUrl: string;
  /** `${baseUrl}/api/v1/` */
  apiBase: string;
  /**
   * The key of each credentials object the family's connections were given, computed once: a
   * gateway gives every request a connection of its own, often with the same credentials object.
   */
  keys: WeakMap<Credentials, string>;
}

/** A request built once per call; retries resend it unchanged (a streamed body is never retried). */
interface PreparedRequest {
  url: string;
  headers: Record<string, string>;
  body: string | AsyncIterable<Uint8Array> | undefined;
}

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
   *   and rest destructuring: a gateway derives connections on every request, and V8 takes its
   *   slow path on those.)
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
   * Identifies the credentials on this server without revealing them (an HMAC under a per-process secret;
   * `anonymous` without credentials), for keying per-credential state. Computed on first use: only
   * the event hub and graphql-ws need it, not every request.
   */
  get credentialKey(): string {
    if (this.#credentialKey !== undefined) return this.#credentialKey;
    const credentials = this.#credentials;
    let key = credentials && this.family.keys.get(credentials);
    if (key === undefined) {
      key = credentialKeyOf(credentials, this.family.baseUrl);
      if (credentials) this.family.keys.set(credentials, key);
    }
    return (this.#credentialKey = key);
  }

  /** A connection to the same server, with the same transport and options, as someone else. */
  withCredentials(credentials?: Credentials): ZulipConnection {
    return new ZulipConnection(this.options, this.family, credentials);
  }

  /**
   * The same server, transport and options with other hooks (and credentials, when given): how a
   * gateway gives each request its own counters over one shared keep-alive pool.
   */
  derive(overrides: Pick<ConnectionOptions, 'credentials' | 'onRequest' | 'onResponse' | 'onCall' | 'sharedDeadline'>): ZulipConnection {
    const credentials = 'credentials' in overrides ? overrides.credentials : this.#credentials;
    const options = { ...this.options }; // every key present (withoutCredentials): a cheap copy
    if ('onRequest' in overrides) options.onRequest = overrides.onRequest;
    if ('onResponse' in overrides) options.onResponse = overrides.onResponse;
    if ('onCall' in overrides) options.onCall = overrides.onCall;
    if ('sharedDeadline' in overrides) options.sharedDeadline = overrides.sharedDeadline;
    return new ZulipConnection(options, this.family, credentials);
  }

  /** Destroys the undici Agent this family owns (aborting requests in flight), if any. */
  async close(): Promise<void> {
    const agent = this.family.transport.agent;
    if (agent && !agent.destroyed) await agent.destroy();
  }

  /**
   * Calls `path` (relative to /api/v1, path parameters already percent-encoded) with the
   * parameters as the route declared them (`raw(...)`/`json(...)`, see params.ts), and returns the
   * success body or throws a `ZulipError`. The whole call has one deadline (`deadlineMs`); a GET is
   * retried within it on network errors, 5xx and 429 (see RetryOptions); other methods never are.
   */
  async request<T>(
    routeName: string,
    method: Method,
    path: string,
    params?: WireParams,
    options: SendOptions = {},
  ): Promise<SendResult<T>> {
    return this.send<T>(routeName, method, path, this.buildRequest(method, path, params), options);
  }

  /**
   * Sends a streamed body (an upload: see multipart.ts) to `path`, once: its stream is read as the
   * connection takes it, so it is never retried. Otherwise like {@link request}: one deadline,
   * every failure classified. A stream that throws ends the call with a NetworkError.
   */
  async upload<T>(routeName: string, method: Method, path: string, streamed: StreamedBody, options: SendOptions = {}): Promise<SendResult<T>> {
    const prepared = this.buildRequest(method, path, undefined);
    prepared.headers['content-type'] = streamed.contentType;
    prepared.body = streamed.body;
    return this.send<T>(routeName, method, path, prepared, { ...options, retry: false });
  }

  private async send<T>(
    routeName: string,
    method: Method,
    path: string,
    prepared: PreparedRequest,
    options: SendOptions,
  ): Promise<SendResult<T>> {
    const policy = method === 'GET' && options.retry !== false ? this.retryPolicy() : undefined;
    const deadline = new Deadline(this.callDeadlineMs(routeName, options), options.signal);
    const observed = this.options.onCall?.(routeName, method);
    if (observed?.headers) for (const [name, value] of Object.entries(observed.headers)) prepared.headers[name] ??= value;
    const progress: { status?: number; failure?: unknown } = {};
    const started = observed ? performance.now() : 0;
    let attempt = 0;
    let backoff: Backoff | undefined; // made at the first failure: most calls never need one
    try {
      for (; ; attempt++) {
        try {
          return (await this.attempt(routeName, method, path, prepared, deadline, progress)) as SendResult<T>;
        } catch (error) {
          progress.failure = error;
          const delay = policy && attempt < policy.maxRetries ? retryDelayMs(error, (backoff ??= retryBackoff(policy)), policy) : undefined;
          // No retry once the deadline leaves no room for the wait: the caller gets the real failure.
          if (delay === undefined || delay >= deadline.remainingMs) throw error;
          if (!(await deadline.pause(delay))) throw deadline.callerAborted ? new NetworkError(routeName, 'aborted') : error;
          progress.failure = undefined;
        }
      }
    } finally {
      deadline.dispose();
      if (observed) {
        const failure = progress.failure;
        observed.end({
          ...(progress.status !== undefined && { status: progress.status }),
          durationMs: performance.now() - started,
          retries: attempt,
          timedOut: failure instanceof NetworkError && failure.reason === 'timeout',
        });
      }
    }
  }

  private retryPolicy(): RetryOptions {
    return this.options.retry ?? DEFAULT_RETRY;
  }

  /** The call's own deadline, cut to what the shared one leaves; throws once the shared one passed. */
  private callDeadlineMs(routeName: string, options: SendOptions): number {
    const own = this.deadlineMs(options);
    const shared = this.options.sharedDeadline?.();
    if (shared === undefined) return own;
    const left = shared - performance.now();
    if (left <= 0) throw new NetworkError(routeName, 'timeout');
    return Math.min(own, left);
  }

  private deadlineMs(options: SendOptions): number {
    return options.deadlineMs ?? this.options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /** One HTTP round-trip, classified. */
  private async attempt(
    routeName: string,
    method: Method,
    path: string,
    { url, headers, body }: PreparedRequest,
    deadline: Deadline,
    progress: { status?: number },
  ): Promise<Record<string, unknown>> {
    const started = performance.now();
    this.options.onRequest?.();
    let response: UpstreamResponse;
    try {
      response = await this.family.transport.call(url, { method, headers, body, deadline });
    } catch (error) {
      progress.status = undefined;
      throw networkError(routeName, error, deadline);
    }
    progress.status = response.status;
    const outcome = await readOutcome(routeName, response, deadline, this.#credentials);
    this.report(routeName, method, path, response, started, outcome);
    if (outcome instanceof ZulipError) throw outcome;
    return outcome;
  }

  private buildRequest(method: Method, path: string, params: WireParams | undefined): PreparedRequest {
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
    return (this.#authorization ??= basicAuthorization(credentials));
  }

  private report(
    routeName: string,
    method: Method,
    path: string,
    response: UpstreamResponse,
    started: number,
    outcome: Record<string, unknown> | ZulipError,
  ): void {
    const onResponse = this.options.onResponse;
    if (!onResponse) return;
    const info: ResponseInfo = {
      routeName,
      method,
      path: path.replace(/^\/+/, ''),
      status: response.status,
      durationMs: performance.now() - started,
    };
    const rateLimit = rateLimitOf(response.headers);
    if (rateLimit) info.rateLimit = rateLimit;
    if (this.#credentials) info.credentialKey = this.credentialKey;
    if (outcome instanceof ZulipApiError && outcome.retryAfter !== undefined) info.retryAfter = outcome.retryAfter;
    const ignored = outcome instanceof ZulipError ? undefined : outcome.ignored_parameters_unsupported;
    if (Array.isArray(ignored)) info.ignoredParametersUnsupported = ignored.map(String);
    onResponse(info);
  }
}

function rateLimitOf(headers: UpstreamResponse['headers']): RateLimitInfo | undefined {
  const limit = Number(headers.get('x-ratelimit-limit') ?? NaN);
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? NaN);
  const reset = Number(headers.get('x-ratelimit-reset') ?? NaN);
  return Number.isFinite(limit) && Number.isFinite(remaining) && Number.isFinite(reset) ? { limit, remaining, reset } : undefined;
}

// The server is part of the key: one email and key on two servers (a gateway may serve several,
// gateway/upstream/servers.ts) are two accounts, with two queues, directories and budgets.
function credentialKeyOf(credentials: Credentials | undefined, baseUrl: string): string {
  if (!credentials) return 'anonymous';
  return createHmac('sha256', CREDENTIAL_KEY_SECRET)
    .update(`${credentials.email.length}:${credentials.email}:${credentials.apiKey}:${baseUrl}`)
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
    deadlineMs: o.deadlineMs,
    retry: o.retry,
    onRequest: o.onRequest,
    onResponse: o.onResponse,
    onCall: o.onCall,
    sharedDeadline: o.sharedDeadline,
    userAgent: o.userAgent,
  };
  return options;
}

function createFamily(options: ConnectionOptions): Family {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return { transport: createTransport(options.fetch), baseUrl, apiBase: `${baseUrl}/api/v1/`, keys: new WeakMap() };
}

