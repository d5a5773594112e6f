/**
 * A refcounted intern table for the directory's wire objects, shared by every credential of one
 * gateway instance.
 *
 * Two credentials share an object only when the server sent them byte-identical JSON: the key is a
 * hash of the exact serialization, and a hit is confirmed by comparing the full serialization, so a
 * hash collision can never hand one credential another's data (a user's `delivery_email` differs
 * between an administrator's and a guest's copy, and then the two are simply not shared).
 *
 * Interned objects are deep-frozen: a directory never edits one in place, it builds the changed copy,
 * interns it and releases the old one (copy-on-write), so a change seen by one credential never leaks
 * into another's view.
 */

/**
 * Estimated heap bytes per JSON character of an interned object: V8 keeps keys in shared hidden
 * classes and short strings one byte per character, but every property slot, number and string
 * header costs more than its text. Rounded up from what user records take (docs/operations.md, "Live
 * directory"): an estimate too low would let the directories outgrow their memory cap.
 */
const BYTES_PER_JSON_CHAR = 3;

/**
 * A 53-bit hash of a serialization (two 32-bit FNV-1a variants). Not cryptographic on purpose:
 * it only picks the bucket, and a hit is confirmed by full comparison, so a collision (even a
 * crafted one) costs a comparison, never a wrong answer.
 */
function jsonHash(json: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  return (h1 >>> 0) + (h2 & 0x1fffff) * 0x100000000;
}

interface Entry {
  value: object;
  /** Never reused: identifies this exact object in chunk signatures (interned-map.ts). */
  seq: number;
  hash: number;
  refs: number;
  bytes: number;
}

export interface InternStats {
  /** Distinct objects held. */
  objects: number;
  /** Estimated bytes of the distinct objects. */
  bytes: number;
  /** Interns that found an identical object already held (memory shared). */
  shared: number;
  /** Interns that stored a new object. */
  stored: number;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * True when `a` and `b` serialize to the same JSON: same keys in the same order, same values
 * (JSON-safe values only, as parsed from a response). Cheaper than serializing both.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

export class InternTable {
  private readonly byHash = new Map<number, Entry[]>();
  private readonly byValue = new WeakMap<object, Entry>();
  private counts = { objects: 0, bytes: 0, shared: 0, stored: 0 };
  private nextSeq = 1;

  /**
   * Returns the shared, frozen instance equal byte-for-byte to `value` (taking a reference), or
   * freezes and stores `value` itself. `value` must be fresh: the caller gives up ownership.
   */
  intern<T extends object>(value: T): T {
    const known = this.byValue.get(value);
    if (known) {
      known.refs++;
      return value;
    }
    const json = JSON.stringify(value);
    const hash = jsonHash(json);
    const bucket = this.byHash.get(hash);
    // Full comparison: equal hashes alone are never trusted.
    const match = bucket?.find((entry) => sameJson(entry.value, value));
    if (match) {
      match.refs++;
      this.counts.shared++;
      return match.value as T;
    }
    const entry: Entry = { value: deepFreeze(value), seq: this.nextSeq++, hash, refs: 1, bytes: json.length * BYTES_PER_JSON_CHAR };
    if (bucket) bucket.push(entry);
    else this.byHash.set(hash, [entry]);
    this.byValue.set(value, entry);
    this.counts.objects++;
    this.counts.bytes += entry.bytes;
    this.counts.stored++;
    return value;
  }

  /** Drops one reference taken by {@link intern}; the object is forgotten with its last reference. */
  release(value: object): void {
    const entry = this.byValue.get(value);
    if (!entry || --entry.refs > 0) return;
    this.byValue.delete(value);
    const bucket = this.byHash.get(entry.hash)!;
    const rest = bucket.filter((e) => e !== entry);
    if (rest.length > 0) this.byHash.set(entry.hash, rest);
    else this.byHash.delete(entry.hash);
    this.counts.objects--;
    this.counts.bytes -= entry.bytes;
  }

  /** References held on `value` (0 when not interned); for tests and diagnostics. */
  refs(value: object): number {
    return this.byValue.get(value)?.refs ?? 0;
  }

  /** The identity of an interned object (0 when not interned). */
  seqOf(value: object): number {
    return this.byValue.get(value)?.seq ?? 0;
  }

  /** Estimated bytes of `value` if interned, else 0. */
  bytesOf(value: object): number {
    return this.byValue.get(value)?.bytes ?? 0;
  }

  stats(): InternStats {
    return { ...this.counts };
  }
}
