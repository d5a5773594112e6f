/**
 * The replay buffer of one credential's event stream, and the cursors that point into it.
 *
 * Every event the hub fans out is appended here with the next sequence number of the stream. A
 * cursor names a stream (its random generation id) and a sequence number; a client that comes
 * back with the last cursor it saw gets every later entry replayed, as long as the buffer still
 * holds the entry right after it. The buffer is bounded by count and by age, so a client that was
 * away too long is told to resync instead.
 */

/** One position in one event stream. Opaque to clients. */
export interface Cursor {
  /** Random id of the stream (a new one whenever the hub starts a session for a credential). */
  generation: string;
  /** Sequence number of the entry, 1 for the first one; 0 means "before any entry". */
  seq: number;
}

const CURSOR_PREFIX = 'cg1:';

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${CURSOR_PREFIX}${cursor.generation}:${cursor.seq}`, 'utf8').toString('base64url');
}

/** The cursor a string encodes, or undefined when it is not one of ours. */
export function decodeCursor(text: string): Cursor | undefined {
  if (text.length === 0 || text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = /^cg1:([A-Za-z0-9_-]{1,64}):(\d{1,15})$/.exec(decoded);
  if (!match) return undefined;
  return { generation: match[1]!, seq: Number(match[2]) };
}

export interface ReplayBufferOptions {
  /** Most entries kept. @default 1000 */
  maxEntries?: number;
  /** Entries older than this are dropped. @default 300_000 (5 minutes) */
  maxAgeMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export interface Entry<T> {
  seq: number;
  at: number;
  value: T;
}

export type Replay<T> = { entries: Entry<T>[] } | { expired: true };

export class ReplayBuffer<T> {
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  // A plain array with a moving start index: appends and trims are O(1) amortised.
  private items: Entry<T>[] = [];
  private start = 0;
  private nextSeq = 1;

  constructor(options: ReplayBufferOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.maxAgeMs = options.maxAgeMs ?? 300_000;
    this.now = options.now ?? Date.now;
  }

  /** Sequence number of the newest entry; 0 before the first. */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Number of entries held. */
  get size(): number {
    return this.items.length - this.start;
  }

  append(value: T): Entry<T> {
    const entry: Entry<T> = { seq: this.nextSeq++, at: this.now(), value };
    this.items.push(entry);
    this.trim();
    return entry;
  }

  /**
   * Entries after `seq`, oldest first; `expired` when some entry after `seq` was already dropped
   * (the gap cannot be filled). `seq` beyond the newest entry is treated as expired too: it was
   * never handed out by this stream.
   */
  since(seq: number): Replay<T> {
    this.trim();
    if (seq > this.lastSeq) return { expired: true };
    const oldest = this.size > 0 ? this.items[this.start]!.seq : this.nextSeq;
    if (seq + 1 < oldest) return { expired: true };
    return { entries: this.items.slice(this.start + (seq + 1 - oldest)) };
  }

  private trim(): void {
    const cutoff = this.now() - this.maxAgeMs;
    while (this.size > this.maxEntries || (this.size > 0 && this.items[this.start]!.at < cutoff)) this.start++;
    // Compact once the dead prefix dominates, so memory stays proportional to what is held.
    if (this.start > 1024 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }
}
