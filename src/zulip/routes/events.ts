/** Bindings for the event queue: register, long-poll, delete. See events-protocol.md for the protocol. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { ClientCapabilities, GetEventsResult, RegisterQueueResult } from '../model/events.js';

/** A queue narrow term: the legacy `[operator, operand]` pair or the object form. */
export type QueueNarrowTerm = [string, string] | { operator: string; operand: unknown; negated?: boolean };

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
  /** Add `subscribers` to the channel lists of the initial state. @default false (server side) */
  includeSubscribers?: boolean;
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
  return connection.send<RegisterQueueResult>(
    'register-queue',
    'POST',
    'register',
    {
      event_types: options.eventTypes,
      fetch_event_types: options.fetchEventTypes,
      narrow: options.narrow,
      all_public_streams: options.allPublicStreams,
      apply_markdown: options.applyMarkdown,
      client_gravatar: options.clientGravatar,
      slim_presence: options.slimPresence,
      include_subscribers: options.includeSubscribers,
      client_capabilities: options.clientCapabilities,
      queue_lifespan_secs: options.queueLifespanSecs,
      presence_history_limit_days: options.presenceHistoryLimitDays,
    },
    call,
  );
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
  return connection.send<GetEventsResult>(
    'get-events',
    'GET',
    'events',
    { queue_id: options.queueId, last_event_id: options.lastEventId, dont_block: options.dontBlock },
    { retry: false, ...(options.dontBlock ? {} : { timeoutMs: DEFAULT_LONGPOLL_TIMEOUT_MS }), ...call },
  );
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
  return connection.send<object>('delete-queue', 'DELETE', 'events', { queue_id: options.queueId }, call);
}
