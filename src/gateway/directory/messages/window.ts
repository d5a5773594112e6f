/**
 * One message window of the cache: every message matching the window's narrow with an ID between
 * `from` and `to` (both inclusive; `from` 0 means "from the oldest", `to` Infinity "to the
 * newest"), as `GET /messages` (https://zulip.com/api/get-messages) sent them and the credential's
 * events changed them since. A window answers any anchor request that falls inside it, with the
 * same `found_*` flags the server would compute (the server looks one message beyond each side).
 *
 * Windows never change a message in place: a request may be reading the previous version.
 */
import type { GetMessagesResult, Message } from '../../../zulip/model/messages.js';

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor `newest` stands for. */
export const NEWEST_ANCHOR = 10_000_000_000_000_000;

/** A `GET /messages` anchor request (the gateway always includes the anchor upstream). */
export interface WindowQuery {
  anchor: number | 'newest' | 'oldest';
  numBefore: number;
  numAfter: number;
}

/** Estimated heap bytes per character of a message's JSON (as the directory estimates records). */
const BYTES_PER_CHAR = 3;
/** The window object, its array and bookkeeping. */
const WINDOW_BYTES = 512;

function anchorId(anchor: WindowQuery['anchor']): number {
  if (anchor === 'newest') return NEWEST_ANCHOR;
  if (anchor === 'oldest') return 0;
  return Math.min(Math.max(anchor, 0), NEWEST_ANCHOR);
}

function sizeOf(message: Message): number {
  return JSON.stringify(message).length * BYTES_PER_CHAR;
}

export class MessageWindow {
  /** Ascending by ID. */
  private messages: readonly Message[];
  private readonly sizes = new Map<number, number>();
  bytes = WINDOW_BYTES;

  private constructor(
    messages: readonly Message[],
    private readonly from: number,
    private readonly to: number,
    /**
     * Whether a matching message is known to exist below `from` (the server said `found_oldest:
     * false`) / above `to`; forgotten when a message beyond the range is deleted (it may have been that one).
     */
    private olderBeyond: boolean,
    private newerBeyond: boolean,
  ) {
    this.messages = messages;
    for (const message of messages) this.account(message);
  }

  /**
   * The window a `GET /messages` answer covers, or undefined when it cannot be kept (no numeric
   * anchor in the answer: an old server; `history_limited`: the plan hides older history).
   */
  static fromResult(query: WindowQuery, result: GetMessagesResult): MessageWindow | undefined {
    if (typeof result.anchor !== 'number' || result.history_limited) return undefined;
    const anchor = result.anchor;
    if (query.anchor !== 'newest' && query.anchor !== 'oldest' && anchor !== anchorId(query.anchor)) return undefined;
    const messages = [...result.messages].sort((a, b) => a.id - b.id);
    const before = messages.filter((m) => m.id < anchor);
    const after = messages.filter((m) => m.id > anchor);
    const from = result.found_oldest ? 0 : (before[0]?.id ?? anchor);
    const to = result.found_newest ? Number.POSITIVE_INFINITY : (after.at(-1)?.id ?? anchor);
    return new MessageWindow(messages, from, to, from > 0, to !== Number.POSITIVE_INFINITY);
  }

  get size(): number {
    return this.messages.length;
  }

  /** The answer the server would give to `query` now, or undefined when the window does not cover it. */
  answer(query: WindowQuery): GetMessagesResult | undefined {
    const anchor = anchorId(query.anchor);
    if (anchor < this.from || anchor > this.to) return undefined;
    const all = this.messages;
    // First index with id >= anchor.
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (all[mid]!.id < anchor) lo = mid + 1;
      else hi = mid;
    }
    const atAnchor = all[lo]?.id === anchor && anchor > 0 && anchor < NEWEST_ANCHOR ? all[lo] : undefined;
    const belowCount = lo;
    const aboveStart = atAnchor ? lo + 1 : lo;
    const aboveCount = all.length - aboveStart;

    let foundOldest: boolean;
    let first: number;
    if (anchor <= 0) (foundOldest = true), (first = lo);
    else if (belowCount > query.numBefore || (belowCount === query.numBefore && this.olderBeyond)) (foundOldest = false), (first = lo - query.numBefore);
    else if (this.from === 0) (foundOldest = true), (first = 0);
    else return undefined;

    let foundNewest: boolean;
    let end: number;
    if (anchor >= NEWEST_ANCHOR) (foundNewest = true), (end = aboveStart);
    else if (aboveCount > query.numAfter || (aboveCount === query.numAfter && this.newerBeyond)) (foundNewest = false), (end = aboveStart + query.numAfter);
    else if (this.to === Number.POSITIVE_INFINITY) (foundNewest = true), (end = all.length);
    else return undefined;

    return {
      anchor,
      found_anchor: atAnchor !== undefined,
      found_oldest: foundOldest,
      found_newest: foundNewest,
      history_limited: false,
      messages: all.slice(first, end),
    };
  }

  has(id: number): boolean {
    return this.indexOf(id) >= 0;
  }

  /** IDs held, for the change hook. */
  ids(): number[] {
    return this.messages.map((m) => m.id);
  }

  /** Whether any held message satisfies `test`. */
  some(test: (message: Message) => boolean): boolean {
    return this.messages.some(test);
  }

  /** Adds a new message inside the range (a no-op when held already or outside it); true if added. */
  insert(message: Message): boolean {
    if (message.id < this.from || message.id > this.to || this.has(message.id)) return false;
    const next = [...this.messages];
    let i = next.length;
    while (i > 0 && next[i - 1]!.id > message.id) i--;
    next.splice(i, 0, message);
    this.messages = next;
    this.account(message);
    return true;
  }

  /** Removes the messages with these IDs; returns those that were held. */
  remove(ids: ReadonlySet<number>): number[] {
    for (const id of ids) {
      if (id < this.from) this.olderBeyond = false;
      if (id > this.to) this.newerBeyond = false;
    }
    const removed = this.messages.filter((m) => ids.has(m.id)).map((m) => m.id);
    if (removed.length === 0) return removed;
    this.messages = this.messages.filter((m) => !ids.has(m.id));
    for (const id of removed) {
      this.bytes -= this.sizes.get(id) ?? 0;
      this.sizes.delete(id);
    }
    return removed;
  }

  /** Replaces a held message by `update(message)` (a new object); false when it is not held. */
  replace(id: number, update: (message: Message) => Message): boolean {
    const i = this.indexOf(id);
    if (i < 0) return false;
    const next = [...this.messages];
    const updated = update(next[i]!);
    next[i] = updated;
    this.messages = next;
    this.bytes -= this.sizes.get(id) ?? 0;
    this.account(updated);
    return true;
  }

  private account(message: Message): void {
    const size = sizeOf(message);
    this.sizes.set(message.id, size);
    this.bytes += size;
  }

  private indexOf(id: number): number {
    let lo = 0;
    let hi = this.messages.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.messages[mid]!.id;
      if (at === id) return mid;
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
