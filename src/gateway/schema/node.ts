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
}

type BuilderObjectRef = Extract<Parameters<typeof builder.nodeRef>[0], ObjectRef<never, unknown>>;

/** Registers `ref` as a `Node` (see the file comment). */
export function asNode<T extends object, K extends Key>(ref: { name: string; $inferType: T }, options: NodeOptions<T, K>): void {
  const typename = ref.name;
  const integer = (options.keyKind ?? 'integer') === 'integer';
  builder.nodeRef(ref as unknown as BuilderObjectRef, {
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
 * A `load` for a type the server only lists (drafts, linkifiers...): the list is fetched once per
 * request, however many ids ask for it, then searched. `what` names the record in NOT_FOUND.
 */
export function fromList<T, K extends Key = number>(
  list: (ctx: Context) => Promise<readonly T[]>,
  keyOf: (record: T) => K,
  what: string,
): (key: K, ctx: Context) => Promise<T> {
  const memo: MemoKey<readonly T[]> = memoKey(`node list: ${what}`);
  return async (key, ctx) => {
    const records = await ctx.loaders.memo.get(memo, () => list(ctx));
    const record = records.find((r) => keyOf(r) === key);
    if (record === undefined) throw notFoundError(`No ${what} with ID ${String(key)} exists or is visible to you.`);
    return record;
  };
}
