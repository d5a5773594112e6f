/**
 * Shares one source stream among identical consumers: the mechanism behind plugins/share-subscriptions.ts.
 *
 * A consumer that joins later starts at the next result, which is what a fresh subscription would
 * see. The source is read as fast as it produces (never waiting for a consumer), and each consumer
 * has its own bounded backlog: one that falls more than `limit` results behind gets `overflow()`
 * as its last result and ends, without slowing the others or the source. The source is returned
 * (ending its subscription) when its last consumer leaves.
 *
 * A consumer may also have a {@link Sink}: while its reader waits for the next result (so nothing
 * of it is in flight), a result the sink takes is written there in the source's own turn and never
 * queued or read; the others are read as usual. With thousands of consumers on one source, this is
 * what keeps the cost of a result close to one socket write per consumer.
 */

export interface MulticastOptions<T> {
  /** Results a consumer may have waiting before it is ended. */
  limit: number;
  /** The last result a consumer that fell behind receives. */
  overflow: () => T;
}

/** Where a consumer's results may be written directly (a WebSocket: transport/next-frames.ts). */
export interface Sink<T> {
  /** Writes `value` now and returns true, or returns false to have it read through the iterator instead. */
  tryWrite(value: T): boolean;
}

const DONE = { done: true, value: undefined } as const;

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

/** One consumer's end: a bounded queue read as an async iterator. */
class Consumer<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private ending = false;
  private failure: unknown;

  constructor(
    private readonly options: MulticastOptions<T>,
    private readonly leave: (consumer: Consumer<T>) => void,
    private readonly sink?: Sink<T>,
  ) {}

  /** Results waiting to be read. */
  get backlog(): number {
    return this.items.length - this.head;
  }

  push(value: T): void {
    if (this.ending) return;
    // A waiting reader has nothing queued nor in flight: writing now keeps the order.
    if (this.waiter && this.sink?.tryWrite(value)) return;
    if (this.backlog >= this.options.limit) {
      // Drops what is queued; the overflow result is the last one read.
      this.items = [this.options.overflow()];
      this.head = 0;
      this.end();
      return;
    }
    const waiter = this.take();
    if (waiter) waiter.resolve({ done: false, value });
    else this.items.push(value);
  }

  /** No more results: finish after what is queued (throwing `error` last, if given). */
  end(error?: unknown): void {
    if (this.ending) return;
    this.ending = true;
    this.failure = error;
    this.leave(this);
    const waiter = this.take(); // a waiting reader has nothing queued
    if (!waiter) return;
    if (this.backlog > 0) waiter.resolve({ done: false, value: this.shift() });
    else if (this.failure === undefined) waiter.resolve(DONE);
    else waiter.reject(this.consumeFailure());
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.backlog > 0) return { done: false, value: this.shift() };
    if (this.ending) {
      if (this.failure !== undefined) throw this.consumeFailure();
      return DONE;
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<T>> {
    this.items = [];
    this.head = 0;
    this.failure = undefined;
    this.end();
    this.take()?.resolve(DONE);
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private shift(): T {
    const value = this.items[this.head++]!;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return value;
  }

  private take() {
    const waiter = this.waiter;
    this.waiter = undefined;
    return waiter;
  }

  private consumeFailure(): unknown {
    const failure = this.failure;
    this.failure = undefined;
    return failure;
  }
}

/** One shared source and its consumers. */
class Channel<T> {
  readonly consumers = new Set<Consumer<T>>();
  ended = false;
  private source: AsyncIterator<T> | undefined;

  constructor(
    readonly opened: Promise<unknown>,
    private readonly options: MulticastOptions<T>,
    private readonly onEmpty: () => void,
  ) {}

  attach(onLeave?: () => void, sink?: Sink<T>): Consumer<T> {
    const consumer = new Consumer<T>(
      this.options,
      (c) => {
        this.detach(c);
        onLeave?.();
      },
      sink,
    );
    this.consumers.add(consumer);
    return consumer;
  }

  /** Reads the source and pushes every result to every consumer, never waiting for any of them. */
  async pump(iterable: AsyncIterable<T>): Promise<void> {
    this.source = iterable[Symbol.asyncIterator]();
    let error: unknown;
    try {
      for (;;) {
        const result = await this.source.next();
        if (result.done) break;
        // The set itself, not a copy per result: a consumer that ends here is deleted during the
        // walk, which a Set allows, and none joins during it (push never yields).
        for (const consumer of this.consumers) consumer.push(result.value);
      }
    } catch (e) {
      error = e ?? new Error('subscription source failed');
    }
    this.ended = true;
    this.onEmpty();
    for (const consumer of [...this.consumers]) consumer.end(error);
  }

  private detach(consumer: Consumer<T>): void {
    if (!this.consumers.delete(consumer)) return;
    if (this.consumers.size > 0 || this.ended) return;
    this.ended = true;
    this.onEmpty();
    void this.source?.return?.();
  }
}

export class Multicast<T> {
  private readonly channels = new Map<string, Channel<T>>();

  constructor(private readonly options: MulticastOptions<T>) {}

  /** Consumers sharing a source now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const channel of this.channels.values()) n += channel.consumers.size;
    return n;
  }

  /**
   * Joins the source stream for `key`, opening it with `open` if there is none. Whatever `open`
   * yields that is not an async iterable (e.g. an error result) is returned as is, unshared.
   * `onLeave` is called once when the consumer returned ends (for any reason); `sink`, if given,
   * takes the results it can while the consumer's reader waits.
   */
  async join<R>(
    key: string,
    open: () => Promise<AsyncIterable<T> | R> | AsyncIterable<T> | R,
    onLeave?: () => void,
    sink?: Sink<T>,
  ): Promise<AsyncIterableIterator<T> | R> {
    for (let attempt = 0; attempt < 3; attempt++) {
      let channel = this.channels.get(key);
      let opener = false;
      if (!channel) {
        const created: Channel<T> = new Channel<T>(Promise.resolve().then(open), this.options, () => {
          if (this.channels.get(key) === created) this.channels.delete(key);
        });
        channel = created;
        this.channels.set(key, channel);
        opener = true;
      }
      let opened: unknown;
      try {
        opened = await channel.opened;
      } catch (error) {
        if (this.channels.get(key) === channel) this.channels.delete(key);
        throw error;
      }
      if (!isAsyncIterable(opened)) {
        if (this.channels.get(key) === channel) this.channels.delete(key);
        return opened as R;
      }
      if (channel.ended) continue; // it ended while we waited: open a fresh one
      const consumer = channel.attach(onLeave, sink);
      if (opener) void channel.pump(opened as AsyncIterable<T>);
      return consumer;
    }
    // Unreachable in practice (a source ending three times in a row while joining): do not share
    // (nor track: the caller's count is released at once).
    onLeave?.();
    return (await open()) as AsyncIterableIterator<T> | R;
  }
}
