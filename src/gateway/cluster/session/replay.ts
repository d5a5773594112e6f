/**
 * A resuming subscriber's replay: the log entries after its cursor, decoded and filtered as live
 * delivery would have, for the ResumeGate that joins them to the live entries (index.ts, #resume).
 */
import { encodeCursor } from '../../events/buffer.js';
import type { EventFilter } from '../../events/filters.js';
import type { Delivery, SessionScope } from '../../events/subscriber.js';
import { decodeEntry } from '../codec.js';
import type { StreamEntry } from '../stream.js';

/** A delivery and its log sequence number, as the ResumeGate orders them. */
export interface Gated {
  seq: number;
  delivery: Delivery;
}

/** The entries the subscriber's filter lets through, one batch object per logged batch. */
export function replayed(entries: readonly StreamEntry[], filter: EventFilter, index: Parameters<EventFilter['test']>[1], scope: SessionScope): Gated[] {
  const items: Gated[] = [];
  let batch: { n: number; object: object } = { n: -1, object: {} };
  for (const entry of entries) {
    const decoded = decodeEntry(entry.data);
    if (!decoded) continue;
    const verdict = filter.test(decoded.event, index);
    if (verdict === false) continue;
    if (batch.n !== entry.batch) batch = { n: entry.batch, object: {} };
    const cursor = encodeCursor({ generation: entry.generation, seq: entry.seq });
    items.push({ seq: entry.seq, delivery: { cursor, event: decoded.event, batch: batch.object, scope, verdict } });
  }
  return items;
}
