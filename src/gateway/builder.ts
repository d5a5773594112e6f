/**
 * The one Pothos `SchemaBuilder` of the gateway: plugins, scalars and root types, and no resource
 * types. Resource files in `schema/<resource>.ts` import `builder` and add their own types and
 * `builder.queryField` / `mutationField` / `subscriptionField` entries; `schema/index.ts` imports
 * them all for their side effects and calls `builder.toSchema()`.
 *
 * Root types: `Query` and `Mutation` are declared here. `Subscription` is not, because GraphQL
 * rejects an object type without fields and the schema must build before any subscription
 * exists. The events owner adds, once, in the file that defines the first subscription field:
 *
 * ```ts
 * builder.subscriptionType({ description: 'Real-time events from the chat server.' });
 * builder.subscriptionField('messageEvents', (t) => t.field({ ... }));
 * ```
 */
import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import type { Context } from './context.js';
import { nodeTypenamesOf, readGlobalId, requireNodeType } from './global-ids.js';
import AccountScopePlugin from './account-scope.js';
import ZulipFactsPlugin from './facts.js';
import TypedErrorsPlugin from './typed-errors.js';
import { Upload } from './upload.js';
import { NO_CALL, nodeLookupCost } from './upstream/cost.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    Long: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
    Upload: { Input: Upload; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  // The order is the resolvers' nesting, outermost first. AccountScopePlugin is the outermost, so
  // every other one sees the account's context; the errors plugin returns the typed errors that
  // typed-errors.ts throws around the facts plugin's feature gate and the resolver.
  plugins: [AccountScopePlugin, ErrorsPlugin, TypedErrorsPlugin, RelayPlugin, ZulipFactsPlugin],
  defaultFieldNullability: false,
  // Every mutation declares its expected failures (`errors: { types: [...] }`, typed-errors.ts) and
  // returns `<Mutation>Result`: its payload itself (a scalar or list in `<Mutation>Payload`) or one
  // of those error objects. Anything else is a thrown GraphQLError (errors.ts). docs/errors.md
  errors: {
    defaultTypes: [],
    directResult: true,
    defaultUnionOptions: {
      name: ({ fieldName }) => `${capitalized(fieldName)}Result`,
      description: 'What the mutation returns: its payload, or one of the expected errors it declares (each implements Error).',
    },
    defaultResultOptions: {
      name: ({ fieldName }) => `${capitalized(fieldName)}Payload`,
      description: 'What the mutation returned.',
    },
  },
  // Relay's global object identification (global-ids.ts, schema/node.ts). Only the Node interface,
  // `node` and `nodes` come from the plugin: the message connection and its PageInfo predate it.
  relay: {
    clientMutationId: 'omit',
    // Loaded records are the loaders' and the live directory's shared objects: never branded.
    brandLoadedObjects: false,
    decodeGlobalID: (globalId) => readGlobalId(globalId),
    idFieldOptions: {
      // Encoded from the record itself: no call.
      zulip: { cost: NO_CALL },
      description:
        'The global id: opaque, unique across types, for `node(id:)` and normalized client caches. Zulip\u2019s own ' +
        'ID is `zulipId`; arguments take that one.',
    },
    nodeTypeOptions: {
      description:
        'An object with a global id, which `node(id:)` loads again. https://relay.dev/graphql/objectidentification.htm',
      resolveType: (record: unknown, ctx: Context) =>
        typeof record === 'object' && record !== null ? nodeTypenamesOf(ctx).get(record) : undefined,
    },
    nodeQueryOptions: {
      description:
        'Any object by its global id, with the caller\u2019s visibility rules of that type\u2019s own query field: ' +
        'NOT_FOUND when it does not exist or the caller cannot see it, INVALID_GLOBAL_ID (before any upstream ' +
        'call) for an id this API did not issue.',
      args: { id: { description: 'A global id, as an object\u2019s `id` field gives it.' } },
      // What it reads are the entities it resolves (their types record them); what loading the id
      // costs upstream depends on its type (upstream/cost.ts `nodeLookupCost`).
      zulip: { live: [], cost: nodeLookupCost },
      resolve: (_root, args, _ctx, info, resolveNode) => {
        requireNodeType(args.id, info);
        return resolveNode(args.id);
      },
    },
    nodesQueryOptions: {
      description:
        'Objects by global id, of any types, in order (batched per type as their own lookups are); an entry is ' +
        'null with its own error, as `node` would give it. Malformed ids fail the whole field before any upstream call.',
      args: { ids: { description: 'Global ids, as objects\u2019 `id` fields give them.' } },
      zulip: { live: [], cost: nodeLookupCost },
      resolve: (_root, args, _ctx, info, resolveNodes) => {
        for (const id of args.ids) requireNodeType(id, info);
        return resolveNodes(args.ids);
      },
    },
  },
});

function capitalized(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

builder.queryType({ description: 'Read operations on the chat server.' });
builder.mutationType({ description: 'Write operations on the chat server.' });

function invalidLong(value: unknown): GraphQLError {
  return new GraphQLError(
    `Long must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}; got ${preview(value)}.`,
  );
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Input side: only values that survive a round trip through a JS number unchanged. */
function parseLong(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw invalidLong(value);
}

function parseLongLiteral(node: ValueNode): number {
  if (node.kind !== Kind.INT) throw invalidLong(node.kind === Kind.STRING ? node.value : node.kind);
  return parseLong(Number(node.value));
}

builder.scalarType('Long', {
  description:
    'An integer that may exceed 32 bits, such as a message ID or an anchor, sent as a JSON number. ' +
    'Inputs must be safe integers (at most 2^53 - 1 in magnitude). Outputs are integers exactly as ' +
    'the chat server sent them; the one larger value in use is the legacy "newest" anchor ' +
    '10000000000000000, which is exactly representable as a double.',
  // Output: upstream already parsed the value with JSON.parse, so any integer number is exactly
  // what the server sent; rejecting 1e16 would break the legacy "newest" anchor.
  serialize: (value) => {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    throw invalidLong(value);
  },
  parseValue: parseLong,
  parseLiteral: parseLongLiteral,
});

builder.scalarType('JSON', {
  description:
    'Opaque JSON passed through unchanged, used only for payloads the gateway does not model ' +
    '(for example event types it does not know yet).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
});

builder.scalarType('Upload', {
  description:
    'A file sent with the operation as a GraphQL multipart request ' +
    '(https://github.com/jaydenseric/graphql-multipart-request-spec): its variable is null in ' +
    '`operations`, and `map` names the file part that carries it. One file per request; input only.',
  serialize: () => {
    throw new GraphQLError('Upload is an input-only scalar.');
  },
  parseValue: (value) => {
    if (value instanceof Upload) return value;
    throw new GraphQLError('Upload must be a file part of a multipart request, mapped to this variable.');
  },
  parseLiteral: () => {
    throw new GraphQLError('Upload must be a file part of a multipart request, mapped to a variable.');
  },
});
