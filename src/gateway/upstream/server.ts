/**
 * The chat server behind one gateway instance: made once by `createGateway`, complete when its
 * constructor returns, and closed with the gateway. It holds the one upstream connection (so the
 * one keep-alive pool) that requests derive their credentials and counters from (context.ts), and
 * the public server facts every caller shares. Nothing here depends on a caller's credentials.
 */
import { ZulipConnection, type FetchLike, type ObservedCall, type ResponseInfo } from '../../zulip/connection.js';
import type { Credentials } from '../../zulip/credentials.js';
import { AuthorizationCache } from '../credentials.js';
import type { LiveDirectories } from '../directory/live.js';
import type { CredentialRevocations } from '../revocation.js';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from './input-limits.js';
import { DEFAULT_USER_IDS_BATCH_THRESHOLD } from '../loaders/users.js';
import { SharedValue } from '../loaders/memo.js';
import { DEFAULT_ANONYMOUS_RATE_LIMIT, DEFAULT_UPSTREAM_BUDGET_HEADROOM, LOGIN_ATTEMPTS_PER_MINUTE, UpstreamBudgets, type Headroom } from './budget.js';
import { UpstreamBuckets, type BucketClock } from './bucket.js';

/** How to reach the chat server; fixed for the lifetime of a gateway. */
export interface UpstreamConfig {
  /** Server origin, e.g. `https://chat.example.com` (without `/api/v1`). */
  baseUrl: string;
  /**
   * Transport for every upstream call; the tests' seam.
   * @default undici's request API over one keep-alive pool (see zulip/connection.ts)
   */
  fetch?: FetchLike;
  /** Used for requests that carry no credentials at all. @default none (anonymous) */
  defaultCredentials?: Credentials;
  /**
   * The deadline of one upstream call, in milliseconds: its attempts and the waits between its
   * retries all fit inside it (zulip/connection.ts `deadlineMs`). @default 10_000
   */
  deadlineMs?: number;
  /**
   * How long an upload may go without a byte of its file (upload.ts); it replaces the operation's
   * deadline for the upload's own call. @default DEFAULT_UPLOAD_IDLE_MS (10 s)
   */
  uploadIdleMs?: number;
}

/** Observes one upstream call of a request (metrics, trace span, request id; observability/upstream.ts). */
export type UpstreamObserver = (observation: object, route: string, method: string) => ObservedCall;

export interface UpstreamServerOptions extends UpstreamConfig {
  /**
   * Builds each credential's live directory (directory/live.ts) over the server's connection; the
   * directories learn the server's length limits into `inputLimits`. @default none (off)
   */
  directories?: (connection: ZulipConnection, inputLimits: InputLimits) => LiveDirectories;
  /**
   * Builds the gateway's revocation (revocation.ts) over the server's connection and the
   * directories: told of every answer to a credential's call. @default none
   */
  revocations?: (connection: ZulipConnection, directories: LiveDirectories | undefined) => CredentialRevocations;
  /**
   * Observes each upstream call of a request. `observation` is the GraphQL context object, read
   * when the call is made: the request id and the operation's trace context are put on it after
   * the context is built. @default none
   */
  observe?: UpstreamObserver;
  /**
   * Below feature level 384, batches of at most this many users are fetched one by one
   * (loaders/users.ts). @default DEFAULT_USER_IDS_BATCH_THRESHOLD
   */
  userIdsBatchThreshold?: number;
  /** Kept out of every credential's bucket for the user's other clients. @default DEFAULT_UPSTREAM_BUDGET_HEADROOM */
  headroom?: Headroom;
  /** The buckets' clock (tests drive the rate-limit window by hand). @default the system clock */
  budgetClock?: BucketClock;
  /** Upstream calls the anonymous operations of one client address may make a minute. @default DEFAULT_ANONYMOUS_RATE_LIMIT */
  anonymousRateLimit?: number;
  /** Peers whose `X-Forwarded-For` names the client (client-address.ts). @default none */
  trustedProxies?: readonly string[];
}

