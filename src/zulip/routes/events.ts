/** Bindings for the event queue: register, long-poll, delete. See https://zulip.com/api/real-time-events. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { ClientCapabilities, GetEventsResult, RegisterQueueResult } from '../model/events.js';
import * as ops from '../generated/events.js';

/**
 * A queue narrow term: an `[operator, operand]` pair of strings. Zulip's events_register_backend
 * accepts only that form (a list of two-string lists), not the object form of `GET /messages`.
 */
export type QueueNarrowTerm = [string, string];

export interface RegisterQueueOptions {
  /** Event types the queue accepts. @default every type (server side) */
  eventTypes?: string[];
  /** Initial-state keys to return. @default eventTypes, else everything (server side) */
  fetchEventTypes?: string[];
  /** Filters message events only; operators channel/stream, topic, sender, is. @default [] (server side) */
  narrow?: QueueNarrowTerm[];
  /** Also receive messages of every public channel (not for guests). @default the user's setting (server side) */
  allPublicStreams?: boolean;
  /** Rendered HTML instead of Markdown in message events. @default false (server side) */
  applyMarkdown?: boolean;
  /** Leave gravatar avatar URLs for the client to compute. @default true (server side) */
  clientGravatar?: boolean;
  /** Presence keyed by user ID, events without email. @default false (server side) */
  slimPresence?: boolean;
  /**
   * Add `subscribers` to the channel lists of the initial state; `partial` (newer servers) lets the
   * server send only part of them. @default false (server side)
   */
  includeSubscribers?: boolean | 'partial';
  /** @default none (server side: `{}`) */
  clientCapabilities?: ClientCapabilities;
  /** Idle lifetime in seconds (undocumented; capped at 7 days). @default 600 (server side) */
  queueLifespanSecs?: number;
  /** Days of presence history in the initial state (feature level 288). @default 14 (server side) */
  presenceHistoryLimitDays?: number;
}

/**
 * Registers an event queue and returns the initial state.
 * https://zulip.com/api/register-queue
 */
export function registerQueue(
  connection: ZulipConnection,
  options: RegisterQueueOptions = {},
  call: SendOptions = {},
): Promise<RegisterQueueResult> {
  const { includeSubscribers } = options;
  // A `str` in events_register_backend: "true", "false" or "partial".
  const text = includeSubscribers === undefined ? undefined : includeSubscribers === 'partial' ? 'partial' : includeSubscribers ? 'true' : 'false';
  return ops.registerQueue(connection, { ...options, includeSubscribers: text }, call);
}

export interface GetEventsOptions {
  queueId: string;
  /** The newest event already processed (acknowledges it and everything before). */
  lastEventId: number;
  /** Answer at once, even with no events. @default false (server side) */
  dontBlock?: boolean;
}

/** Client-side timeout of a parked poll: above the server's 90 s `event_queue_longpoll_timeout_seconds`. */
export const DEFAULT_LONGPOLL_TIMEOUT_MS = 100_000;

/**
 * Long-polls a queue. The caller owns retries (the poll loop), so by default this call is not
 * retried by the connection, and it waits {@link DEFAULT_LONGPOLL_TIMEOUT_MS} unless dontBlock.
 * https://zulip.com/api/get-events
 */
export function getEvents(
  connection: ZulipConnection,
  options: GetEventsOptions,
  call: SendOptions = {},
): Promise<GetEventsResult> {
  return ops.getEvents(connection, options, {
    retry: false,
    ...call,
    deadlineMs: call.deadlineMs ?? (options.dontBlock ? undefined : DEFAULT_LONGPOLL_TIMEOUT_MS),
  });
}

export interface DeleteQueueOptions {
  queueId: string;
}

/**
 * Deletes a queue; a parked poll on it is answered first.
 * https://zulip.com/api/delete-queue
 */
export function deleteQueue(
  connection: ZulipConnection,
  options: DeleteQueueOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.deleteQueue(connection, options, call);
}
