/**
 * What one entry of a credential's Redis event log holds: one gateway event, written by the
 * instance that polls the upstream queue and read by every instance.
 *
 * An entry carries the raw upstream event and the index of the gateway event it stands for among
 * those `parseEvent` makes of it (usually one; two for an `update_message` that edits and moves), so
 * every instance parses it exactly as the poller would have, and in-process listeners of the whole
 * stream get the raw events back. A resync the poller announces (a replaced queue) is an entry too,
 * so a client resuming across it sees it in order. Heartbeats make no entry.
 */
import { parseEvent, type GatewayEvent, type RawEvent, type ResyncReason } from '../events/model.js';

type EntryData = { i: number; r: RawEvent } | { resync: ResyncReason; featureLevel: number | null };

/** The entries of one upstream batch, in order. */
export function encodeEvents(events: readonly RawEvent[]): string[] {
  const entries: string[] = [];
  for (const raw of events) {
    const count = parseEvent(raw).length;
    if (count === 0) continue;
    const json = JSON.stringify(raw);
    for (let i = 0; i < count; i++) entries.push(`{"i":${i},"r":${json}}`);
  }
  return entries;
}

export function encodeResync(reason: ResyncReason, featureLevel: number | null): string {
  return JSON.stringify({ resync: reason, featureLevel } satisfies EntryData);
}

/**
 * The mark of a registration (holder.ts): where in the log its state stands, for the instances
 * that load it from its snapshot (snapshot.ts). It is no event: readers skip it like any entry
 * they cannot decode.
 */
export function encodeRegistrationMark(queueId: string): string {
  return JSON.stringify({ registered: queueId });
}

/** The queue id a registration mark names, or undefined for any other entry. */
export function registrationMarkOf(data: string): string | undefined {
  if (!data.startsWith('{"registered":')) return undefined;
  try {
    const parsed = JSON.parse(data) as { registered?: unknown };
    return typeof parsed.registered === 'string' ? parsed.registered : undefined;
  } catch {
    return undefined;
  }
}

/** A decoded entry: the event, and the raw upstream event when it is the first made of it. */
export interface DecodedEntry {
  event: GatewayEvent;
  raw?: RawEvent;
}

/** The event an entry holds; undefined for an entry this version cannot read (never thrown). */
export function decodeEntry(data: string): DecodedEntry | undefined {
  let parsed: EntryData;
  try {
    parsed = JSON.parse(data) as EntryData;
  } catch {
    return undefined;
  }
  if ('resync' in parsed) return { event: { kind: 'RESYNC', reason: parsed.resync, featureLevel: parsed.featureLevel } };
  if (!parsed.r || typeof parsed.r !== 'object') return undefined;
  const event = parseEvent(parsed.r)[parsed.i];
  if (!event) return undefined;
  return parsed.i === 0 ? { event, raw: parsed.r } : { event };
}
