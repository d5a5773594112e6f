/**
 * From the hub's subscribers to the async iterators yoga executes subscriptions over.
 *
 * - One mechanism: every subscription field is a graphql-yoga `Repeater` that pulls items from
 *   its hub subscriber. Ending the subscription (`return()`) closes the subscriber at once, even
 *   while the pull waits for the next event, and the pull only runs when the client asks for the
 *   next result, so a slow client is handled by the hub's bounded backlog, not here.
 * - Loaders: each event is resolved with the loaders of its upstream batch, shared by every
 *   subscription of the credential (kept by the hub session's scope, latest batch only), so a burst
 *   of events costs one `GET /users`, not one per subscriber per event.
 */
import { Repeater } from 'graphql-yoga';
import type { Message } from '../../../zulip/model/messages.js';
import { requireCredentials, type Context } from '../../context.js';
import type { Cursor } from '../../events/buffer.js';
import { compileFilter, type EventFilter, type FilterSpec } from '../../events/filters.js';
import { messageIdOf, type GatewayEvent } from '../../events/model.js';
import type { Delivery, Subscriber, SubscriberItem } from '../../events/subscriber.js';
import { createLoaders } from '../../loaders/index.js';
import { ended, type Ended, type Payload } from './payloads.js';

/** Subscribes to the credential's events through the gateway's hub. */
export async function open(ctx: Context, spec: FilterSpec, after?: Cursor): Promise<Subscriber> {
  requireCredentials(ctx);
  if (!ctx.events) throw new Error('the event hub is not installed (useEventHub in yoga.ts)');
  const subscriber = await ctx.events.subscribe(ctx.connection, { filter: spec, ...(after && { after }) });
  // Resuming from a stamp is using it: the credential's change log is retained (sync/logs.ts).
  if (after) ctx.sync?.retain(ctx.connection);
  return subscriber;
}

/** The next execution resolves with the loaders of this delivery's batch. */
export function useBatchLoaders(ctx: Context, delivery: Delivery): void {
  ctx.loaders = delivery.scope.forBatch(delivery.batch, () => createLoaders(ctx.connection, ctx.server));
}

/** What a pull gives: a value to send, `skip` to pull again, or `done` to end the stream. */
export type Pulled<T> = { value: T } | 'skip' | 'done';

/**
 * The stream of a subscription: `pull` reads the subscriber (with `next`, or `nextWithin` for a
 * timed state) and decides what each item becomes. A subscriber's `end` item becomes the stream's
 * last value, which the field's resolver turns into a GraphQL error.
 */
export function stream<T>(ctx: Context, subscriber: Subscriber, pull: () => Promise<Pulled<T | Ended>>): AsyncIterableIterator<T | Ended> {
  return new Repeater<T | Ended>(async (push, stop) => {
    void stop.then(() => {
      ctx.upstream.reservation?.release();
      return subscriber.return();
    });
    for (;;) {
      // The previous payload resolved (the client asked for the next one): what it did not spend goes back.
      ctx.upstream.reservation?.release();
      const pulled = await pull();
      if (pulled === 'done') break;
      if (pulled === 'skip') continue;
      await reserveForPayload(ctx);
      await push(pulled.value);
    }
    stop();
  });
}

/**
 * Sets aside the upstream calls resolving one event's payload may make (`Context.eventCost`, the
 * subscription's estimate: plugins/upstream-budget.ts) in the credential's bucket, waiting while it
 * is short: the event is delayed, never dropped (a client left too far behind ends with
 * SLOW_CONSUMER). A payload served from the event, the live directory and the cache costs 0 and
 * never waits.
 */
async function reserveForPayload(ctx: Context): Promise<void> {
  const calls = ctx.eventCost?.() ?? 0;
  if (calls === 0 || !ctx.credentials) return;
  ctx.upstream.reservation = await ctx.server.buckets.for(ctx.connection.credentialKey).acquire(calls);
}

/** An `end` item as the stream's last value. */
export function endOf(item: Extract<SubscriberItem, { type: 'end' }>): { value: Ended } {
  return { value: ended(item.reason, item.message) };
}

/** Decides an event the hub could not place without the message; an unreadable message lets it through. */
async function passesLookup(ctx: Context, filter: EventFilter, event: GatewayEvent): Promise<boolean> {
  const messageId = messageIdOf(event);
  if (messageId === undefined) return true;
  let message: Message;
  try {
    message = await ctx.loaders.messages.load(messageId);
  } catch {
    return true;
  }
  return filter.testMessage(event, message);
}

/** The events of a subscriber as payloads, each with its cursor. */
export function eventPayloads(ctx: Context, subscriber: Subscriber, spec: FilterSpec): AsyncIterableIterator<Payload | Ended> {
  const filter = compileFilter(spec);
  return stream<Payload>(ctx, subscriber, async () => {
    const result = await subscriber.next();
    if (result.done) return 'done';
    const item = result.value;
    if (item.type === 'end') return endOf(item);
    const { delivery } = item;
    useBatchLoaders(ctx, delivery);
    if (delivery.verdict === 'lookup' && !(await passesLookup(ctx, filter, delivery.event))) return 'skip';
    ctx.stampNow = delivery.cursor;
    return { value: { cursor: delivery.cursor, event: delivery.event } };
  });
}
