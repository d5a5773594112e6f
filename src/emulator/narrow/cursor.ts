/** A merged walk over ascending id lists, the core of the windowed search. */

/**
 * Ids from ascending lists, merged, walking down from below `start` (exclusive) or up from above
 * it. One list walks directly; several go through a small binary heap keyed by each list's head.
 */
export class MergedCursor {
  private readonly positions: number[];
  private readonly heap: number[] = [];
  private readonly step: number;

  constructor(
    private readonly sources: (readonly number[])[],
    start: number,
    private readonly down: boolean,
  ) {
    this.step = down ? -1 : 1;
    // Position of the first element to yield in each list.
    this.positions = sources.map((list) => {
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (down ? list[mid]! < start : list[mid]! <= start) lo = mid + 1;
        else hi = mid;
      }
      return down ? lo - 1 : lo;
    });
    if (sources.length > 1) {
      for (let k = 0; k < sources.length; k++) {
        if (this.inRange(k)) {
          this.heap.push(k);
          this.siftUp(this.heap.length - 1);
        }
      }
    }
  }

  /** The next id, or -1 when every list is exhausted. */
  next(): number {
    if (this.sources.length === 1) {
      const list = this.sources[0]!;
      const i = this.positions[0]!;
      if (i < 0 || i >= list.length) return -1;
      this.positions[0] = i + this.step;
      return list[i]!;
    }
    const heap = this.heap;
    if (heap.length === 0) return -1;
    const k = heap[0]!;
    const id = this.head(k);
    this.positions[k]! += this.step;
    if (!this.inRange(k)) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    if (heap.length > 0) this.siftDown(0);
    return id;
  }

  private inRange(k: number): boolean {
    const i = this.positions[k]!;
    return i >= 0 && i < this.sources[k]!.length;
  }

  private head(k: number): number {
    return this.sources[k]![this.positions[k]!]!;
  }

  /** Whether list a's head comes before list b's (larger first going down, smaller going up). */
  private before(a: number, b: number): boolean {
    return this.down ? this.head(a) > this.head(b) : this.head(a) < this.head(b);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && this.before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && this.before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
}
