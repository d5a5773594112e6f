/**
 * Relay's global object identification, the parts the builder's options need (builder.ts) and
 * `schema/node.ts` builds on: how a global id is read, which type a `node(id:)` answer is, and the
 * refusal of an id that names no node. https://relay.dev/graphql/objectidentification.htm
 *
 * A global id is `base64("<Type>:<key>")`, @pothos/plugin-relay's encoding: the key is Zulip's own
 * id (`zulipId`) for every type but those Zulip identifies otherwise (a topic: its channel ID and
 * name; a navigation view: its fragment). Clients treat it as opaque; the gateway never trusts it:
 * a decoded id only selects a lookup, which applies the caller's own visibility rules.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import { GraphQLError, isObjectType, type GraphQLResolveInfo } from 'graphql';
import type { Context } from './context.js';
import { GatewayErrorCode } from './errors.js';
import { memoKey } from './loaders/index.js';

/** The interface every type with an identity implements. */
export const NODE_INTERFACE = 'Node';

/** A global id, decoded but not yet parsed by its type. */
export interface DecodedGlobalId {
  typename: string;
  id: string;
}

/** INVALID_GLOBAL_ID, before any upstream call: `id` is what the client sent. */
export function invalidGlobalId(globalId: string, why: string): GraphQLError {
  const shown = globalId.length > 60 ? `${globalId.slice(0, 60)}…` : globalId;
  return new GraphQLError(`${JSON.stringify(shown)} is not a global id of this API: ${why}.`, {
    extensions: { code: GatewayErrorCode.invalidGlobalId },
  });
}

/** Reads a global id (base64 of `Type:key`), refusing anything else with INVALID_GLOBAL_ID. */
export function readGlobalId(globalId: string): DecodedGlobalId {
  try {
    return decodeGlobalID(globalId);
  } catch {
    throw invalidGlobalId(globalId, 'it does not decode to a type and a key');
  }
}

/**
 * Refuses an id of a type that is not a node (unknown, or a type without identity such as
 * `Query`): the plugin would otherwise look for a loader that does not exist.
 */
export function requireNodeType(decoded: DecodedGlobalId, info: GraphQLResolveInfo): void {
  const type = info.schema.getType(decoded.typename);
  if (!isObjectType(type) || !type.getInterfaces().some((i) => i.name === NODE_INTERFACE)) {
    throw invalidGlobalId(`${decoded.typename}:${decoded.id}`, `${decoded.typename} is not a type with a global id`);
  }
}

/** The key of an integer-keyed node (every Zulip id), or INVALID_GLOBAL_ID. */
export function parseIntegerKey(typename: string, key: string): number {
  const id = /^\d{1,16}$/.test(key) ? Number(key) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw invalidGlobalId(`${typename}:${key}`, `a ${typename} key is an integer`);
  return id;
}

/**
 * Which node type each record a `node`/`nodes` field loaded is, for the `Node` interface's type
 * resolution: wire records carry no `__typename`, and branding them would alter objects that the
 * loaders and the live directory share.
 */
const nodeTypenames = memoKey<WeakMap<object, string>>('node typenames');

export function nodeTypenamesOf(ctx: Context): WeakMap<object, string> {
  return ctx.loaders.memo.value(nodeTypenames, () => new WeakMap());
}
