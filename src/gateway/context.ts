/**
 * The per-request GraphQL context. Each request gets its own `ZulipConnection` carrying the
 * caller's credentials, its own DataLoaders and its own counters, so nothing fetched for one
 * credential can be served to another. What requests share lives on the gateway's
 * {@link UpstreamServer}: the keep-alive pool and public facts about the chat server.
 *
 * The caller's credentials are read by credentials.ts, from the Authorization header or a
 * graphql-ws `connection_init` payload. The configured default credentials apply only when the
 * caller sent none at all; credentials that are present but unusable never fall back to another
 * identity.
 */
import { GraphQLError } from 'graphql';
import type { ResponseInfo, ZulipConnection } from '../zulip/connection.js';
import type { Credentials } from '../zulip/credentials.js';
import type { SentCredentials } from './credentials.js';
import { GatewayErrorCode } from './errors.js';
import type { EventHub } from './events/hub.js';
import type { LiveReads } from './facts.js';
import type { SyncLogs } from './sync/logs.js';
import type { SentSession } from './sessions/cookie.js';
import type { RequestSession, Sessions } from './sessions/sessions.js';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { Reservation } from './upstream/bucket.js';
import type { UpstreamServer } from './upstream/server.js';
import type { UpstreamServers } from './upstream/servers.js';
import type { RequestAccount } from './account-types.js';

export interface Context {
  /** The gateway's chat server: shared connection pool and server facts. */
  server: UpstreamServer;
  /** Talks to the chat server as the caller (anonymous when there are no credentials). */
  connection: ZulipConnection;
  /** Same server and counters, never any credentials: for public endpoints (server settings). */
  anonymousConnection: ZulipConnection;
  /** Per-request batching over the bulk endpoints; see loaders/index.ts. */
  loaders: Loaders;
  /**
   * A GraphQL subscription's estimated upstream calls per event (its payload's fields: the root
   * field's own calls are the credential's queue), set by plugins/upstream-budget.ts; each event
   * waits for them in the credential's bucket (schema/events/stream.ts).
   */
  eventCost?: () => number;
  /** What this request cost upstream; reported in the response `extensions`. */
  upstream: {
    baseUrl: string;
    requests: number;
    estimate?: number;
    /**
     * The tokens of the credential's bucket this operation (or `@live` re-run, or subscription
     * event) set aside before it ran (upstream/bucket.ts); each upstream call made with the
     * credential spends one.
     */
    reservation?: Reservation;
  };
  /** Parameters the chat server reported as unsupported (`ignored_parameters_unsupported`). */
  ignoredParameters: Set<string>;
  /** The caller's credentials, when there are usable ones. */
  credentials?: Credentials;
  /** Why the caller's credentials were refused, when they were (plugins/credentials.ts refuses the operation). */
  credentialsProblem?: string;
  /** The code of that refusal. @default UNAUTHENTICATED */
  credentialsProblemCode?: GatewayErrorCode;
  /**
   * The request's session (sessions/sessions.ts), when it came with a valid cookie or bearer token:
   * its accounts, each giving its decrypted credential to the code that builds its connection. With
   * one account, `credentials` are that account's, exactly as if sent in `Authorization: Basic`.
   * Each account's fields act on its own server (accounts.ts).
   */
  session?: RequestSession;
  /** What the session mutations (schema/sessions.ts) need of the request; absent when sessions are off. */
  sessionRequest?: SessionRequest;
  /**
   * When this operation's upstream calls must all have ended (`performance.now()` time), shared by
   * every call; set as a query or mutation starts (plugins/deadline.ts), never for a subscription.
   */
  deadline: { expiresAt: number | undefined };
  /** The gateway's event hub, for subscriptions (added by `useEventHub` in yoga.ts). */
  events?: EventHub;
  /** The change logs behind stamps and `changes(since:)` (added by `useSync` in yoga.ts). */
  sync?: SyncLogs;
  /**
   * Set by plugins/live-queries.ts as each `@live` execution starts, and by a subscription as each
   * event is delivered: the stamp its next result carries (plugins/sync.ts).
   */
  stampNow?: string;
  /**
   * Set only while a `@live` query executes (plugins/live-queries.ts): told each resource the
   * execution reads (live/resources.ts), so that the events changing them re-run it.
   */
  liveReads?: LiveReads;
  /** Every server the gateway may talk to (upstream/servers.ts); absent in contexts built outside a gateway. */
  servers?: UpstreamServers;
  /** Set on a context that acts as one account of the session (accounts.ts `accountContext`). */
  account?: RequestAccount;
  /**
   * Set only while a `@live` query executes: what an account's context records its reads with (in
   * that account's own scope), so that the account's events re-run the query (plugins/live-queries.ts).
   */
  liveAccountReads?: (connection: ZulipConnection) => LiveReads;
  /** Per request, the contexts of the session's accounts and where in the result each applies (accounts.ts). */
  accountScopes?: AccountScopes;
}

/** See accounts.ts: built on first use by a field of an account. */
export interface AccountScopes {
  /** The operation's own context. */
  root: Context;
  /** Each account's context, by account id. */
  contexts: Map<string, Context>;
  /** The context that applies below a response path (its keys joined by NUL). */
  byPath: Map<string, Context>;
}

