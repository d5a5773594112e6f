/**
 * The emulator: a Zulip-compatible server in memory. `createEmulator()` returns a fetch handler (the
 * seam tests use) that can also be served on a loopback port. It never imports gateway code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { DEFAULT_SETTINGS, type EmulatorSettings, type RouteContext } from './context.js';
import { ApiError, invalidApiKey, unauthorized, userDeactivated } from './errors.js';
import { Faults, type Fault } from './faults.js';
import { Params, parseIntParam, Router } from './http.js';
import { QueueManager } from './queues.js';
import { resourceModules } from './routes/index.js';
import { seedDemo, seedEmpty } from './seed.js';
import type { Store, User } from './store.js';

export interface EmulatorOptions {
  /** 'demo' (default): the demo organization; 'empty': only the realm and one owner; or a custom seeder. */
  seed?: 'demo' | 'empty' | (() => Store);
  /** @default the system clock */
  clock?: Clock;
  settings?: Partial<EmulatorSettings>;
}

export interface RequestRecord {
  method: string;
  path: string;
  email?: string;
  /** The `x-request-id` and W3C `traceparent` headers, when sent (tests follow a request upstream). */
  requestId?: string;
  traceparent?: string;
}

export interface Emulator {
  fetch(request: Request): Promise<Response>;
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
  store: Store;
  queues: QueueManager;
  faults: Faults;
  clock: Clock;
  settings: EmulatorSettings;
  /** Every request received, in order (tests count upstream round-trips with it). */
  requests: RequestRecord[];
}

/** Thrown by a fault to make the transport drop the connection. */
class ConnectionReset extends Error {}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const clock = options.clock ?? systemClock();
  const settings: EmulatorSettings = { ...DEFAULT_SETTINGS, ...options.settings };
  const store = buildStore(options.seed, clock);
  applyRealmOverrides(store, settings);
  const queues = new QueueManager(store, clock, settings);
  const faults = new Faults();
  const requests: RequestRecord[] = [];
  const router = new Router<RouteContext>();
  for (const module of resourceModules) for (const route of module.routes) router.add(route);
  const servers = new Set<{ close(): Promise<void> }>();
  const inFlight = new Set<Request>();
  /** Per user id: when each of their calls in the last window was made, oldest first (settings.rateLimit). */
  const callLogs = new Map<number, number[]>();

  /**
   * Counts one call of `user` and returns its rate-limit headers, or a 429 once over the limit, as
   * Zulip's default (Redis) rate limiter does (zerver/lib/rate_limiter.py, middleware.py): a sliding
   * log, where each call counts for `windowSeconds` after it was made; a refused call is not
   * counted. X-RateLimit-Remaining is what the log leaves, X-RateLimit-Reset (Unix seconds,
   * truncated) when the newest call leaves the window; a 429 says Remaining 0, Reset and Retry-After
   * (seconds, a float) when the oldest call in the window leaves it.
   */
  function rateLimited(user: User): { headers: Record<string, string>; refused?: Response } {
    const rule = settings.rateLimit;
    if (!rule) return { headers: {} };
    const now = clock.now() / 1000;
    let log = callLogs.get(user.user_id);
    if (!log) callLogs.set(user.user_id, (log = []));
    while (log.length > 0 && log[0]! + rule.windowSeconds < now) log.shift();
    if (log.length >= rule.limit) {
      const free = log[log.length - rule.limit]! + rule.windowSeconds - now;
      const headers = {
        'x-ratelimit-limit': String(rule.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.trunc(now + free)),
      };
      const body = { result: 'error', msg: `API usage exceeded rate limit`, code: 'RATE_LIMIT_HIT', 'retry-after': free };
      return { headers, refused: json(body, 429, { ...headers, 'retry-after': String(free) }) };
    }
    log.push(now);
    const headers = {
      'x-ratelimit-limit': String(rule.limit),
      'x-ratelimit-remaining': String(rule.limit - log.length),
      'x-ratelimit-reset': String(Math.trunc(now + rule.windowSeconds)),
    };
    return { headers };
  }

  async function handle(request: Request, signal: AbortSignal): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/api\/v1(?=\/)/, '');
    const record: RequestRecord = { method: request.method, path };
    const requestId = request.headers.get('x-request-id');
    const traceparent = request.headers.get('traceparent');
    if (requestId !== null) record.requestId = requestId;
    if (traceparent !== null) record.traceparent = traceparent;
    requests.push(record);
    const fault = faults.take(request.method, path);
    if (fault) {
      const faulted = await applyFault(fault, signal);
      if (faulted) return faulted;
    }
    try {
      const matched = router.match(request.method, path, !url.pathname.startsWith('/api/v1/'), settings.featureLevel);
      if ('error' in matched) throw matched.error;
      const user = matched.route.auth === false ? undefined : authenticate(store, request);
      if (user) record.email = user.delivery_email;
      const limited = user ? rateLimited(user) : { headers: {} };
      if (limited.refused) return limited.refused;
      const params = await Params.fromRequest(request, url);
      const ctx = makeContext({ params, path: matched.pathParams, user, request, signal, url });
      const body = (await matched.route.handler(ctx)) ?? {};
      if (body instanceof Response) return body;
      return success(body as Record<string, unknown>, params.unread(), limited.headers);
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e);
      console.error('emulator: unexpected error', e);
      return json({ result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' }, 500);
    }
  }

  function makeContext(c: {
    params: Params;
    path: Record<string, string>;
    user: User | undefined;
    request: Request;
    signal: AbortSignal;
    url: URL;
  }): RouteContext {
    return {
      params: c.params,
      path: c.path,
      user: c.user as User,
      store,
      events: queues,
      clock,
      settings,
      baseUrl: c.url.origin,
      request: c.request,
      signal: c.signal,
      pathInt: (name) => parseIntParam(name, c.path[name] ?? ''),
      nowSeconds: () => Math.floor(clock.now() / 1000),
    };
  }

  async function applyFault(fault: Fault, signal: AbortSignal): Promise<Response | null> {
    if (fault.latencyMs) await sleep(fault.latencyMs, signal);
    if (fault.hang) {
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return new Response(null, { status: 499 });
    }
    if (fault.reset) throw new ConnectionReset('connection reset by emulator fault');
    if (fault.status) return new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: fault.status, headers: { 'content-type': 'text/html' } });
    if (fault.malformed) return new Response('{"result": "succ', { status: 200, headers: { 'content-type': 'application/json' } });
    if (fault.rateLimit) {
      const retryAfter = fault.rateLimit.retryAfter;
      return json({ result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': retryAfter }, 429, {
        'retry-after': String(retryAfter),
      });
    }
    return null;
  }

  const emulator: Emulator = {
    store,
    queues,
    faults,
    clock,
    settings,
    requests,
    async fetch(request: Request) {
      // Held until answered: a Request's signal follows its init's signal only through a weak
      // reference (undici), so a hung request nothing else refers to could be collected and never
      // see its caller's abort.
      inFlight.add(request);
      try {
        const response = await handle(request, request.signal);
        // Like a real fetch, a request whose caller gave up rejects instead of answering.
        if (request.signal.aborted) throw request.signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
        return response;
      } catch (e) {
        if (e instanceof ConnectionReset) {
          throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
        }
        throw e;
      } finally {
        inFlight.delete(request);
      }
    },
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      const server = serve(handle, port, host);
      await new Promise<void>((resolve) => server.http.listen(port, host, resolve));
      const { port: actual } = server.http.address() as AddressInfo;
      const handle_ = { url: `http://${host}:${actual}`, close: () => server.close() };
      servers.add(handle_);
      return handle_;
    },
    async close() {
      queues.closeAll();
      await Promise.all([...servers].map((s) => s.close()));
      servers.clear();
    },
  };
  return emulator;
}

