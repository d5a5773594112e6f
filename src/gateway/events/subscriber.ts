/**
 * One GraphQL subscription's end of the hub: a bounded queue of deliveries, consumed as an async iterator
 * by the GraphQL layer. The hub pushes synchronously during fan-out and never waits for a
 * subscriber, so a slow one cannot hold back the others or the acknowledgement; instead, when more
 * than `limit` deliveries are waiting, the subscriber drops them and ends with `SLOW_CONSUMER`,
 * which keeps memory bounded whatever the client does.
 */
import type { Verdict } from './filters.js';
import type { GatewayEvent } from './model.js';

export interface Delivery {
  /** The gateway cursor of this event (resume point). */
  cursor: string;
  event: GatewayEvent;
  /** The same object for every event of one upstream response of one credential. */
  batch: object;
  /** The credential's session scope: where consumers keep per-credential caches. */
  scope: SessionScope;
  /** `lookup`: the filter could not decide without loading the message. */
  verdict: Exclude<Verdict, false>;
}

/**
 * Memory that consumers downstream of the hub keep per credential, for as long as the hub session
 * lives (no module-global caches). It holds one value, for the latest upstream batch only: the
 * schema keeps the loaders of a batch here, so every subscription of the credential resolves that
 * batch with the same loaders, and a long subscription never serves data older than its events.
 */
export class SessionScope {
  private latest: { batch: object; value: unknown } | undefined;

  /** The value made for `batch` (by `make`, on first use); it replaces the previous batch's. */
  forBatch<T>(batch: object, make: () => T): T {
    // One kind of value per scope (the schema's loaders), so the cast cannot mix two types.
    if (this.latest?.batch === batch) return this.latest.value as T;
    const value = make();
    this.latest = { batch, value };
    return value;
  }
}

export type EndReason = 'SLOW_CONSUMER' | 'UNAUTHENTICATED' | 'SHUTDOWN';

export type SubscriberItem =
  | { type: 'event'; delivery: Delivery }
  /** The last item: the subscription ends for this reason. */
  | { type: 'end'; reason: EndReason; message: string };

type Waiter = (result: IteratorResult<SubscriberItem> | undefined) => void;

const DONE: IteratorResult<SubscriberItem> = { done: true, value: undefined };

export class Subscriber implements AsyncIterableIterator<SubscriberItem> {
  private items: SubscriberItem[] = [];
  private head = 0;
  private readonly waiters: Waiter[] = [];
  /** No more pushes accepted (ended or returned); queued items may still be read. */
  private sealed = false;
  private finished = false;
  /**
   * How long a typing start lasts without renewal: the server's
   * `server_typing_started_expiry_period_milliseconds` (set by the hub once the queue is registered).
   */
  typingExpiryMs = 45_000;

  /**
   * @param limit most deliveries waiting before the subscriber is ended as too slow
   * @param detach called once when the subscriber stops receiving (ended, overflowed or returned)
   */
  constructor(
    private readonly limit: number,
    private readonly detach: (subscriber: Subscriber) => void,
  ) {}

  /** Deliveries waiting to be read. */
  get backlog(): number {
    return this.items.length - this.head;
  }

  get closed(): boolean {
    return this.sealed;
  }

  /** Queues a delivery; false when the subscriber no longer accepts any. */
  push(delivery: Delivery): boolean {
    if (this.sealed) return false;
    if (this.backlog >= this.limit) {
      this.items = [];
      this.head = 0;
      this.end('SLOW_CONSUMER', `The subscription fell more than ${this.limit} events behind and was closed; resubscribe with the last cursor received.`);
      return false;
    }
    this.enqueue({ type: 'event', delivery });
    return true;
  }

  /** Ends the subscription after what is queued, with a final `end` item. */
  end(reason: EndReason, message: string): void {
    if (this.sealed) return;
    this.enqueue({ type: 'end', reason, message });
    this.seal();
  }

  next(): Promise<IteratorResult<SubscriberItem>> {
    return this.take(undefined) as Promise<IteratorResult<SubscriberItem>>;
  }

  /** Like `next`, but resolves `undefined` if nothing arrives within `withinMs`. */
  nextWithin(withinMs: number): Promise<IteratorResult<SubscriberItem> | undefined> {
    return this.take(withinMs);
  }

  async return(): Promise<IteratorResult<SubscriberItem>> {
    this.seal();
    this.finish();
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<SubscriberItem>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private take(withinMs: number | undefined): Promise<IteratorResult<SubscriberItem> | undefined> {
    const ready = this.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = (result) => {
        if (timer) clearTimeout(timer);
        resolve(result);
      };
      if (withinMs !== undefined) {
        timer = setTimeout(() => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          resolve(undefined);
        }, Math.max(0, withinMs));
      }
      this.waiters.push(waiter);
    });
  }

  /** The next queued item as an iterator result, DONE once finished, or undefined if none yet. */
  private shift(): IteratorResult<SubscriberItem> | undefined {
    if (this.finished) return DONE;
    if (this.backlog === 0) {
      if (!this.sealed) return undefined;
      this.finish();
      return DONE;
    }
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as unknown as SubscriberItem; // let it be collected
    if (this.head > 256 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return { done: false, value: item };
  }

  private enqueue(item: SubscriberItem): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter({ done: false, value: item });
    else this.items.push(item);
  }

  private seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    this.detach(this);
    if (this.backlog === 0) this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.items = [];
    this.head = 0;
    for (const waiter of this.waiters.splice(0)) waiter(DONE);
  }
}
