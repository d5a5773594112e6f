/**
 * Prometheus metrics of one gateway instance: its own prom-client Registry (never the global
 * default one, so two gateways in a process, as in tests, do not mix their counts). Other parts
 * report through the small methods below; they never touch prom-client.
 *
 * prom-client is used directly rather than @graphql-yoga/plugin-prometheus: that plugin labels
 * with raw operation names (client-chosen free text, unbounded cardinality) and cannot cover the
 * upstream, subscription and directory series, which would then live in a second naming scheme.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OperationNames, codeLabel, routeLabel, statusLabel } from './labels.js';

/** What the REST connection reports for each upstream call (after its retries). */
export interface UpstreamCall {
  /** The route name, e.g. `get-messages`. */
  route: string;
  /** HTTP status of the last attempt; undefined when none answered. */
  status?: number;
  durationMs: number;
  /** Retries after the first attempt. */
  retries?: number;
  timedOut?: boolean;
}

export type SubscriptionTransport = 'ws' | 'sse';

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC). @default true */
  processMetrics?: boolean;
  /** Distinct operation names labelled before the rest count as `other`. @default 100 */
  maxOperationNames?: number;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #names: OperationNames;

  readonly #operations: Counter<'operation_name' | 'operation_type'>;
  readonly #operationDuration: Histogram<'operation_name' | 'operation_type'>;
  readonly #errors: Counter<'code'>;
  readonly #upstreamRequests: Counter<'route' | 'status'>;
  readonly #upstreamDuration: Histogram<'route'>;
  readonly #upstreamRetries: Counter<'route'>;
  readonly #upstreamTimeouts: Counter<'route'>;
  readonly #connections: Gauge<'transport'>;
  readonly #subscriptions: Gauge;
  readonly #eventQueues: Gauge;
  readonly #eventsDelivered: Counter;
  readonly #slowConsumers: Counter;
  readonly #directorySessions: Gauge;
  readonly #directoryBytes: Gauge;
  readonly #directoryLookups: Counter<'result'>;
  readonly #directoryLoads: Counter;
  readonly #directoryEvictions: Counter<'reason'>;
  readonly #directoryLoadFailures: Counter<'reason'>;
  readonly #cacheWindows: Gauge;
  readonly #cacheBytes: Gauge;
  readonly #cacheLookups: Counter<'result'>;
  readonly #cacheUnusable: Counter<'reason'>;
  readonly #cacheDrops: Counter<'reason'>;
  readonly #redisUp: Gauge;
  /** Run before each scrape: parts that keep their own counts (hub, directories, sockets) report them here. */
  readonly #collectors: (() => void)[] = [];

  constructor(options: MetricsOptions = {}) {
    this.#names = new OperationNames(options.maxOperationNames ?? 100);
    const registers = [this.registry];
    this.#operations = new Counter({ name: 'chatgraph_operations_total', help: 'GraphQL operations started, by name and type.', labelNames: ['operation_name', 'operation_type'], registers });
    this.#operationDuration = new Histogram({ name: 'chatgraph_operation_duration_seconds', help: 'Execution time of queries and mutations.', labelNames: ['operation_name', 'operation_type'], buckets: DURATION_BUCKETS, registers });
    this.#errors = new Counter({ name: 'chatgraph_errors_total', help: 'Errors returned to clients, by extensions.code.', labelNames: ['code'], registers });
    this.#upstreamRequests = new Counter({ name: 'chatgraph_upstream_requests_total', help: 'Calls to the chat server, by route and HTTP status (none: no response).', labelNames: ['route', 'status'], registers });
    this.#upstreamDuration = new Histogram({ name: 'chatgraph_upstream_request_duration_seconds', help: 'Duration of calls to the chat server, retries included.', labelNames: ['route'], buckets: DURATION_BUCKETS, registers });
    this.#upstreamRetries = new Counter({ name: 'chatgraph_upstream_retries_total', help: 'Retries of calls to the chat server.', labelNames: ['route'], registers });
    this.#upstreamTimeouts = new Counter({ name: 'chatgraph_upstream_timeouts_total', help: 'Calls to the chat server that timed out.', labelNames: ['route'], registers });
    this.#connections = new Gauge({ name: 'chatgraph_open_connections', help: 'Open subscription connections, by transport (ws, sse).', labelNames: ['transport'], registers });
    this.#subscriptions = new Gauge({ name: 'chatgraph_active_subscriptions', help: 'Active GraphQL subscriptions.', registers });
    this.#eventQueues = new Gauge({ name: 'chatgraph_upstream_event_queues', help: 'Event queues registered on the chat server.', registers });
    this.#eventsDelivered = new Counter({ name: 'chatgraph_events_delivered_total', help: 'Events delivered to subscribers.', registers });
    this.#slowConsumers = new Counter({ name: 'chatgraph_slow_consumers_total', help: 'Subscriptions closed because they fell too far behind.', registers });
    this.#directorySessions = new Gauge({ name: 'chatgraph_live_directory_sessions', help: 'Credentials with a live directory.', registers });
    this.#directoryBytes = new Gauge({ name: 'chatgraph_live_directory_bytes', help: 'Estimated memory of all live directories.', registers });
    this.#directoryLookups = new Counter({ name: 'chatgraph_live_directory_lookups_total', help: 'Directory lookups, by result (hit, miss).', labelNames: ['result'], registers });
    this.#directoryLoads = new Counter({ name: 'chatgraph_live_directory_loads_total', help: 'Directory (re)loads from the chat server.', registers });
    this.#directoryEvictions = new Counter({ name: 'chatgraph_live_directory_evictions_total', help: 'Directories dropped, by reason (idle, memory).', labelNames: ['reason'], registers });
    this.#directoryLoadFailures = new Counter({ name: 'chatgraph_live_directory_load_failures_total', help: 'Directories that could not load or stopped following their log, by reason (missing_keys, invalid, log_lost): their lookups go upstream.', labelNames: ['reason'], registers });
    this.#cacheWindows = new Gauge({ name: 'chatgraph_live_cache_windows', help: 'Message windows held by the message cache.', registers });
    this.#cacheBytes = new Gauge({ name: 'chatgraph_live_cache_bytes', help: 'Estimated memory of all cached message windows.', registers });
    this.#cacheLookups = new Counter({ name: 'chatgraph_live_cache_lookups_total', help: 'Message pages asked of the message cache, by result (hit, miss).', labelNames: ['result'], registers });
    this.#cacheUnusable = new Counter({ name: 'chatgraph_live_cache_unusable_total', help: 'Message pages the message cache could not serve, by reason (narrow, options, anchor, unsubscribed, uncacheable): they went upstream.', labelNames: ['reason'], registers });
    this.#cacheDrops = new Counter({ name: 'chatgraph_live_cache_drops_total', help: 'Message windows dropped, by reason (update, flags, user, channel, subscription, realm, event, queue, memory, idle).', labelNames: ['reason'], registers });
    this.#redisUp = new Gauge({ name: 'chatgraph_redis_up', help: '1 when the Redis connection (cluster mode) is ready, else 0.', registers });
    for (const transport of ['ws', 'sse'] as const) this.#connections.set({ transport }, 0);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** An operation started (subscriptions included). Returns a function ending its timing. */
  operationStarted(name: string | null | undefined, type: string): () => void {
    const labels = { operation_name: this.#names.label(name), operation_type: type };
    this.#operations.inc(labels);
    if (type === 'subscription') return () => {};
    const end = this.#operationDuration.startTimer(labels);
    return () => void end();
  }

  /** Errors sent to a client (their `extensions.code`). */
  errors(codes: Iterable<unknown>): void {
    for (const code of codes) this.#errors.inc({ code: codeLabel(code) });
  }

  /** The hook the REST connection calls once per upstream call. */
  upstreamCall(call: UpstreamCall): void {
    const route = routeLabel(call.route);
    this.#upstreamRequests.inc({ route, status: statusLabel(call.status) });
    this.#upstreamDuration.observe({ route }, call.durationMs / 1000);
    if (call.retries) this.#upstreamRetries.inc({ route }, call.retries);
    if (call.timedOut) this.#upstreamTimeouts.inc({ route });
  }

  /** Transports: a WebSocket or SSE connection opened (+1) or closed (-1). */
  connection(transport: SubscriptionTransport, delta: 1 | -1): void {
    this.#connections.inc({ transport }, delta);
  }

  /** Hub: a subscription started (+1) or ended (-1). */
  subscription(delta: 1 | -1): void {
    this.#subscriptions.inc(delta);
  }

  /** Hub: number of upstream event queues now registered. */
  eventQueues(count: number): void {
    this.#eventQueues.set(count);
  }

  eventsDelivered(count = 1): void {
    this.#eventsDelivered.inc(count);
  }

  slowConsumer(): void {
    this.#slowConsumers.inc();
  }

  /** Live directory: current size. */
  directorySize(sessions: number, bytes: number): void {
    this.#directorySessions.set(sessions);
    this.#directoryBytes.set(bytes);
  }

  directoryLookup(hit: boolean): void {
    this.#directoryLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  directoryLoad(count = 1): void {
    this.#directoryLoads.inc(count);
  }

  /** Live directory: lookups since the last report. */
  directoryLookups(hits: number, misses: number): void {
    if (hits) this.#directoryLookups.inc({ result: 'hit' }, hits);
    if (misses) this.#directoryLookups.inc({ result: 'miss' }, misses);
  }

  /** Live directory: evictions since the last report. */
  directoryEvictions(idle: number, memory: number): void {
    if (idle) this.#directoryEvictions.inc({ reason: 'idle' }, idle);
    if (memory) this.#directoryEvictions.inc({ reason: 'memory' }, memory);
  }

  directoryEviction(reason: 'idle' | 'memory'): void {
    this.#directoryEvictions.inc({ reason });
  }

  /** Live directory: one failure to load (directory/load-failures.ts reasons). */
  directoryLoadFailure(reason: 'missing_keys' | 'invalid' | 'log_lost'): void {
    this.#directoryLoadFailures.inc({ reason });
  }

  /** Message cache: current size. */
  cacheSize(windows: number, bytes: number): void {
    this.#cacheWindows.set(windows);
    this.#cacheBytes.set(bytes);
  }

  /** Message cache: lookups since the last report. */
  cacheLookups(hits: number, misses: number): void {
    if (hits) this.#cacheLookups.inc({ result: 'hit' }, hits);
    if (misses) this.#cacheLookups.inc({ result: 'miss' }, misses);
  }

  /** Message cache: a page it could not serve (directory/messages/cache.ts reasons). */
  cacheUnusable(reason: string): void {
    this.#cacheUnusable.inc({ reason });
  }

  /** Message cache: windows dropped (directory/messages/events.ts reasons). */
  cacheDrops(reason: string, count: number): void {
    this.#cacheDrops.inc({ reason }, count);
  }

  /** Cluster mode: whether Redis is usable. */
  redisUp(up: boolean): void {
    this.#redisUp.set(up ? 1 : 0);
  }

  /** Transports: the number of open connections of a transport, sampled at scrape time. */
  connections(transport: SubscriptionTransport, count: number): void {
    this.#connections.set({ transport }, count);
  }

  /** Adds a function run before each scrape; returns its removal. */
  addCollector(collect: () => void): () => void {
    this.#collectors.push(collect);
    return () => {
      const at = this.#collectors.indexOf(collect);
      if (at >= 0) this.#collectors.splice(at, 1);
    };
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    for (const collect of this.#collectors) collect();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
