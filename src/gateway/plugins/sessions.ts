/**
 * The HTTP side of sessions (docs/sessions.md):
 *
 * - a browser request from a foreign `Origin` (neither this gateway's host nor CORS_ORIGINS) is
 *   refused with 403 ORIGIN_REFUSED before it is parsed when it would use the session cookie, or
 *   opens an SSE stream (WebSocket upgrades: transport/ws.ts, with the same rule);
 * - the `Set-Cookie` values the session mutations ask for (schema/sessions.ts) are added to the
 *   response;
 * - a subscription run on a session ends with SESSION_ENDED when that session is signed out, or
 *   the account it runs as is removed from it, on this instance.
 *
 * CSRF: a cookie-authenticated request passes plugins/csrf.ts like any other (a non-simple content
 * type or the CSRF header, which a cross-site form cannot send), and SameSite=Lax keeps the cookie
 * off cross-site subrequests to begin with.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { originAllowed, sessionCookieOf } from '../sessions/cookie.js';
import type { SessionChange, Sessions } from '../sessions/sessions.js';

/** The `Set-Cookie` values asked for per request, until its response is written. */
export class SessionCookies {
  readonly #pending = new WeakMap<object, string[]>();

  add(request: object, value: string): void {
    const values = this.#pending.get(request);
    if (values) values.push(value);
    else this.#pending.set(request, [value]);
  }

  take(request: object): string[] | undefined {
    const values = this.#pending.get(request);
    this.#pending.delete(request);
    return values;
  }
}

function originRefusal(origin: string): Error {
  return createGraphQLError(`Refused: the origin ${JSON.stringify(origin.slice(0, 200))} is neither this gateway's nor one of CORS_ORIGINS.`, {
    extensions: { code: GatewayErrorCode.originRefused, http: { status: 403 } },
  });
}

export function useSessions(options: { sessions: Sessions; cookies: SessionCookies; corsOrigins: readonly string[] | '*' }): Plugin<Context> {
  const { sessions, cookies, corsOrigins } = options;
  /** Session id → what ends each of its open subscriptions. */
  const open = new Map<string, Set<(change: SessionChange) => void>>();
  sessions.onChange((change) => {
    for (const end of [...(open.get(change.session) ?? [])]) end(change);
  });
  return {
    onRequestParse({ request }) {
      const origin = request.headers.get('origin');
      if (!origin) return;
      const withCookie = !request.headers.has('authorization') && sessionCookieOf(request.headers.get('cookie')) !== undefined;
      const stream = request.headers.get('accept')?.includes('text/event-stream') === true;
      if ((withCookie || stream) && !originAllowed(origin, request.headers.get('host'), corsOrigins, withCookie)) throw originRefusal(origin);
    },
    onResponse({ request, response }) {
      for (const value of cookies.take(request) ?? []) response.headers.append('set-cookie', value);
    },
    onSubscribe({ args }) {
      const session = (args.contextValue as Context).session;
      const accountId = session?.accounts[0]?.id;
      if (!session || accountId === undefined) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          setResult(
            endingWith(result, (end) => {
              const ends = (change: SessionChange) => {
                if (change.reason === 'signed-out' || (change.reason === 'account-removed' && change.accountId === accountId)) end(sessionEnded(change));
              };
              let set = open.get(session.id);
              if (!set) open.set(session.id, (set = new Set()));
              set.add(ends);
              return () => {
                set.delete(ends);
                if (set.size === 0 && open.get(session.id) === set) open.delete(session.id);
              };
            }),
          );
        },
      };
    },
  };
}

function sessionEnded(change: SessionChange): GraphQLError {
  return new GraphQLError(
    change.reason === 'signed-out' ? 'The session was signed out; the subscription has ended.' : 'The account was removed from the session; the subscription has ended.',
    { extensions: { code: GatewayErrorCode.sessionEnded } },
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ExecutionResult> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

/**
 * `source`, until `watch` calls its `end`: then one last result with that error, and the source is
 * returned. `watch` answers its own removal, run when the stream ends either way.
 */
async function* endingWith(
  source: AsyncIterable<ExecutionResult>,
  watch: (end: (error: GraphQLError) => void) => () => void,
): AsyncGenerator<ExecutionResult> {
  let end!: (error: GraphQLError) => void;
  const ended = new Promise<{ error: GraphQLError }>((resolve) => (end = (error) => resolve({ error })));
  const unwatch = watch(end);
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), ended]);
      if ('error' in next) {
        yield { errors: [next.error] };
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    unwatch();
    void iterator.return?.();
  }
}
