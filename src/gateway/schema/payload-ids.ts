/**
 * The id fields of a mutation payload, under the one id rule (docs/clients.md#one-id-rule): a field
 * named `id` is always the global id of a `Node`, so a payload names Zulip's number for what it is
 * (`messageId`, `draftId`...), and the payload of a removal also carries the removed node's global
 * id (`deletedId`) for evicting it from a normalized cache (Relay's `@deleteRecord`, Apollo's
 * `cache.evict`). The payload's old `id` (Zulip's number) is gone, not deprecated: Relay's compiler
 * selects `id` wherever a type has one, and keys its store by it alone, so even a deprecated `id`
 * would keep two payloads' numbers colliding there (and graphql-eslint's require-selections would
 * ask clients to select it).
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { builder } from '../builder.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type FieldBuilder<P> = PothosSchemaTypes.ObjectFieldBuilder<Types, P>;

/**
 * `<name>: Long!` (Zulip's number, from the payload's `id`) and, when `deleted` names the removed
 * record's Node type, `deletedId: ID!`.
 */
export function payloadIds<P extends { id: number }>(t: FieldBuilder<P>, name: string, what: string, deleted?: string) {
  const fields = {
    [name]: t.field({ type: 'Long', description: `The ${what}\u2019s ID (Zulip\u2019s own).`, resolve: (p) => p.id }),
  };
  if (deleted === undefined) return fields;
  return {
    ...fields,
    deletedId: t.id({
      description: `The removed ${what}\u2019s global id, to evict it from a normalized cache.`,
      resolve: (p) => encodeGlobalID(deleted, p.id),
    }),
  };
}
