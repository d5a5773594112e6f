/**
 * A map from IDs to interned wire objects, itself shared between credentials in chunks.
 *
 * Interning the objects alone is not enough: 1,000 credentials each holding a 20,000-entry Map of
 * pointers would cost more than the objects. So IDs are grouped in chunks of {@link CHUNK_SIZE}
 * consecutive IDs; a chunk is an immutable Map interned by its exact content (the ID and the
 * identity of each interned object), and a directory holds only one pointer per chunk. An event
 * replaces one object in one chunk: the chunk is copied (at most CHUNK_SIZE entries), re-interned,
 * and every credential that applies the same event converges on the same new chunk.
 *
 * References: a chunk holds one reference on each of its objects; a map holds one on each chunk.
 */
import type { InternTable } from './intern.js';

const CHUNK_BITS = 8;
/** IDs per chunk: small enough that a copy per event is cheap, large enough that maps stay tiny. */
const CHUNK_SIZE = 1 << CHUNK_BITS;
/** Estimated bytes of one entry of a chunk (key, pointer, hash table slot). */
const ENTRY_BYTES = 40;
/** Estimated bytes of one chunk pointer in a directory's map. */
const CHUNK_POINTER_BYTES = 80;

interface Chunk<V> {
  /** Entries in ascending ID order (insertion order), never modified once interned. */
  readonly entries: ReadonlyMap<number, V>;
  readonly signature: string;
  refs: number;
}

export interface ChunkStats {
  chunks: number;
  /** Estimated bytes of the distinct chunks' entries. */
  bytes: number;
}

/** The distinct chunks of every directory of a gateway instance, by signature. */
export class ChunkTable {
  private readonly bySignature = new Map<string, Chunk<object>>();
  private bytes = 0;

  constructor(readonly objects: InternTable) {}

  /**
   * The shared chunk with exactly these entries, in ascending ID order. Values may be fresh or
   * already interned; the returned chunk holds one reference on each of its values.
   */
  take<V extends object>(entries: Map<number, V>): Chunk<V> | undefined {
    if (entries.size === 0) return undefined;
    // Fresh values are interned first (they may turn out to be shared objects), then the signature
    // names each value by its identity; only a chunk not known yet takes references on the others.
    const fresh = new Set<V>();
    let signature = '';
    for (const [id, value] of entries) {
      let seq = this.objects.seqOf(value);
      if (seq === 0) {
        const interned = this.objects.intern(value);
        entries.set(id, interned);
        fresh.add(interned);
        seq = this.objects.seqOf(interned);
      }
      signature += `${id}:${seq},`;
    }
    const known = this.bySignature.get(signature) as Chunk<V> | undefined;
    if (known) {
      known.refs++;
      for (const value of fresh) this.objects.release(value);
      return known;
    }
    for (const value of entries.values()) if (!fresh.delete(value)) this.objects.intern(value);
    const chunk: Chunk<V> = { entries, signature, refs: 1 };
    this.bySignature.set(signature, chunk);
    this.bytes += entries.size * ENTRY_BYTES + signature.length;
    return chunk;
  }

  release(chunk: Chunk<object>): void {
    if (--chunk.refs > 0) return;
    this.bySignature.delete(chunk.signature);
    this.bytes -= chunk.entries.size * ENTRY_BYTES + chunk.signature.length;
    for (const value of chunk.entries.values()) this.objects.release(value);
  }

  stats(): ChunkStats {
    return { chunks: this.bySignature.size, bytes: this.bytes };
  }
}

const bucketOf = (id: number) => Math.floor(id / CHUNK_SIZE);

export class InternedMap<V extends object> {
  private readonly chunks = new Map<number, Chunk<V>>();
  private count = 0;

  constructor(private readonly table: ChunkTable) {}

  get size(): number {
    return this.count;
  }

  /** Estimated bytes this map holds of its own (chunk pointers; the chunks are shared). */
  get ownBytes(): number {
    return this.chunks.size * CHUNK_POINTER_BYTES;
  }

  get(id: number): V | undefined {
    return this.chunks.get(bucketOf(id))?.entries.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  /** Values in ascending ID order. */
  *values(): IterableIterator<V> {
    for (const bucket of [...this.chunks.keys()].sort((a, b) => a - b)) yield* this.chunks.get(bucket)!.entries.values();
  }

  /** Stores many values at once (a load): one chunk per bucket instead of one copy per value. */
  setAll(values: Iterable<[number, V]>): void {
    const byBucket = new Map<number, [number, V][]>();
    for (const pair of values) {
      const bucket = bucketOf(pair[0]);
      const list = byBucket.get(bucket);
      if (list) list.push(pair);
      else byBucket.set(bucket, [pair]);
    }
    for (const [bucket, pairs] of byBucket) {
      this.rewrite(bucket, (entries) => {
        for (const [id, value] of pairs) entries.set(id, value);
      });
    }
  }

  /** Stores `value` (fresh, or an already interned object) under `id`, releasing what was there. */
  set(id: number, value: V): V {
    this.rewrite(bucketOf(id), (entries) => {
      entries.set(id, value);
    });
    return this.get(id)!;
  }

  /**
   * Copy-on-write: `change` edits a private deep copy, which replaces the shared object.
   * @returns the new object, or undefined when `id` is not held
   */
  update(id: number, change: (copy: V) => void): V | undefined {
    const old = this.get(id);
    if (!old) return undefined;
    const copy = structuredClone(old);
    change(copy);
    return this.set(id, copy);
  }

  delete(id: number): V | undefined {
    const old = this.get(id);
    if (!old) return undefined;
    this.rewrite(bucketOf(id), (entries) => {
      entries.delete(id);
    });
    return old;
  }

  clear(): void {
    for (const chunk of this.chunks.values()) this.table.release(chunk);
    this.chunks.clear();
    this.count = 0;
  }

  /**
   * Builds the bucket's new content from a copy of the old, takes the shared chunk for it and
   * releases the old chunk.
   */
  private rewrite(bucket: number, edit: (entries: Map<number, V>) => void): void {
    const old = this.chunks.get(bucket);
    const draft = new Map(old?.entries);
    edit(draft);
    const entries = new Map<number, V>();
    for (const id of [...draft.keys()].sort((a, b) => a - b)) entries.set(id, draft.get(id)!);
    const chunk = this.table.take(entries);
    if (chunk) this.chunks.set(bucket, chunk);
    else this.chunks.delete(bucket);
    this.count += entries.size - (old?.entries.size ?? 0);
    if (old) this.table.release(old as Chunk<object>);
  }
}
