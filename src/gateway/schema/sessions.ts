/**
 * Server-side sessions (docs/sessions.md): `signIn` checks a credential upstream and keeps it on
 * the gateway, handing the browser an HttpOnly cookie (or a non-browser client a bearer token);
 * `addAccount` and `removeAccount` change the accounts of the session; `signOut` ends it
 * everywhere. No payload here ever holds an API key or the session token, except `bearerToken`
 * for a client that asked for one and is no browser.
 *
 * Each refusal has its code before any upstream call (errors.ts): a server not allowed
 * (SERVER_NOT_ALLOWED, before any connection), a bearer token asked for by a browser
 * (BEARER_REFUSED), no or an invalid session (SESSION_REQUIRED, SESSION_INVALID), an account the
 * session does not hold (ACCOUNT_NOT_IN_SESSION); a credential the chat server refuses is
 * SIGN_IN_FAILED, and nothing is stored.
 */
import { GraphQLError } from 'graphql';
import { contextFromCredentials, type Context, type SessionRequest } from '../context.js';
import { GatewayErrorCode, badInput } from '../errors.js';
import { clearedSessionCookie, sessionCookie } from '../sessions/cookie.js';
import { allowedServer, serverAddress } from '../upstream/servers.js';
import type { NewAccount, RequestSession, SessionAccount } from '../sessions/sessions.js';
import { isAuthError } from '../../zulip/errors.js';
import { fetchApiKey } from '../../zulip/routes/authentication.js';
import { getOwnUser } from '../../zulip/routes/users.js';
import { builder } from '../builder.js';

const SessionAccountRef = builder.objectRef<SessionAccount>('SessionAccount').implement({
  description: 'An account of the session: who it is on which chat server. Its credential stays on the gateway.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Opaque id of the account, stable within its session (removeAccount takes it).' }),
    server: t.exposeString('server', { description: 'The chat server\u2019s origin, e.g. https://chat.example.com.' }),
    email: t.exposeString('email', { description: 'The account\u2019s API email on that server.' }),
  }),
});

const SessionRef = builder.objectRef<RequestSession>('Session').implement({
  description: 'A server-side session: its accounts and when it ends. The token that names it is never part of it.',
  fields: (t) => ({
    accounts: t.field({
      type: [SessionAccountRef],
      description: 'The session\u2019s accounts, in the order they were added; requests act as the first.',
      resolve: (session) => [...session.accounts],
    }),
    expiresAt: t.string({
      description: 'When the session ends at the latest (SESSION_MAX after sign-in), ISO 8601; it ends sooner after SESSION_IDLE without use.',
      resolve: (session) => new Date(session.expiresAt).toISOString(),
    }),
  }),
});

const SignInPayloadRef = builder.objectRef<{ session: RequestSession; bearerToken: string | null }>('SignInPayload').implement({
  description: 'A new session. A browser gets it as an HttpOnly cookie; a client that asked gets `bearerToken`.',
  fields: (t) => ({
    session: t.field({ type: SessionRef, description: 'The session.', resolve: (p) => p.session }),
    bearerToken: t.string({
      nullable: true,
      description: 'The session\u2019s token, for `Authorization: Bearer`, when asked for (`bearer: true`); null otherwise. A secret.',
      resolve: (p) => p.bearerToken,
    }),
  }),
});

const AccountPayloadRef = builder.objectRef<{ session: RequestSession; accountId: string }>('AddAccountPayload').implement({
  description: 'The session with the account added.',
  fields: (t) => ({
    session: t.field({ type: SessionRef, description: 'The session after the change.', resolve: (p) => p.session }),
    account: t.field({
      type: SessionAccountRef,
      description: 'The account added (or, signed in again, replaced in place with its new credential).',
      resolve: (p) => p.session.accounts.find((a) => a.id === p.accountId)!,
    }),
  }),
});

const RemoveAccountPayloadRef = builder.objectRef<{ session: RequestSession | null }>('RemoveAccountPayload').implement({
  description: 'The session without the account; removing its last account signs it out.',
  fields: (t) => ({
    session: t.field({ type: SessionRef, nullable: true, description: 'The session after the change; null when it ended.', resolve: (p) => p.session }),
  }),
});

