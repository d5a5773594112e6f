/**
 * The fan-out of one credential's event stream to its subscribers, by filter: shared by the
 * in-process session (session.ts) and the Redis-backed one (cluster/session/), which differ only in
 * where events come from and where the replay log lives.
 *
 * Subscribers with the same filter (many tabs or devices of one user run the same subscription)
 * form a group: the filter runs once per event for all of them, and they share one delivery object.
 */
import { MessageIndex, compileFilter, type EventFilter, type FilterSpec } from './filters.js';
import type { GatewayEvent } from './model.js';
import { SessionScope, type Delivery, type EndReason, type Subscriber } from './subscriber.js';

interface FilterGroup {
  key: string;
  filter: EventFilter;
  subscribers: Set<Subscriber>;
}

/** Hands a delivery to one subscriber; `seq` is the event's sequence number in its stream. */
export type Route = (subscriber: Subscriber, delivery: Delivery, seq: number) => void;

const push: Route = (subscriber, delivery) => void subscriber.push(delivery);

export class FanOut {
  readonly scope = new SessionScope();
  /** What the filters know about messages seen so far (channel and topic of a message id). */
  readonly index = new MessageIndex();
  private readonly groupOf = new Map<Subscriber, FilterGroup>();
  private readonly groups = new Map<string, FilterGroup>();

  constructor(private readonly route: Route = push) {}

  /** Subscribers attached now. */
  get size(): number {
    return this.groupOf.size;
  }

  /** Adds a subscriber to the group of its filter; returns that filter (for its replay). */
  add(subscriber: Subscriber, spec: FilterSpec): EventFilter {
    const key = JSON.stringify(spec);
    let group = this.groups.get(key);
    if (!group) {
      group = { key, filter: compileFilter(spec), subscribers: new Set() };
      this.groups.set(key, group);
    }
    group.subscribers.add(subscriber);
    this.groupOf.set(subscriber, group);
    return group.filter;
  }

  remove(subscriber: Subscriber): void {
    const group = this.groupOf.get(subscriber);
    if (!group) return;
    this.groupOf.delete(subscriber);
    group.subscribers.delete(subscriber);
    if (group.subscribers.size === 0) this.groups.delete(group.key);
  }

  /** Ends every subscriber (each detaches itself). */
  endAll(reason: EndReason, message: string): void {
    for (const subscriber of [...this.groupOf.keys()]) subscriber.end(reason, message);
  }

  /** Offers one event to every filter group (the index learns it first). */
  publish(event: GatewayEvent, cursor: string, seq: number, batch: object): void {
    this.index.learn(event);
    for (const group of [...this.groups.values()]) {
      const verdict = group.filter.test(event, this.index);
      if (verdict === false) continue;
      const delivery: Delivery = { cursor, event, batch, scope: this.scope, verdict };
      for (const subscriber of [...group.subscribers]) this.route(subscriber, delivery, seq);
    }
  }
}
