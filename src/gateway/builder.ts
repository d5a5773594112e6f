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
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import { GraphQLError, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import type { Context } from './context.js';
import { Upload } from './upload.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    Long: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
    Upload: { Input: Upload; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ErrorsPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  // Errors are thrown GraphQLErrors by default (see errors.ts); a mutation whose failure carries
  // data the client must act on opts in with `errors: { types: [...] }` and its own error object.
  errors: { defaultTypes: [] },
});

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
