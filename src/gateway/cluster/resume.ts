/**
 * Joins a replay from the log with live delivery for one resuming subscriber, exactly once and
 * in order.
 *
 * In cluster mode an instance follows each credential's log once (tail.ts) and fans entries out
 * to its subscribers; a subscriber resuming with a cursor needs the entries after it from the log
 * (stream.ts `since`), which is read asynchronously. The subscriber is attached to live delivery
 * first, so nothing can fall between the two: live entries that arrive before the replay is read
 * are held, and those the replay already contains (sequence number at or below its end) are
 * dropped when it opens.
 */
export class ResumeGate<T extends { seq: number }> {
  #held: T[] | undefined = [];
  #last = 0;

  constructor(private readonly deliver: (item: T) => void) {}

  /** Whether {@link open} has run. */
  get opened(): boolean {
    return this.#held === undefined;
  }

  /** A live entry: held until the replay opens the gate, then delivered unless already seen. */
  live(item: T): void {
    if (this.#held) return void this.#held.push(item);
    if (item.seq > this.#last) this.#emit(item);
  }

  /**
   * Delivers the replayed entries, then the held live entries that come after them. With
   * `replayEnd` the live entries up to that sequence number are taken as replayed too (the log's
   * newest entry when the replay was read, even when the filter left nothing to replay).
   */
  open(replayed: readonly T[], replayEnd = 0): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const item of replayed) this.#emit(item);
    this.#last = Math.max(this.#last, replayEnd);
    for (const item of held) if (item.seq > this.#last) this.#emit(item);
  }

  /** Opens the gate without a replay (a resync was sent instead): only entries after `from` follow. */
  skip(from: number): void {
    this.open([], from);
  }

  #emit(item: T): void {
    this.#last = Math.max(this.#last, item.seq);
    this.deliver(item);
  }
}
