/**
 * The two lifetimes of cached values, so that no module holds mutable state:
 * - {@link SharedValue}: one value per gateway instance (hung off `UpstreamServer` in upstream/server.ts),
 *   for facts about the chat server that are the same for every caller (feature level, presence
 *   offline threshold). Never anything fetched with credentials.
 * - {@link RequestMemo}: values computed at most once per request (hung off the request's
 *   loaders), keyed by typed {@link MemoKey}s the schema modules declare.
 */

/**
 * A value fetched on first use and shared afterwards. The promise is kept, so concurrent first
 * callers make one call; a failure is dropped so that the next caller retries.
 */
export class SharedValue<T> {
  #value: Promise<T> | undefined;

  get(fetch: () => Promise<T>): Promise<T> {
    if (this.#value) return this.#value;
    const value = fetch();
    this.#value = value;
    value.catch(() => {
      if (this.#value === value) this.#value = undefined;
    });
    return value;
  }

  /** Forgets the value, e.g. after the server was upgraded. */
  forget(): void {
    this.#value = undefined;
  }
}

/** Names one per-request value and its type; declare one per use as a module constant. */
export interface MemoKey<T> {
  readonly name: string;
  /** Type marker only; never set. */
  readonly type?: T;
}

export function memoKey<T>(name: string): MemoKey<T> {
  return Object.freeze({ name });
}

/** Values computed at most once per request (failures included: a request does not retry). */
export class RequestMemo {
  readonly #values = new Map<MemoKey<unknown>, unknown>();

  /** The value under `key`, computed by `fetch` the first time (or again when `fresh`). */
  get<T>(key: MemoKey<T>, fetch: () => Promise<T>, fresh = false): Promise<T> {
    let value = fresh ? undefined : (this.#values.get(key) as Promise<T> | undefined);
    if (!value) {
      value = fetch();
      this.#values.set(key, value);
    }
    return value;
  }

  /** The value for `id` in the per-request table under `key`, computed by `fetch` the first time for that id. */
  getFor<K, T>(key: MemoKey<Map<K, Promise<T>>>, id: K, fetch: () => Promise<T>): Promise<T> {
    const table = this.value(key, () => new Map<K, Promise<T>>());
    let value = table.get(id);
    if (!value) {
      value = fetch();
      table.set(id, value);
    }
    return value;
  }

  /** A synchronous per-request value (e.g. a lookup table), made by `create` on first use. */
  value<T>(key: MemoKey<T>, create: () => T): T {
    if (!this.#values.has(key)) this.#values.set(key, create());
    return this.#values.get(key) as T;
  }
}
