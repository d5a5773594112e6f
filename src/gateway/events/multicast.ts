/**
 * Shares one source stream among identical consumers. The gateway runs each GraphQL subscription
 * once per (credential, operation, variables) and hands the same results to every socket that
 * asked for exactly that: many tabs and devices of one user, or a fleet of clients, then cost one
 * execution per event instead of one each (as Apollo Router's subscription deduplication does).
 *
 * A consumer that joins later starts at the next result, which is what a fresh subscription would
 * see. Each consumer has its own bounded backlog: one that falls more than `limit` results behind
 * gets `overflow()` as its last result and ends, without slowing the others or the source. The
 * source is returned (ending its subscription) when its last consumer leaves.
 *
 * A consumer is either read (an async iterator, one promise per result) or, when it joins with a
 * {@link Sink}, written to: from the first `next()` on, each result goes straight into the sink in
 * the source's own turn, encoded once per result for all such consumers, and the iterator only
 * yields the end (`overflow()`, completion or the source's error). With thousands of sockets on one
 * execution, this is what keeps the cost of a result close to one socket write per socket.
 */

export interface MulticastOptions<T, E = never> {
  /** Results a consumer may have waiting (queued, or written but not yet flushed) before it is ended. */
  limit: number;
  /** The last result a consumer that fell behind receives. */
  overflow: () => T;
  /** Encodes a result once for every consumer that has a sink. Needed by {@link Multicast.join} with a sink. */
  encode?: (value: T) => E;
}

/**
 * Where a consumer's results are written, e.g. a WebSocket with the frame prefix of one operation.
 * Only results are written here; the end of the stream is read through the consumer's iterator.
 */
export interface Sink<E> {
  /**
   * Writes one encoded result now. Returns whether everything written so far left memory at once;
   * false means it waits in a buffer (the peer reads slowly), which counts toward the consumer's limit.
   */
  write(encoded: E): boolean;
}

const DONE = { done: true, value: undefined } as const;

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

/** A result encoded for sinks, or why it could not be. */
type Encoded<E> = { ok: true; value: E } | { ok: false; error: unknown };

function encodeWith<T, E>(encode: (value: T) => E, value: T): Encoded<E> {
  try {
    return { ok: true, value: encode(value) };
  } catch (error) {
    return { ok: false, error: error ?? new Error('the result could not be encoded') };
  }
}

/** One consumer's end: a bounded queue read as an async iterator, or a sink written to directly. */
class Consumer<T, E> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private ending = false;
  private failure: unknown;
  private writing = false;
  /** Results written to the sink since it last reported everything flushed. */
  private unflushed = 0;

  constructor(
    private readonly options: MulticastOptions<T, E>,
    private readonly leave: (consumer: Consumer<T, E>) => void,
    private readonly sink?: Sink<E>,
  ) {}

  /** Written to the sink (from the first `next()` on), with {@link write}; results are no longer queued. */
  get direct(): boolean {
    return this.writing;
  }

  /** Queues a result for the reader (a consumer that is not {@link direct}). */
  push(value: T): void {
    if (this.ending) return;
    if (this.items.length >= this.options.limit) {
      this.overflow();
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
    // A waiting reader has nothing queued, except in direct mode, where it waits for the end.
    const waiter = this.take();
    if (!waiter) return;
    if (this.items.length > 0) waiter.resolve({ done: false, value: this.items.shift()! });
    else if (this.failure === undefined) waiter.resolve(DONE);
    else waiter.reject(this.consumeFailure());
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.sink && !this.writing && !this.ending) this.goDirect();
    if (this.items.length > 0) return { done: false, value: this.items.shift()! };
    if (this.ending) {
      if (this.failure !== undefined) throw this.consumeFailure();
      return DONE;
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<T>> {
    this.items = [];
    this.failure = undefined;
    this.end();
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The reader is there (graphql-ws has registered the operation and iterates it): write what
   * arrived before, in order, and every later result as it comes.
   */
  private goDirect(): void {
    this.writing = true;
    const queued = this.items;
    this.items = [];
    for (const value of queued) this.write(encodeWith(this.options.encode!, value));
  }

  /**
   * Writes an encoded result to the sink (a {@link direct} consumer). A result that could not be
   * encoded, or a sink that throws, fails this consumer alone with the error, as graphql-ws fails
   * an operation whose result it cannot serialize or send.
   */
  write(encoded: Encoded<E>): void {
    if (this.ending) return;
    if (!encoded.ok) return this.end(encoded.error);
    let flushed: boolean;
    try {
      flushed = this.sink!.write(encoded.value);
    } catch (error) {
      return this.end(error ?? new Error('the result could not be written'));
    }
    if (flushed) this.unflushed = 0;
    else if (++this.unflushed >= this.options.limit) this.overflow();
  }

  /** Drops what is queued; the overflow result is the last one read. */
  private overflow(): void {
    this.items = [this.options.overflow()];
    this.end();
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
class Channel<T, E> {
  readonly consumers = new Set<Consumer<T, E>>();
  ended = false;
  private source: AsyncIterator<T> | undefined;

  constructor(
    readonly opened: Promise<unknown>,
    private readonly options: MulticastOptions<T, E>,
    private readonly onEmpty: () => void,
  ) {}

  attach(sink?: Sink<E>): Consumer<T, E> {
    const consumer = new Consumer<T, E>(this.options, (c) => this.detach(c), sink);
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
        this.publish(result.value);
      }
    } catch (e) {
      error = e ?? new Error('subscription source failed');
    }
    this.ended = true;
    this.onEmpty();
    for (const consumer of [...this.consumers]) consumer.end(error);
  }

  /** Hands a result to every consumer; it is encoded once, when the first direct consumer needs it. */
  private publish(value: T): void {
    let encoded: Encoded<E> | undefined;
    for (const consumer of [...this.consumers]) {
      if (consumer.direct) consumer.write((encoded ??= encodeWith(this.options.encode!, value)));
      else consumer.push(value);
    }
  }

  private detach(consumer: Consumer<T, E>): void {
    if (!this.consumers.delete(consumer)) return;
    if (this.consumers.size > 0 || this.ended) return;
    this.ended = true;
    this.onEmpty();
    void this.source?.return?.();
  }
}

export class Multicast<T, E = never> {
  private readonly channels = new Map<string, Channel<T, E>>();

  constructor(private readonly options: MulticastOptions<T, E>) {}

  /** Consumers sharing a source now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const channel of this.channels.values()) n += channel.consumers.size;
    return n;
  }

  /**
   * Joins the source stream for `key`, opening it with `open` if there is none. Whatever `open`
   * yields that is not an async iterable (e.g. an error result) is returned as is, unshared.
   * With a `sink`, results are written to it once the returned iterator is first read (see {@link Sink}).
   */
  async join<R>(
    key: string,
    open: () => Promise<AsyncIterable<T> | R> | AsyncIterable<T> | R,
    sink?: Sink<E>,
  ): Promise<AsyncIterableIterator<T> | R> {
    if (sink && !this.options.encode) throw new Error('Multicast: joining with a sink needs the encode option');
    for (let attempt = 0; attempt < 3; attempt++) {
      let channel = this.channels.get(key);
      let opener = false;
      if (!channel) {
        const created: Channel<T, E> = new Channel<T, E>(Promise.resolve().then(open), this.options, () => {
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
      const consumer = channel.attach(sink);
      if (opener) void channel.pump(opened as AsyncIterable<T>);
      return consumer;
    }
    // Unreachable in practice (a source ending three times in a row while joining): do not share.
    const opened = await open();
    return opened as AsyncIterableIterator<T> | R;
  }
}
