/**
 * Makes a type a Relay `Node`: `id` becomes its global id, and `node(id:)` / `nodes(ids:)` load it
 * again through the lookup the type's own query field uses, so the caller's visibility rules, the
 * loaders' batching and the live directory apply unchanged (see global-ids.ts for the encoding).
 *
 * Converting a type is one call next to its definition, once its own `id` field is removed (the
 * global one replaces it; `zulipId` keeps Zulip's):
 *
 * ```ts
 * asNode(UserRef, { key: (u) => u.user_id, load: (id, ctx) => ctx.loaders.user(id) });
 * asNode(DraftRef, { key: (d) => d.id, load: fromList(listDrafts, (d) => d.id, 'draft') });
 * ```
 *
 * `load` rejects with NOT_FOUND (notFoundError) for a record that does not exist or that the
 * caller cannot see, as the type's query field does.
 */
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { notFoundError } from '../errors.js';
import { nodeTypenamesOf, parseIntegerKey } from '../global-ids.js';
import { memoKey, type MemoKey } from '../loaders/index.js';
import { NODE_COST, type NodeCost } from '../upstream/cost.js';

type Key = number | string;

export interface NodeOptions<T, K extends Key> {
  /** The record's key inside its global id: Zulip's own id (a composite where Zulip has none). */
  key: (record: T) => K;
  /** Loads one record by key, rejecting as the type's own query field does (NOT_FOUND). */
  load: (key: K, ctx: Context) => Promise<T> | T;
  /**
   * How a key is read back from a global id: an integer (every Zulip id), or a string.
   * @default 'integer'
   */
  keyKind?: K extends number ? 'integer' : 'string';
  /**
   * The upstream calls loading these keys (as their global ids hold them) makes, for the budget's
   * estimate of `node`/`nodes` (upstream/cost.ts `NODE_COST`), given whether the credential's live
   * directory is warm. @default one call per key
   */
  cost?: NodeCost;
}

type BuilderObjectRef = Extract<Parameters<typeof builder.nodeRef>[0], ObjectRef<never, unknown>>;

/** Registers `ref` as a `Node` (see the file comment). */
export function asNode<T extends object, K extends Key>(ref: { name: string; $inferType: T }, options: NodeOptions<T, K>): void {
  const typename = ref.name;
  const integer = (options.keyKind ?? 'integer') === 'integer';
  builder.nodeRef(ref as unknown as BuilderObjectRef, {
    extensions: { [NODE_COST]: options.cost ?? (LISTED in options.load ? listNodeCost : undefined) },
    id: {
      resolve: (record: T) => options.key(record),
      parse: (raw: string) => (integer ? parseIntegerKey(typename, raw) : raw) as K,
    },
    // An error is this entry's answer, not the batch's: `nodes` keeps the entries that resolve.
    loadOne: async (key: K, ctx: Context) => {
      try {
        const record = await options.load(key, ctx);
        if (options.key(record) !== key) throw new Error(`The ${typename} lookup answered ${String(key)} with another record.`);
        nodeTypenamesOf(ctx).set(record, typename);
        return record;
      } catch (error) {
        return error as T;
      }
    },
  } as never);
}

/**
 * What a type loaded through its users, channels or groups loader costs: one batch, none while the
 * live directory is warm.
 */
export const lookupNodeCost: NodeCost = (_keys, warm) => (warm ? 0 : 1);

/** Marks a {@link fromList} load: its type costs one call, its list, whatever the number of ids. */
const LISTED = Symbol('listed');

/** What a {@link fromList} type costs: its list, once. */
export const listNodeCost: NodeCost = () => 1;

/**
 * A `load` for a type the server only lists (drafts, linkifiers...): the list is fetched once per
 * request, however many ids ask for it, then searched. `what` names the record in NOT_FOUND.
 */
export function fromList<T, K extends Key = number>(
  list: (ctx: Context) => Promise<readonly T[]>,
  keyOf: (record: T) => K,
  what: string,
): (key: K, ctx: Context) => Promise<T> {
  const memo: MemoKey<readonly T[]> = memoKey(`node list: ${what}`);
  const load = async (key: K, ctx: Context) => {
    const records = await ctx.loaders.memo.get(memo, () => list(ctx));
    const record = records.find((r) => keyOf(r) === key);
    if (record === undefined) throw notFoundError(`No ${what} with ID ${String(key)} exists or is visible to you.`);
    return record;
  };
  return Object.assign(load, { [LISTED]: true as const });
}