export class UpstreamServer {
  readonly config: UpstreamConfig;
  readonly connection: ZulipConnection;
  /** The server's feature level (feature-level.ts). */
  readonly featureLevel = new SharedValue<number>();
  /** `server_presence_offline_threshold_seconds` (schema/presence.ts). */
  readonly presenceOfflineThreshold = new SharedValue<number>();
  /** The server's length limits (input-limits.ts), learnt from its registration responses. */
  readonly inputLimits: InputLimits = { ...DEFAULT_INPUT_LIMITS };
  /** Each credential's live directory (directory/live.ts); undefined when it is off. */
  readonly directories: LiveDirectories | undefined;
  /** Refused credentials (revocation.ts), told of every answer to a request's call; undefined when off. */
  readonly revocations: CredentialRevocations | undefined;
  /** See {@link UpstreamServerOptions.observe}; undefined when nothing observes. */
  readonly observe: UpstreamObserver | undefined;
  /** Below feature level 384, user batches up to this size are fetched by ID (loaders/users.ts). */
  readonly userIdsBatchThreshold: number;
  /** Each credential's rate-limit budget as last advertised (X-RateLimit-* headers), for the response extensions. */
  readonly budgets: UpstreamBudgets;
  /** Each credential's bucket of upstream calls (upstream/bucket.ts): what every caller spends. */
  readonly buckets: UpstreamBuckets;
  /** Each client address's bucket of anonymous calls, by address. */
  readonly addresses: UpstreamBuckets;
  /** Each client address's bucket of login attempts, by address. */
  readonly logins: UpstreamBuckets;
  /** Peers whose `X-Forwarded-For` is honoured (client-address.ts). */
  readonly trustedProxies: ReadonlySet<string>;
  /** Recent Authorization header values, each parsed once (credentials.ts). */
  readonly authorizations = new AuthorizationCache();
  /** The organization's upload limits in bytes (schema/uploads.ts), read from `POST /register` once. */
  readonly uploadLimits = new SharedValue<{ maxFileUploadBytes: number }>();
  /** Whether `GET /users` honours `user_ids` (feature level 384), learned from its first answer. */
  userIdsSupported: boolean | undefined = undefined;

  constructor(options: UpstreamServerOptions) {
    const { directories, revocations, observe, userIdsBatchThreshold, headroom, budgetClock, anonymousRateLimit, trustedProxies, ...config } = options;
    this.config = config;
    this.buckets = new UpstreamBuckets({ headroom: headroom ?? DEFAULT_UPSTREAM_BUDGET_HEADROOM, ...(budgetClock && { clock: budgetClock }) });
    this.addresses = new UpstreamBuckets({ headroom: 0, limit: anonymousRateLimit ?? DEFAULT_ANONYMOUS_RATE_LIMIT, ...(budgetClock && { clock: budgetClock }) });
    this.logins = new UpstreamBuckets({ headroom: 0, limit: LOGIN_ATTEMPTS_PER_MINUTE, ...(budgetClock && { clock: budgetClock }) });
    this.trustedProxies = new Set(trustedProxies ?? []);
    this.budgets = new UpstreamBudgets(() => this.buckets.clock.now());
    this.connection = new ZulipConnection({
      baseUrl: config.baseUrl,
      ...(config.fetch && { fetch: config.fetch }),
      ...(config.deadlineMs !== undefined && { deadlineMs: config.deadlineMs }),
      // The calls made outside a request (the event queues' polls, the live directories' loads)
      // spend the credential's budget too; a request's own connection observes it the same way.
      onResponse: (info) => {
        if (info.credentialKey) this.observeAnswer(info.credentialKey, info);
      },
    });
    this.directories = directories?.(this.connection, this.inputLimits);
    this.revocations = revocations?.(this.connection, this.directories);
    this.observe = observe;
    this.userIdsBatchThreshold = userIdsBatchThreshold ?? DEFAULT_USER_IDS_BATCH_THRESHOLD;
  }

  /**
   * An answer to a call made with the credential `credentialKey`: its rate-limit headers correct
   * the credential's bucket, and a 429 empties it until its Retry-After.
   */
  observeAnswer(credentialKey: string, info: ResponseInfo): void {
    if (info.rateLimit) {
      this.budgets.observe(credentialKey, info.rateLimit);
      this.buckets.for(credentialKey).observe(info.rateLimit);
    }
    if (info.status === 429) {
      const reset = info.rateLimit && info.rateLimit.remaining <= 0 ? info.rateLimit.reset - this.buckets.clock.now() / 1000 : undefined;
      this.buckets.for(credentialKey).drain(info.retryAfter ?? reset);
    }
  }

  /** Closes the keep-alive pool (gateway disposal). */
  close(): Promise<void> {
    this.buckets.close();
    this.addresses.close();
    this.logins.close();
    return this.connection.close();
  }
}
