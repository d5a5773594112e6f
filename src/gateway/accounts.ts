/**
 * The accounts one request acts for, and the context each of them gets (docs/accounts.md).
 *
 * A request with a server-side session (`Context.session`, sessions/sessions.ts) has that
 * session's accounts, each on one of the allowed servers (upstream/servers.ts); a request with
 * `Authorization: Basic` (or the default credentials) has one account, on the default server; an
 * anonymous request has none. The root context acts as the first account.
 *
 * An account's fields run with that account's own context: its credentials on its own server's
 * `UpstreamServer` (keep-alive pool, feature level, live directory, message cache, budget), its
 * own loaders, and the operation's deadline and upstream counters. graphql-js hands every resolver
 * the one context of the operation, so the fields of an account say where their context applies:
 * `enterAccount` records it for the response path of the account's object, and every resolver
 * below that path is given it instead (account-scope.ts, a Pothos plugin). A request that never
 * reaches an account's field pays one property read per resolver.
 */
import { GraphQLError } from 'graphql';
import type { RequestAccount } from './account-types.js';
import { contextFromCredentials, type AccountScopes, type Context } from './context.js';
import { GatewayErrorCode } from './errors.js';

export type { RequestAccount } from './account-types.js';

/** The id of the one account of a request with `Authorization: Basic`: its email on the default server. */
export function basicAccountId(email: string): string {
  return `basic:${email}`;
}

const requestAccountsMemo = new WeakMap<Context, readonly RequestAccount[]>();

/**
 * The accounts of the request, the root's own first: the session's (those whose server is still
 * allowed), or the one of its Basic credentials on the default server, or none.
 */
export function requestAccounts(ctx: Context): readonly RequestAccount[] {
  const root = rootOf(ctx);
  let accounts = requestAccountsMemo.get(root);
  if (accounts) return accounts;
  const session = root.session;
  if (session) {
    accounts = session.accounts.flatMap((a) => {
      const server = root.servers?.get(a.server);
      return server ? [{ id: a.id, server, email: a.email, credentials: a.credentials() }] : [];
    });
  } else {
    accounts = root.credentials ? [{ id: basicAccountId(root.credentials.email), server: root.server, email: root.credentials.email, credentials: root.credentials }] : [];
  }
  requestAccountsMemo.set(root, accounts);
  return accounts;
}

/** The operation's own context, when `ctx` is an account's. */
function rootOf(ctx: Context): Context {
  return ctx.accountScopes?.root ?? ctx;
}

function scopesOf(ctx: Context): AccountScopes {
  const root = rootOf(ctx);
  return (root.accountScopes ??= { root, contexts: new Map(), byPath: new Map() });
}

/** The context an account's fields run with: the root's own for its first account, else its own, made once per operation. */
export function accountContext(ctx: Context, account: RequestAccount): Context {
  const root = rootOf(ctx);
  // Compared by value: a session gives its account's credentials afresh on each ask.
  const own = root.credentials;
  if (own && own.email === account.credentials.email && own.apiKey === account.credentials.apiKey && root.server === account.server) return root;
  const scopes = scopesOf(root);
  let context = scopes.contexts.get(account.id);
  if (!context) {
    context = contextFromCredentials(account.server, account.credentials, undefined, root, root);
    context.account = account;
    context.accountScopes = scopes;
    if (root.servers) context.servers = root.servers;
    if (root.session) context.session = root.session;
    if (root.events) context.events = root.events;
    const liveReads = root.liveAccountReads?.(context.connection);
    if (liveReads) context.liveReads = liveReads;
    scopes.contexts.set(account.id, context);
  }
  return context;
}

/** A response path as graphql-js and graphql-jit give it to a resolver. */
interface ResponsePath {
  readonly prev: ResponsePath | undefined;
  readonly key: string | number;
}

/**
 * A response path as one string. By value, not by object: graphql-jit makes a new path object for
 * every resolver call, where graphql-js shares one per response position.
 */
function pathKey(path: ResponsePath): string {
  let key = String(path.key);
  for (let at = path.prev; at; at = at.prev) key = `${String(at.key)}\u0000${key}`;
  return key;
}

/**
 * The context of `account`, recorded as the one of every field below `path` (the response path
 * of the account's object, or of a field that acts as the account).
 */
export function enterAccount(ctx: Context, account: RequestAccount, path: ResponsePath | undefined): Context {
  const context = accountContext(ctx, account);
  if (path) scopesOf(ctx).byPath.set(pathKey(path), context);
  return context;
}

/** The context that applies at `path`: the nearest account's above it, else `ctx`. */
export function scopedContext(ctx: Context, scopes: AccountScopes, path: ResponsePath | undefined): Context {
  const keys: (string | number)[] = [];
  for (let at = path?.prev; at; at = at.prev) keys.push(at.key);
  let found = ctx;
  let key = '';
  for (let i = keys.length - 1; i >= 0; i--) {
    key = key === '' ? String(keys[i]) : `${key}\u0000${String(keys[i])}`;
    found = scopes.byPath.get(key) ?? found;
  }
  return found;
}

/** The request's account of that id, or ACCOUNT_NOT_FOUND (never another account). */
export function accountById(ctx: Context, id: string): RequestAccount {
  const account = requestAccounts(ctx).find((a) => a.id === id);
  if (account) return account;
  throw new GraphQLError(`${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)} is not an account of this session.`, {
    extensions: { code: GatewayErrorCode.accountNotFound, argument: 'accountId' },
  });
}

/**
 * The account a mutation acts as: the one `accountId` names, or the request's only account.
 * Several accounts and no `accountId`: ACCOUNT_REQUIRED, never a guess. No account at all: the
 * root context, which refuses as it always did (UNAUTHENTICATED).
 */
export function mutationAccount(ctx: Context, accountId: string | null | undefined): RequestAccount | undefined {
  if (accountId !== null && accountId !== undefined) return accountById(ctx, accountId);
  const accounts = requestAccounts(ctx);
  if (accounts.length <= 1) return accounts[0];
  throw new GraphQLError(
    `This session holds ${accounts.length} accounts: say which one acts with the mutation's accountId argument (an Account's id, from \`accounts { id }\`).`,
    { extensions: { code: GatewayErrorCode.accountRequired, argument: 'accountId' } },
  );
}
