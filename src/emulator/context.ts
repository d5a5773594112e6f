/**
 * What every route handler receives, and the settings tests can inject. Kept apart from app.ts so
 * route modules depend on types only.
 */
import type { Clock } from './clock.js';
import type { HttpMethod, Params, RouteDef } from './http.js';
import type { QueueManager } from './queues.js';
import type { Store, User } from './store.js';

export interface EmulatorSettings {
  /** Idle lifetime of an event queue. @default 600_000 (Zulip's 10 minutes) */
  queueIdleTimeoutMs: number;
  /** Delay before a parked `GET /events` is answered with a heartbeat. @default 50_000 (Zulip: 45–55 s) */
  heartbeatIntervalMs: number;
  /** Advertised client timeout for long-polls. @default 90 */
  eventQueueLongpollTimeoutSeconds: number;
  /** @default 372 */
  featureLevel: number;
  /** @default '11.0-emulator' */
  version: string;
  /** @default 10000 */
  maxMessageLength: number;
  /** @default 60 */
  maxTopicLength: number;
  /** @default 60 */
  maxStreamNameLength: number;
  /** @default 1024 */
  maxStreamDescriptionLength: number;
  /** Organization edit/move limits in seconds (null: no limit); override the seeded realm settings. */
  messageContentEditLimitSeconds?: number | null;
  /**
   * Zulip's per-user API rate limit (https://zulip.com/api/http-headers): with it, every
   * authenticated answer carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds) for its
   * user, and calls over the limit in a window get 429 RATE_LIMIT_HIT. Zulip's default is 200 calls
   * a minute. @default none (no headers, no limit: tests make many calls on a frozen clock)
   */
  rateLimit?: { limit: number; windowSeconds: number };
  moveMessagesWithinStreamLimitSeconds?: number | null;
  moveMessagesBetweenStreamsLimitSeconds?: number | null;
  /** The organization's name (`realm_name`), e.g. for a second demo organization. @default the seed's */
  realmName?: string;
  // Uploads.
  /** The server's `MAX_FILE_UPLOAD_SIZE`, reported as `max_file_upload_size_mib`. @default 100 (Zulip's) */
  maxFileUploadSizeMib: number;
  /** The server's `MAX_EMOJI_FILE_SIZE_MIB`. @default 5 (Zulip's) */
  maxEmojiFileSizeMib: number;
  /**
   * What the emulator's upload store holds in all (files and emoji), in bytes: an upload over it
   * is refused as over the organization's quota, so a test cannot fill the process. @default 256 MiB
   */
  maxUploadStoreBytes: number;
  /**
   * The organization's `JWT_AUTH_KEYS` entry: the HS256 secret `POST /jwt/fetch_api_key` checks
   * tokens with. @default none (the endpoint answers "Invalid subdomain", as Zulip does without one)
   */
  jwtAuthKey?: string;
  /**
   * Whether the server uses a push notification service (Zulip's `ZULIP_SERVICE_PUSH_NOTIFICATIONS`):
   * without it, E2EE push registration answers PUSH_SERVICE_NOT_CONFIGURED. @default false
   */
  pushNotificationService?: boolean;
}

export const DEFAULT_SETTINGS: EmulatorSettings = {
  queueIdleTimeoutMs: 600_000,
  heartbeatIntervalMs: 50_000,
  eventQueueLongpollTimeoutSeconds: 90,
  featureLevel: 372,
  version: '11.0-emulator',
  maxMessageLength: 10_000,
  maxTopicLength: 60,
  maxStreamNameLength: 60,
  maxStreamDescriptionLength: 1024,
  maxFileUploadSizeMib: 100,
  maxEmojiFileSizeMib: 5,
  maxUploadStoreBytes: 256 * 1024 * 1024,
};

export interface RouteContext {
  params: Params;
  /** Raw path parameters; use {@link RouteContext.pathInt} for ids. */
  path: Record<string, string>;
  /** The authenticated user (routes declared with `auth: false` must not read it). */
  user: User;
  store: Store;
  events: QueueManager;
  clock: Clock;
  settings: EmulatorSettings;
  /** The server's own origin as the client reached it, e.g. `http://127.0.0.1:9991`. */
  baseUrl: string;
  request: Request;
  /** Aborted when the client goes away (long-polls stop waiting). */
  signal: AbortSignal;
  pathInt(name: string): number;
  /** Current time in UNIX seconds. */
  nowSeconds(): number;
}

export type Route = RouteDef<RouteContext>;

/** What `POST /register` hands each resource to build its part of the initial state. */
export interface StateContext {
  user: User;
  store: Store;
  settings: EmulatorSettings;
  baseUrl: string;
  /** Whether the client asked for this fetch type (absent fetch_event_types means every type). */
  wants(fetchType: string): boolean;
  /** The register request's options (apply_markdown, client_gravatar, include_subscribers, ...). */
  options: { applyMarkdown: boolean; clientGravatar: boolean; includeSubscribers: boolean; slimPresence: boolean; capabilities: Record<string, boolean> };
  nowSeconds(): number;
}

/** One resource's routes and (optionally) its slice of the `/register` initial state. */
export interface ResourceModule {
  routes: Route[];
  initialState?: (ctx: StateContext) => Record<string, unknown>;
}

export type { HttpMethod };
