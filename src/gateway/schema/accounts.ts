/**
 * One graph over the request's accounts, on one or several servers (docs/accounts.md):
 *
 * - `accounts`: each `Account` (a Node) with its server and, for that account, every plain read of
 *   the root (`me`, `unreads`, `channels`, `users`, `messages`...): `shareRootReads` gives the
 *   `Account` type the root's own field definitions, run as the account (accounts.ts), so there is
 *   one definition of each;
 * - `unreadTotal`: the sum of every account's unread total, live;
 * - `accountEvents` (events/accounts.ts): one stream of every account's events, each with its account;
 * - `accountId` on every mutation that acts as an account (`withAccountMutations`).
 *
 * An account's read fields are nullable where the root's are not: a dead server fails its own
 * accounts' fields, each with its error, and the other accounts answer.
 */
import {
  GraphQLError,
  GraphQLID,
  isNonNullType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { getServerSettings } from '../../zulip/routes/server-settings.js';
import { accountById, enterAccount, mutationAccount, requestAccounts, type RequestAccount } from '../accounts.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { factsOf } from '../facts.js';
import { nodeTypenamesOf, readGlobalId } from '../global-ids.js';
import { memoKey } from '../loaders/index.js';
import { NO_CALL } from '../upstream/cost.js';
import { UNREADS } from '../live/resources.js';
import { unreadsCost } from './unreads.js';

/** Accounts a session is assumed to hold, for the upstream estimate of what each one reads. */
const ASSUMED_ACCOUNTS = 5;

/**
 * The root fields an `Account` does not repeat: the accounts themselves, the request's session, the
 * change log (`changes`, `stamp`: kept for the default server only, sync/logs.ts) and lookups by global id.
 */
const NOT_SHARED = new Set(['accounts', 'unreadTotal', 'session', 'changes', 'stamp', 'node', 'nodes', '_entities', '_service']);

export const AccountRef = builder.objectRef<RequestAccount>('Account');

const serverSettingsMemo = memoKey<Awaited<ReturnType<typeof getServerSettings>>>('account server settings');

/** The account's server's public settings, once per request and account. */
function settingsOf(ctx: Context) {
  return ctx.loaders.memo.get(serverSettingsMemo, () => getServerSettings(ctx.anonymousConnection));
}

const AccountServerRef = builder.objectRef<RequestAccount>('AccountServer').implement({
  description: 'The chat server of an account: its address and public settings (https://zulip.com/api/get-server-settings).',
  fields: (t) => ({
    url: t.string({ zulip: { cost: NO_CALL }, description: 'The server\u2019s address, as the gateway\u2019s allow-list (`ZULIP_SERVERS`) names it.', resolve: (a) => a.server.config.baseUrl }),
    name: t.string({
      zulip: { reaches: ['get-server-settings'] },
      nullable: true,
      description: 'The organization\u2019s display name.',
      resolve: async (a, _args, ctx, info) => (await settingsOf(enterAccount(ctx, a, info.path.prev)))?.realm_name ?? null,
    }),
    icon: t.string({
      zulip: { reaches: ['get-server-settings'] },
      nullable: true,
      description: 'The absolute URL of the organization\u2019s square logo.',
      resolve: async (a, _args, ctx, info) => {
        const icon = (await settingsOf(enterAccount(ctx, a, info.path.prev))).realm_icon;
        return icon ? new URL(icon, a.server.config.baseUrl).href : null;
      },
    }),
    featureLevel: t.int({
      zulip: { reaches: ['get-server-settings'] },
      nullable: true,
      description: 'The server\u2019s Zulip feature level (https://zulip.com/api/changelog).',
      resolve: async (a, _args, ctx, info) => (await settingsOf(enterAccount(ctx, a, info.path.prev))).zulip_feature_level ?? null,
    }),
  }),
});

AccountRef.implement({
  description:
    'One account of the caller: a Zulip user on one chat server. Besides its own fields, it has every plain read ' +
    'of the root (`me`, `unreads`, `channels`, `users`, `messages`...) as that account; each is null with its ' +
    'error when the account\u2019s server fails, and the other accounts answer (docs/accounts.md).',
  fields: (t) => ({
    email: t.exposeString('email', { description: 'The email address the account signs in with.' }),
    server: t.field({ zulip: { cost: NO_CALL }, type: AccountServerRef, description: 'The account\u2019s chat server.', resolve: (a) => a }),
  }),
});

builder.nodeRef(AccountRef as never, {
  id: { resolve: (a: RequestAccount) => a.id, parse: (raw: string) => raw },
  loadOne: (id: string, ctx: Context) => {
    try {
      const account = accountById(ctx, id);
      // The Node interface resolves a loaded record's type from this map (builder.ts), as asNode's records do.
      nodeTypenamesOf(ctx).set(account, 'Account');
      return account;
    } catch (error) {
      return error as RequestAccount;
    }
  },
} as never);

builder.queryField('accounts', (t) =>
  t.field({
    // The estimate counts each account's reads once per account: sessions hold a few.
    zulip: { cost: { size: { assumedSize: ASSUMED_ACCOUNTS } }, live: [] },
    type: [AccountRef],
    description:
      'The caller\u2019s accounts: those of its session, or the one of its `Authorization: Basic` credentials on the ' +
      'default server. The root\u2019s own fields act as the first.',
    resolve: (_root, _args, ctx) => requestAccounts(ctx),
  }),
);

builder.queryField('unreadTotal', (t) =>
  t.int({
    zulip: { cost: { once: { key: 'unreads', calls: unreadsCost.once!.calls * ASSUMED_ACCOUNTS } }, live: [UNREADS] },
    description:
      'The unread total of every account together (the sum of their `unreads.total`): one badge for all. An account ' +
      'whose server fails adds nothing; its error shows on its own `unreads`.',
    resolve: async (_root, _args, ctx, info) => {
      const unreads = info.schema.getQueryType()!.getFields().unreads!.resolve!;
      const totals = await Promise.all(
        requestAccounts(ctx).map(async (account) => {
          try {
            const view = (await unreads(undefined, {}, enterAccount(ctx, account, undefined), info)) as { total: number };
            return view.total;
          } catch {
            return 0;
          }
        }),
      );
      return totals.reduce((sum, total) => sum + total, 0);
    },
  }),
);

/** A root field run as the account whose object is its parent. */
function asAccount(field: GraphQLField<unknown, Context>): GraphQLFieldResolver<RequestAccount, Context> {
  const resolve = field.resolve;
  return (account, args, ctx, info) => {
    const context = enterAccount(ctx, account, info.path.prev);
    return resolve ? resolve(undefined, args, context, info) : undefined;
  };
}

/**
 * Gives `Account` every plain read of the root: the same field (type, arguments, description,
 * facts), nullable, resolved as the account. Run once on the built schema, before it serves.
 */
export function shareRootReads(schema: GraphQLSchema): GraphQLSchema {
  const account = schema.getType('Account') as GraphQLObjectType<RequestAccount, Context>;
  const fields = account.getFields() as Record<string, GraphQLField<RequestAccount, Context>>;
  const own = Object.entries(fields);
  const shared = Object.values(schema.getQueryType()!.getFields()).filter((f) => !NOT_SHARED.has(f.name));
  for (const field of shared) {
    if (field.name in fields) throw new Error(`Account.${field.name} is both an Account field and a root read.`);
    // Running without credentials is a fact of root fields only (plugins/credentials.ts).
    const { anonymous: _anonymous, ...facts } = factsOf(field) ?? {};
    fields[field.name] = {
      ...field,
      extensions: { ...field.extensions, zulip: facts },
      type: isNonNullType(field.type) ? field.type.ofType : field.type,
      resolve: asAccount(field as GraphQLField<unknown, Context>),
    } as GraphQLField<RequestAccount, Context>;
  }
  // Keep the fields sorted, as the rest of the schema is (`sortSchema`).
  const all = Object.entries(fields).sort(([a], [b]) => a.localeCompare(b));
  for (const [name] of own) delete fields[name];
  for (const [name] of shared.map((f) => [f.name] as const)) delete fields[name];
  for (const [name, field] of all) fields[name] = field;
  return schema;
}

const ACCOUNT_ID_DESCRIPTION =
  'The account that acts (an `Account` id, from `accounts { id }`). Required when the caller\u2019s session holds ' +
  'several accounts (ACCOUNT_REQUIRED without it); ACCOUNT_NOT_FOUND for an account that is not the caller\u2019s.';

/** The request's account an `accountId` argument names. */
function accountOfArgument(ctx: Context, value: unknown): RequestAccount | undefined {
  if (value === null || value === undefined) return mutationAccount(ctx, undefined);
  const decoded = readGlobalId(String(value));
  if (decoded.typename !== 'Account') {
    throw new GraphQLError(`accountId must be an Account id; this one is a ${decoded.typename}'s.`, {
      extensions: { code: GatewayErrorCode.accountNotFound, argument: 'accountId' },
    });
  }
  return mutationAccount(ctx, decoded.id);
}

/**
 * Gives every mutation that acts as an account (all but the anonymous ones: logging in) an
 * optional `accountId`, and runs it, and everything below it, as that account.
 */
export function withAccountMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    if (factsOf(field)?.anonymous) continue;
    const resolve = field.resolve!;
    field.args = [
      ...field.args,
      { name: 'accountId', description: ACCOUNT_ID_DESCRIPTION, type: GraphQLID, defaultValue: undefined, deprecationReason: undefined, extensions: {}, astNode: undefined },
    ].sort((a, b) => a.name.localeCompare(b.name));
    field.resolve = (root, args: Record<string, unknown>, ctx: Context, info) => {
      const { accountId, ...rest } = args;
      const account = accountOfArgument(ctx, accountId);
      return resolve(root, rest, account ? enterAccount(ctx, account, info.path) : ctx, info);
    };
  }
  return schema;
}
