/**
 * What a field costs upstream, declared among its facts (facts.ts) beside `reaches`:
 *
 *   topics: t.field({ ..., zulip: { cost: { each: 1 } }, resolve }),
 *   creator: t.field({ ..., zulip: { cost: { perBatch: 1, directory: true } }, resolve }),
 *
 * upstream/estimate.ts reads these before an operation runs to estimate its upstream calls
 * (plugins/upstream-budget.ts refuses what is over the cap or the credential's budget). A field
 * without a declaration gets the default rule ({@link defaultCost}), so new fields are priced
 * without edits: a root field is one call, a field that declares `reaches(...)` is one call each
 * time it resolves, any other field resolves from its parent for free (test/gateway/facts.test.ts makes
 * every field whose resolver takes the context declare its facts). Declare a cost when a field
 * shares its call (a per-request loader or memo), is answered by the live directory, or is a list
 * whose size bounds the calls made under it. The list-size vocabulary follows the GraphQL cost
 * directive `@listSize` (assumedSize, slicingArguments, sizedFields): https://ibm.github.io/graphql-specs/cost-spec.html
 * The extension is invisible in the SDL.
 */
import type { GraphQLField, GraphQLSchema } from 'graphql';

/** What the live directory counts, for list sizes while it is warm. */
export type DirectoryCount = 'users' | 'channels' | 'subscriptions' | 'userGroups';

/** How many items a list field holds, for the fields selected under it (the first rule that applies). */
export interface ListSize {
  /** Arguments that bound the list (the first one given wins), e.g. `['limit']`; a list argument by its length. */
  slicingArguments?: readonly string[];
  /** The live directory's count of these, while it is warm for the credential. */
  directory?: DirectoryCount;
  /** The bound otherwise. @default DEFAULT_LIST_SIZE */
  assumedSize?: number;
  /** The list is not the field itself but these fields of its type (a connection's `edges` and `nodes`). */
  sizedFields?: readonly string[];
}

export interface UpstreamCost {
  /** Calls each resolution of the field makes, so once per item of every list above it. */
  each?: number;
  /**
   * Calls per DataLoader batch: the items resolved together (those of one upstream answer) share
   * one batch, so this counts once per group of parents that arrive together, not per item.
   */
  perBatch?: number;
  /** A value fetched at most once per operation (a per-request memo or a loader's one bulk call), by key. */
  once?: { key: string; calls: number };
  /** Answered from the credential's live directory without a call while it is warm. */
  directory?: boolean;
  /** The size of the list the field returns. */
  size?: ListSize;
  /**
   * Calls as a function of the field's arguments (counted once per item of every list above it),
   * instead of `each`: `node`/`nodes`, whose calls depend on the types of the ids they are given.
   */
  byArguments?: (args: Record<string, unknown>, schema: GraphQLSchema, warm: boolean) => number;
  /**
   * A login attempt (an anonymous call made for the client, whatever credentials it sent): each
   * resolution counts toward the client address's limit (plugins/upstream-budget.ts).
   */
  login?: boolean;
}

/** The object type extension under which `asNode` declares what loading its keys costs (schema/node.ts). */
export const NODE_COST = 'nodeCost';

/** Upstream calls loading `keys` of one node type makes (keys as global ids hold them). */
export type NodeCost = (keys: readonly string[], warm: boolean) => number;

/**
 * `node(id:)` / `nodes(ids:)`: the global ids grouped by type, each type's keys priced by its
 * `asNode` declaration (one call per key when it declares none). An id that is not a global id of
 * a node costs nothing: it is refused before any call.
 */
export const nodeLookupCost: UpstreamCost = {
  byArguments: (args, schema, warm) => {
    const ids = Array.isArray(args.ids) ? args.ids : args.id !== undefined ? [args.id] : [];
    const byType = new Map<string, string[]>();
    for (const id of ids) {
      const decoded = decodeNodeId(id);
      if (!decoded) continue;
      const keys = byType.get(decoded.typename) ?? [];
      keys.push(decoded.key);
      byType.set(decoded.typename, keys);
    }
    let calls = 0;
    for (const [typename, keys] of byType) {
      const type = schema.getType(typename);
      if (!type) continue;
      const cost = nodeCostOf(type.extensions);
      calls += cost ? cost(keys, warm) : keys.length;
    }
    return calls;
  },
  size: { slicingArguments: ['ids'] },
};

/**
 * The `asNode` declaration of a type: Pothos keeps a node type's own options (their `extensions`
 * included) under `pothosOptions` rather than in the type's extensions.
 */
function nodeCostOf(extensions: Readonly<Record<string, unknown>>): NodeCost | undefined {
  const options = extensions.pothosOptions as { extensions?: Record<string, unknown> } | undefined;
  return (extensions[NODE_COST] ?? options?.extensions?.[NODE_COST]) as NodeCost | undefined;
}

/** `Type:key` of a global id as the relay plugin parsed it (`{ typename, id }`) or as sent (base64). */
function decodeNodeId(id: unknown): { typename: string; key: string } | undefined {
  if (id !== null && typeof id === 'object' && 'typename' in id && 'id' in id) return { typename: String(id.typename), key: String(id.id) };
  if (typeof id !== 'string') return undefined;
  const text = Buffer.from(id, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon > 0 ? { typename: text.slice(0, colon), key: text.slice(colon + 1) } : undefined;
}

/** Items assumed in a list that declares no size, for the calls made under each item. */
export const DEFAULT_LIST_SIZE = 100;

/**
 * The cost of a field without a declaration: a root field (it has no parent to resolve from) is
 * one call; a field that declares the Zulip operations it reaches is one call each time it
 * resolves; any other field resolves from its parent.
 */
export function defaultCost(field: GraphQLField<unknown, unknown>, root: boolean): UpstreamCost {
  return root || declared(field)?.reaches !== undefined ? { each: 1 } : {};
}

/** The field's declared cost, or the default. */
export function costOf(field: GraphQLField<unknown, unknown>, root: boolean): UpstreamCost {
  return declared(field)?.cost ?? defaultCost(field, root);
}

/** The part of a field's facts (facts.ts, `extensions.zulip`) the cost reads. */
function declared(field: GraphQLField<unknown, unknown>): { cost?: UpstreamCost; reaches?: readonly string[] } | undefined {
  return field.extensions.zulip as { cost?: UpstreamCost; reaches?: readonly string[] } | undefined;
}

/** A field that never calls upstream, though its resolver reads the context (the live directory, the request). */
export const NO_CALL: UpstreamCost = {};

/** A user through the request's users loader: one call per batch, none while the directory is warm. */
export const userLookupCost: UpstreamCost = { perBatch: 1, directory: true };

/** A channel through the request's channels loader: one `GET /streams` per operation, none while the directory is warm. */
export const channelLookupCost: UpstreamCost = { once: { key: 'channels', calls: 1 }, directory: true };

/** A user group through the request's loader: one `GET /user_groups` per operation, none while the directory is warm. */
export const userGroupLookupCost: UpstreamCost = { once: { key: 'user groups', calls: 1 }, directory: true };

/** A login (`fetchApiKey`): one anonymous call, a password attempt, counted per alias toward the client address's limit. */
export const LOGIN_COST: UpstreamCost = { each: 1, login: true };
