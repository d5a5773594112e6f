/**
 * The delivery contract's bookkeeping (README, "Delivery contract"), shared by the chaos tests: a
 * paced stream of channel messages sent straight to the emulator, and a check of what each
 * subscription received against what was sent.
 *
 * The contract, as checked here, for one subscription:
 * - message IDs arrive strictly increasing: in the chat server's order, never twice;
 * - every message sent while the subscription was live arrives, except where a `ResyncEvent`
 *   stands in the stream between the neighbours of the missing ones (a marked gap).
 */
import type { FormattedExecutionResult as ExecutionResult } from 'graphql';
import { demoUser } from '../../src/emulator/seed.js';
import { basicAuth } from './harness.js';
import { until } from './wait.js';

/** The subscription every chaos test holds: messages with their cursor, and resyncs. */
export const EVENTS = `subscription($after: String) { events(after: $after) {
  __typename
  ... on Event { cursor }
  ... on MessageEvent { message { zulipId } }
  ... on ResyncEvent { reason }
} }`;

/** What a subscription received, in order: a message ID, or a resync with its reason. */
export type Item = { id: number; cursor: string } | { resync: string };

interface EventsData {
  events: { __typename: string; cursor?: string; message?: { zulipId: number }; reason?: string };
}

/** The items of `results` (other event kinds are left out). */
export function itemsOf(results: readonly ExecutionResult<Record<string, unknown>>[]): Item[] {
  const items: Item[] = [];
  for (const result of results) {
    const event = (result.data as EventsData | undefined)?.events;
    if (event?.__typename === 'ResyncEvent') items.push({ resync: event.reason! });
    else if (event?.message) items.push({ id: event.message.zulipId, cursor: event.cursor! });
  }
  return items;
}

export const idsOf = (items: readonly Item[]) => items.flatMap((i) => ('id' in i ? [i.id] : []));
export const resyncsOf = (items: readonly Item[]) => items.flatMap((i) => ('resync' in i ? [i.resync] : []));

export interface DeliveryReport {
  /** Sent IDs delivered. */
  delivered: number;
  /** IDs that arrived out of order or twice (must be empty). */
  outOfOrder: number[];
  /** Sent IDs missing between two delivered ones with no ResyncEvent between them (must be empty). */
  unmarkedLosses: number[];
  /** Sent IDs missing where a ResyncEvent marks the gap. */
  markedLosses: number[];
  /** Sent IDs after the last one delivered (the stream ended, or has not caught up). */
  tail: number[];
}

/**
 * Checks `items` against `sent` (every ID sent from the first one the subscription delivered, in
 * sending order).
 */
export function checkDelivery(items: readonly Item[], sent: readonly number[]): DeliveryReport {
  const report: DeliveryReport = { delivered: 0, outOfOrder: [], unmarkedLosses: [], markedLosses: [], tail: [] };
  const position = new Map<number, number>(); // delivered ID -> index in items
  const wanted = new Set(sent);
  let last = -Infinity;
  items.forEach((item, index) => {
    if (!('id' in item)) return;
    if (wanted.has(item.id)) report.delivered++;
    if (item.id <= last) report.outOfOrder.push(item.id);
    else position.set(item.id, index);
    last = Math.max(last, item.id);
  });
  const first = sent.findIndex((id) => position.has(id));
  let previous = first; // index in `sent` of the last delivered one
  for (let i = first + 1; i < sent.length; i++) {
    if (position.has(sent[i]!)) {
      const from = position.get(sent[previous]!)!;
      const to = position.get(sent[i]!)!;
      const marked = items.slice(from + 1, to).some((item) => 'resync' in item);
      const missing = sent.slice(previous + 1, i);
      (marked ? report.markedLosses : report.unmarkedLosses).push(...missing);
      previous = i;
    }
  }
  report.tail = sent.slice(previous + 1);
  return report;
}

/** Sends one channel message to `general` in-process through the emulator's handler; returns its ID. */
export async function sendToGeneral(emulator: { fetch(request: Request): Promise<Response> }, login: string, content: string): Promise<number> {
  const body = new URLSearchParams({ type: 'stream', to: 'general', topic: 'chaos', content });
  const response = await emulator.fetch(
    new Request('http://emulator/api/v1/messages', { method: 'POST', headers: { authorization: basicAuth(demoUser(login)), 'content-type': 'application/x-www-form-urlencoded' }, body }),
  );
  return ((await response.json()) as { id: number }).id;
}

/**
 * A subscription has no acknowledgement, and its queue may still be replaced just after it starts
 * (a credential check's queue can outlive its grace period): probes are sent until every
 * subscription has received one, so that a test counts only messages sent once all are live.
 */
export async function untilLive(emulator: { fetch(request: Request): Promise<Response> }, received: () => Item[][]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await sendToGeneral(emulator, 'othello', `probe ${attempt}`);
    try {
      await until(() => received().every((list) => idsOf(list).length > 0), 1000, 'a probe on every subscription');
      return;
    } catch (error) {
      if (attempt >= 20) throw error;
    }
  }
}

export interface MessageStream {
  /** IDs accepted by the emulator, in sending order. */
  readonly sent: number[];
  /** Resolves when all `count` are sent. */
  readonly done: Promise<void>;
  /** Stops sending after the current message. */
  stop(): void;
}

/**
 * Sends `count` channel messages to `general` as `login`, in-process through the emulator's own
 * handler (its queues deliver them over HTTP like any other). Paced by `caughtUp(id)` (whether every
 * subscriber has received message `id` or later): every `window` messages it waits (bounded) until
 * the subscribers are at most `window` behind, so that a slow
 * consumer is not what a chaos test measures.
 */
export function streamMessages(
  emulator: { fetch(request: Request): Promise<Response> },
  { login = 'othello', count, window = 200, caughtUp }: { login?: string; count: number; window?: number; caughtUp: (id: number) => boolean },
): MessageStream {
  const sent: number[] = [];
  let stopped = false;
  const done = (async () => {
    for (let n = 0; n < count && !stopped; n++) {
      sent.push(await sendToGeneral(emulator, login, `chaos ${n}`));
      const behind = sent[sent.length - 1 - window];
      if ((n + 1) % window === 0 && behind !== undefined) await until(() => caughtUp(behind) || stopped, 30_000, `subscribers to catch up with message ${behind}`);
    }
  })();
  return { sent, done, stop: () => void (stopped = true) };
}