const SignOutPayloadRef = builder.objectRef<{ signedOut: boolean }>('SignOutPayload').implement({
  description: 'The session ended: on every instance, and its subscriptions with it.',
  fields: (t) => ({
    signedOut: t.exposeBoolean('signedOut', { description: 'Always true: an unknown session is an error instead.' }),
  }),
});

function sessionError(message: string, code: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

/** The request's session handling (always there over HTTP and graphql-ws). */
function requestOf(ctx: Context): SessionRequest {
  if (!ctx.sessionRequest) throw sessionError('Sessions are not served on this request.', GatewayErrorCode.sessionRequired);
  return ctx.sessionRequest;
}

/** The request's valid session, or the refusal that says why there is none. */
function sessionOf(ctx: Context): RequestSession {
  const request = requestOf(ctx);
  if (!request.sent) throw sessionError('No session: sign in first (signIn), then send its cookie or bearer token.', GatewayErrorCode.sessionRequired);
  if (!ctx.session) throw sessionError(ctx.credentialsProblem ?? 'The session is not valid: sign in again.', ctx.credentialsProblemCode ?? GatewayErrorCode.sessionInvalid);
  return ctx.session;
}

interface CredentialArgs {
  server?: string | null;
  email: string;
  password?: string | null;
  apiKey?: string | null;
}

/** Checks the arguments (no upstream call), then the credential upstream; answers the account to store. */
async function checkedAccount(ctx: Context, args: CredentialArgs): Promise<NewAccount> {
  // The allow-list (ZULIP_SERVERS) is checked before anything connects: no client makes the gateway
  // call an address of its choosing (SSRF).
  const addresses = ctx.servers?.addresses ?? [serverAddress(ctx.server.config.baseUrl) ?? ctx.server.config.baseUrl];
  const server = args.server === null || args.server === undefined ? addresses[0] : allowedServer(addresses, args.server);
  if (server === undefined) {
    throw sessionError('This gateway does not serve that chat server (ZULIP_SERVERS).', GatewayErrorCode.serverNotAllowed, { argument: 'server' });
  }
  if (args.email.trim() === '') throw badInput('email must not be empty', { argument: 'email' });
  const password = args.password ?? undefined;
  const apiKey = args.apiKey ?? undefined;
  if ((password === undefined) === (apiKey === undefined)) throw badInput('Give either password or apiKey, not both.');
  if (password === '' || apiKey === '') throw badInput(`${password === '' ? 'password' : 'apiKey'} must not be empty`);
  // The account's own server: the checks go there, counted with the operation's calls.
  const upstream = ctx.servers?.get(server) ?? ctx.server;
  const anonymous = upstream === ctx.server ? ctx.anonymousConnection : contextFromCredentials(upstream, undefined, undefined, ctx, ctx).anonymousConnection;
  try {
    if (password !== undefined) {
      const key = await fetchApiKey(anonymous, { username: args.email, password });
      return { server, email: key.email, apiKey: key.api_key };
    }
    // A cheap authenticated call: the chat server accepts this key for this email.
    await getOwnUser(anonymous.withCredentials({ email: args.email, apiKey: apiKey! }), { retry: false });
    return { server, email: args.email, apiKey: apiKey! };
  } catch (error) {
    if (isAuthError(error)) {
      throw sessionError('The chat server refused these credentials; nothing was stored.', GatewayErrorCode.signInFailed, { upstreamCode: error.code });
    }
    throw error;
  }
}

const credentialArgs = (t: Parameters<Parameters<typeof builder.mutationField>[1]>[0]) => ({
  server: t.arg.string({ description: 'The chat server\u2019s origin; omitted: the gateway\u2019s own (ZULIP_URL). Others are refused before any connection.' }),
  email: t.arg.string({ required: true, description: 'The account\u2019s email (the username, with a password).' }),
  password: t.arg.string({ description: 'The password (exchanged upstream for the API key); never logged nor echoed.' }),
  apiKey: t.arg.string({ description: 'The API key instead of the password; checked upstream, never logged nor echoed.' }),
});

builder.mutationField('signIn', (t) =>
  t.field({
    zulip: { reaches: ['fetch-api-key', 'get-own-user'], writes: [], anonymous: true },
    type: SignInPayloadRef,
    description:
      'Opens a server-side session for one account: the credential is checked upstream (fetch_api_key with a password, ' +
      'or an authenticated call with an API key) and stays on the gateway. A browser gets an HttpOnly cookie; a client ' +
      'that is no browser may ask for a bearer token. A session sent with the request is ended (a new token each sign-in).',
    args: {
      ...credentialArgs(t),
      bearer: t.arg.boolean({
        description: 'Answer a bearer token instead of setting a cookie. Refused (BEARER_REFUSED) on a request with a cookie or an Origin.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const request = requestOf(ctx);
      const bearer = args.bearer === true;
      if (bearer && request.browser) {
        throw sessionError('A bearer token is never given to a browser (the request had a cookie or an Origin): use the cookie.', GatewayErrorCode.bearerRefused);
      }
      if (!bearer && !request.setCookie) {
        throw sessionError('This transport cannot set a cookie: sign in over HTTP, or ask for a bearer token (bearer: true).', GatewayErrorCode.bearerRefused);
      }
      const account = await checkedAccount(ctx, args);
      const { token, session } = await request.sessions.create([account]);
      if (request.sent) await request.sessions.end(request.sent.token);
      if (bearer) return { session, bearerToken: token };
      request.setCookie!(sessionCookie(token, session.expiresAt, request.loopback));
      return { session, bearerToken: null };
    },
  }),
);

builder.mutationField('addAccount', (t) =>
  t.field({
    zulip: { reaches: ['fetch-api-key', 'get-own-user'], writes: [], anonymous: true },
    type: AccountPayloadRef,
    description:
      'Adds an account to the request\u2019s session, its credential checked upstream as signIn does. The same account ' +
      'again replaces its credential in place.',
    args: credentialArgs(t),
    resolve: async (_root, args, ctx) => {
      const session = sessionOf(ctx);
      const account = await checkedAccount(ctx, args);
      const added = await requestOf(ctx).sessions.addAccount(session.id, account);
      if (!added) throw sessionError('The session ended meanwhile: sign in again.', GatewayErrorCode.sessionInvalid);
      return added;
    },
  }),
);

builder.mutationField('removeAccount', (t) =>
  t.field({
    zulip: { writes: [], anonymous: true },
    type: RemoveAccountPayloadRef,
    description: 'Removes an account from the request\u2019s session (its credential is forgotten); the last one signs the session out.',
    args: { id: t.arg.id({ required: true, description: 'The account\u2019s id in this session (SessionAccount.id).' }) },
    resolve: async (_root, args, ctx) => {
      const session = sessionOf(ctx);
      const request = requestOf(ctx);
      const id = String(args.id);
      if (!session.accounts.some((a) => a.id === id)) {
        throw sessionError('This session holds no account with that id.', GatewayErrorCode.accountNotInSession, { argument: 'id' });
      }
      if (session.accounts.length === 1) {
        await request.sessions.end(request.sent!.token);
        request.setCookie?.(clearedSessionCookie(request.loopback));
        return { session: null };
      }
      const changed = await request.sessions.removeAccount(session.id, id);
      if (!changed) throw sessionError('This session holds no account with that id.', GatewayErrorCode.accountNotInSession, { argument: 'id' });
      return { session: changed };
    },
  }),
);

builder.mutationField('signOut', (t) =>
  t.field({
    zulip: { writes: [], anonymous: true },
    type: SignOutPayloadRef,
    description: 'Ends the request\u2019s session everywhere: its cookie or token stops working on every instance, its subscriptions end, its credentials are forgotten.',
    resolve: async (_root, _args, ctx) => {
      const request = requestOf(ctx);
      if (!request.sent) throw sessionError('No session to sign out of.', GatewayErrorCode.sessionRequired);
      // The browser drops its cookie whatever the outcome: a cookie naming no session is of no use.
      if (request.sent.via === 'cookie') request.setCookie?.(clearedSessionCookie(request.loopback));
      if (!(await request.sessions.end(request.sent.token))) {
        throw sessionError('The session is not valid (unknown, expired or signed out already).', GatewayErrorCode.sessionInvalid);
      }
      return { signedOut: true };
    },
  }),
);

builder.queryField('session', (t) =>
  t.field({
    // Read from the gateway's own store: no event of the chat server changes it.
    zulip: { anonymous: true, live: [] },
    type: SessionRef,
    nullable: true,
    description: 'The request\u2019s session: null without one (Authorization: Basic, or nothing). An invalid one is an error (SESSION_INVALID).',
    resolve: (_root, _args, ctx) => (ctx.sessionRequest?.sent ? sessionOf(ctx) : null),
  }),
);