function buildStore(seed: EmulatorOptions['seed'], clock: Clock): Store {
  if (typeof seed === 'function') return seed();
  return seed === 'empty' ? seedEmpty(clock.now()) : seedDemo(clock.now());
}

function applyRealmOverrides(store: Store, settings: EmulatorSettings): void {
  const realm = store.realm.settings;
  if (settings.messageContentEditLimitSeconds !== undefined) realm.message_content_edit_limit_seconds = settings.messageContentEditLimitSeconds;
  if (settings.moveMessagesWithinStreamLimitSeconds !== undefined) realm.move_messages_within_stream_limit_seconds = settings.moveMessagesWithinStreamLimitSeconds;
  if (settings.moveMessagesBetweenStreamsLimitSeconds !== undefined) realm.move_messages_between_streams_limit_seconds = settings.moveMessagesBetweenStreamsLimitSeconds;
  if (settings.realmName !== undefined) store.realm.name = settings.realmName;
}

/** HTTP basic authentication with email and API key. https://zulip.com/api/http-headers */
function authenticate(store: Store, request: Request): User {
  const header = request.headers.get('authorization');
  if (!header || !header.toLowerCase().startsWith('basic ')) throw unauthorized();
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  if (sep < 0) throw invalidApiKey();
  const user = store.userByEmail(decoded.slice(0, sep));
  if (!user || user.api_key !== decoded.slice(sep + 1)) throw invalidApiKey();
  if (!user.is_active) throw userDeactivated();
  return user;
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function success(body: Record<string, unknown>, ignored: string[], headers: Record<string, string> = {}): Response {
  const extra = ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
  return json({ result: 'success', msg: '', ...body, ...extra }, 200, headers);
}

function errorResponse(e: ApiError): Response {
  const headers: Record<string, string> = e.status === 401 ? { 'www-authenticate': 'Basic realm="zulip"' } : {};
  return json(e.toBody(), e.status, headers);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** Serves a fetch-style handler over node:http, with a way to drop connections for fault injection. */
function serve(handle: (request: Request, signal: AbortSignal) => Promise<Response>, _port: number, _host: string) {
  const sockets = new Set<Socket>();
  const http = createServer((req, res) => void respond(req, res));
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const response = await handle(request, abort.signal);
      if (res.destroyed) return;
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (e) {
      if (e instanceof ConnectionReset) req.socket.destroy();
      else if (!res.headersSent) (res.writeHead(500), res.end());
    }
  }

  return {
    http,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        http.close(() => resolve());
      }),
  };
}