/** What the session mutations need to know of the request that runs them. */
export interface SessionRequest {
  sessions: Sessions;
  /** The session token the request sent (cookie or bearer), valid or not. */
  sent: SentSession | undefined;
  /** A browser sent it: it had a cookie or an `Origin` (no bearer token is ever given to one). */
  browser: boolean;
  /** Its Host is loopback: the cookie is then set without `Secure` (sessions/cookie.ts). */
  loopback: boolean;
  /** Adds a `Set-Cookie` to the response; absent where there is none (graphql-ws). */
  setCookie: ((value: string) => void) | undefined;
}

/**
 * Builds the context of one HTTP request: a fetch `Request` from yoga, or any request-like object
 * (only the Authorization header is read).
 */
export function createContext({ request, upstream, observation }: { request: { headers: Pick<Headers, 'get'> }; upstream: UpstreamServer; observation?: object }): Context {
  return contextFor(upstream, upstream.authorizations.get(request.headers.get('authorization')), observation);
}

/**
 * Builds a context from what the caller sent, whichever transport it came by (credentials.ts):
 * `undefined` (nothing sent) selects the default credentials, a problem is kept for
 * plugins/credentials.ts to refuse the operation with.
 */
export function contextFor(upstream: UpstreamServer, sent: SentCredentials | undefined, observation?: object): Context {
  if (sent === undefined) return contextFromCredentials(upstream, upstream.config.defaultCredentials, undefined, observation);
  return 'credentials' in sent
    ? contextFromCredentials(upstream, sent.credentials, undefined, observation)
    : contextFromCredentials(upstream, undefined, sent.problem, observation);
}

/**
 * Builds a context for `credentials` (or none), with the problem that left it without any; with
 * `operation`, as a part of that context's operation (its counters and deadline).
 */
export function contextFromCredentials(
  upstream: UpstreamServer,
  credentials: Credentials | undefined,
  credentialsProblem?: string,
  observation?: object,
  operation?: Pick<Context, 'ignoredParameters' | 'deadline'>,
): Context {
  // An account's context (accounts.ts) keeps the deadline of the operation it serves; its calls
  // are counted and spent on its own credential's bucket (its own counters, no reservation).
  const counters: Context['upstream'] = { baseUrl: upstream.config.baseUrl, requests: 0 };
  const ignoredParameters = operation?.ignoredParameters ?? new Set<string>();
  const deadline: Context['deadline'] = operation?.deadline ?? { expiresAt: undefined };
  const observe = upstream.observe;
  const observeResponse = (info: ResponseInfo) => {
    for (const name of info.ignoredParametersUnsupported ?? []) ignoredParameters.add(name);
    if (credentials) upstream.observeAnswer(connection.credentialKey, info);
  };
  // Counted per attempt, so attempts that never got a response (timeouts) count too. An attempt
  // with credentials spends the operation's reservation while it has one (plugins/upstream-budget.ts),
  // else the credential's bucket directly (counted, never lost). The event queue's own calls do not
  // come here: its session derives a connection without this hook, and waits for its tokens (events/queue.ts).
  const anonymousConnection = upstream.connection.derive({
    credentials: undefined,
    onRequest: () => {
      counters.requests++;
      if (!credentials) return;
      // Read from the counters object, which the context yoga builds keeps by reference (envelop
      // copies this context's properties into its own object).
      const reservation = counters.reservation;
      if (reservation && !reservation.released) reservation.spend();
      else upstream.buckets.for(connection.credentialKey).record();
    },
    sharedDeadline: () => deadline.expiresAt,
    onResponse: observeResponse,
    onCall: observe && ((route, method) => observe(observation ?? context, route, method)),
  });
  // The caller's own calls are told to the revocation too: a 401 refuses the credential everywhere
  // (revocation.ts), any other answer shows it is still accepted. Anonymous calls never are.
  const revocations = upstream.revocations;
  const connection: ZulipConnection = !credentials
    ? anonymousConnection
    : revocations
      ? anonymousConnection.derive({
          credentials,
          onResponse: (info: ResponseInfo) => {
            observeResponse(info);
            revocations.observed(connection, info);
          },
        })
      : anonymousConnection.withCredentials(credentials);
  const context: Context = {
    server: upstream,
    connection,
    anonymousConnection,
    loaders: createLoaders(connection, upstream),
    upstream: counters,
    ignoredParameters,
    deadline,
  };
  if (credentials) context.credentials = credentials;
  if (credentialsProblem !== undefined) context.credentialsProblem = credentialsProblem;
  return context;
}

/** The caller's credentials, or an `UNAUTHENTICATED` error for fields that need some. */
export function requireCredentials(ctx: Context): Credentials {
  if (ctx.credentials) return ctx.credentials;
  throw new GraphQLError(
    ctx.credentialsProblem ??
      'This field needs credentials: send "Authorization: Basic base64(email:apiKey)" with a Zulip API key.',
    { extensions: { code: ctx.credentialsProblemCode ?? GatewayErrorCode.unauthenticated } },
  );
}
