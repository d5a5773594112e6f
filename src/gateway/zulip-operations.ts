/**
 * Which Zulip operations each GraphQL field provides, declared on the field itself:
 *
 *   builder.queryField('drafts', (t) => t.field({ ..., extensions: reaches('get-drafts'), resolve }));
 *
 * A field lists the operations whose function it offers (its own call, not the loaders it shares
 * with others). The extension is invisible in the SDL; scripts/api-coverage.ts reads it from the
 * built schema to write docs/api-coverage.md.
 */
import { isObjectType, type GraphQLSchema } from 'graphql';
import type { ZulipOperationId } from '../zulip/generated/operations.js';

/** The field extension key. */
export const ZULIP_OPERATIONS = 'zulipOperations';

/** Field `extensions` declaring the Zulip operations (ids as at https://zulip.com/api/<id>) a field provides. */
export function reaches(...operations: [ZulipOperationId, ...ZulipOperationId[]]): { readonly [ZULIP_OPERATIONS]: readonly ZulipOperationId[] } {
  return { [ZULIP_OPERATIONS]: operations };
}

/** Every declared operation with the fields (`Type.field`) that provide it, fields in schema order. */
export function reachedOperations(schema: GraphQLSchema): Map<ZulipOperationId, string[]> {
  const reached = new Map<ZulipOperationId, string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const operations = field.extensions[ZULIP_OPERATIONS] as readonly ZulipOperationId[] | undefined;
      for (const operation of operations ?? []) reached.set(operation, [...(reached.get(operation) ?? []), `${type.name}.${field.name}`]);
    }
  }
  return reached;
}
