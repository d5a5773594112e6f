/**
 * The event model: raw queue events (`GET /events`, https://zulip.com/api/get-events) parsed into a
 * union on `kind`, one kind per thing a client reacts to. Payloads stay the wire objects
 * (snake_case), as everywhere in the gateway; parsing only decides the kind, checks the fields the
 * gateway itself relies on, and falls back to `UNKNOWN` (which keeps the JSON) for anything it
 * does not recognise — an unknown type, op or shape never breaks the stream (docs/events.md,
 * "Parsing"). This is the only parser of queue events in the project.
 *
 * Field names are the server's (https://zulip.com/api/get-events): message objects and
 * `update_message` say `subject`; `delete_message` and `typing` say `topic`. The parser accepts the
 * older shapes too instead of branching on the feature level, so it needs no level of its own.
 */
import type { RawEvent } from '../../zulip/model/events.js';
import type { Message } from '../../zulip/model/messages.js';

/** One event as the queue returns it (the REST client's wire type). */
export type { RawEvent };

import { kindsOf, SUPPORTED_EVENT_TYPES, EVENT_KINDS, EVENT_OPS, type EventKind } from './types.js';

// The kinds, the ops and the registered types are the event table's (types.ts).
export { EVENT_KINDS, EVENT_OPS, SUPPORTED_EVENT_TYPES, type EventKind };

/** A `message` event: the message carries the recipient's flags, as `GET /messages` does. */
export interface MessageEventData {
  kind: 'MESSAGE';
  message: Message;
  flags: string[];
}

/** `update_message`, the content part (also rendering-only updates). */
export interface MessageUpdatedData {
  kind: 'MESSAGE_UPDATED';
  wire: RawEvent & {
    message_id: number;
    user_id?: number | null;
    rendering_only?: boolean;
    content?: string;
    rendered_content?: string;
    orig_content?: string;
    orig_rendered_content?: string;
    edit_timestamp?: number;
    stream_id?: number;
    flags?: string[];
  };
}

/** `update_message`, the move part (topic and/or channel changed). */
export interface MessageMovedData {
  kind: 'MESSAGE_MOVED';
  wire: RawEvent & {
    message_id: number;
    message_ids: number[];
    user_id?: number | null;
    stream_id?: number;
    new_stream_id?: number;
    orig_subject?: string;
    subject?: string;
    propagate_mode?: string;
    edit_timestamp?: number;
  };
}

export interface MessageDeletedData {
  kind: 'MESSAGE_DELETED';
  /** Normalised: always a list, with or without `bulk_message_deletion`. */
  messageIds: number[];
  wire: RawEvent & { message_type?: string; stream_id?: number; topic?: string };
}

export interface ReactionData {
  kind: 'REACTION_ADDED' | 'REACTION_REMOVED';
  wire: RawEvent & { message_id: number; user_id: number; emoji_name: string; emoji_code: string; reaction_type: string };
}

export interface FlagsData {
  kind: 'FLAGS_ADDED' | 'FLAGS_REMOVED';
  wire: RawEvent & { flag: string; messages: number[]; all?: boolean; message_details?: Record<string, unknown> };
}

/** A participant in `typing` events: `{ user_id, email }`. */
export interface TypingParticipant {
  user_id: number;
  email?: string;
}

export interface TypingData {
  kind: 'TYPING_STARTED' | 'TYPING_STOPPED';
  wire: RawEvent & {
    message_type?: string;
    sender: TypingParticipant;
    recipients?: TypingParticipant[];
    stream_id?: number;
    topic?: string;
  };
}

/** Everything else: the kind and the wire event; the schema reads the fields it exposes. */
export interface OtherData {
  kind: Exclude<
    EventKind,
    | 'MESSAGE'
    | 'MESSAGE_UPDATED'
    | 'MESSAGE_MOVED'
    | 'MESSAGE_DELETED'
    | 'REACTION_ADDED'
    | 'REACTION_REMOVED'
    | 'FLAGS_ADDED'
    | 'FLAGS_REMOVED'
    | 'TYPING_STARTED'
    | 'TYPING_STOPPED'
    | 'RESYNC'
  >;
  wire: RawEvent;
}

/** Why a subscriber must refetch (the gap cannot be filled by replay). */
export type ResyncReason =
  /** The upstream queue expired or was lost; a new one was registered. */
  | 'QUEUE_EXPIRED'
  /** The upstream queue failed in a way that required registering a new one. */
  | 'UPSTREAM_ERROR'
  /** Cluster mode: Redis was unreachable or lost the event log; events in between may be missing. */
  | 'REDIS_UNAVAILABLE'
  /** The resume cursor is older than the replay buffer (by age or count). */
  | 'CURSOR_EXPIRED'
  /** The resume cursor belongs to an event stream that no longer exists (gateway or session restarted). */
  | 'CURSOR_UNKNOWN';

export interface ResyncData {
  kind: 'RESYNC';
  reason: ResyncReason;
  /** The upstream feature level after the resync, when known. */
  featureLevel: number | null;
}

export type GatewayEvent =
  | MessageEventData
  | MessageUpdatedData
  | MessageMovedData
  | MessageDeletedData
  | ReactionData
  | FlagsData
  | TypingData
  | OtherData
  | ResyncData;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isIntList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isInt);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const unknown = (raw: RawEvent): OtherData => ({ kind: 'UNKNOWN', wire: raw });

/** The one kind the event table gives this type and op; undefined when it models none. */
const onlyKind = (type: string, op: unknown): EventKind | undefined => Object.keys(kindsOf(type, op) ?? {})[0] as EventKind | undefined;

/**
 * Parses one raw event into the events subscribers see: usually one, none for a heartbeat, two
 * for an `update_message` that both edits and moves.
 */
export function parseEvent(raw: RawEvent): GatewayEvent[] {
  switch (raw.type) {
    case 'heartbeat':
      return [];
    case 'message':
      return [parseMessage(raw)];
    case 'update_message':
      return parseUpdateMessage(raw);
    case 'delete_message':
      return [parseDelete(raw)];
    case 'reaction':
      return [parseReaction(raw)];
    case 'update_message_flags':
      return [parseFlags(raw)];
    case 'typing':
      return [parseTyping(raw)];
    default:
      return [parseOther(raw)];
  }
}

/** Types decided by `type` (and op): known ops only, and the fields the schema promises. */
function parseOther(raw: RawEvent): GatewayEvent {
  const kind = onlyKind(raw.type, raw.op) as OtherData['kind'] | undefined;
  if (!kind) return unknown(raw);
  const aboutMessage = raw.type === 'submessage' || raw.type === 'typing_edit_message';
  if (aboutMessage && (!isInt(raw.message_id) || !isInt(raw.sender_id))) return unknown(raw);
  return { kind, wire: raw };
}

function parseMessage(raw: RawEvent): GatewayEvent {
  const message = raw.message;
  if (!isObject(message) || !isInt(message.id)) return unknown(raw);
  const flags = Array.isArray(raw.flags) ? raw.flags.filter((f): f is string => typeof f === 'string') : [];
  // The queue sends flags beside the message; queries carry them inside it.
  return { kind: 'MESSAGE', message: { ...(message as unknown as Message), flags }, flags };
}

function parseUpdateMessage(raw: RawEvent): GatewayEvent[] {
  if (!isInt(raw.message_id)) return [unknown(raw)];
  const events: GatewayEvent[] = [];
  const edited = typeof raw.rendered_content === 'string' || typeof raw.content === 'string';
  const moved = typeof raw.orig_subject === 'string' || isInt(raw.new_stream_id);
  if (edited || !moved) events.push({ kind: 'MESSAGE_UPDATED', wire: raw as MessageUpdatedData['wire'] });
  if (moved) {
    const ids = isIntList(raw.message_ids) && raw.message_ids.length > 0 ? raw.message_ids : [raw.message_id];
    events.push({ kind: 'MESSAGE_MOVED', wire: { ...(raw as MessageMovedData['wire']), message_ids: ids } });
  }
  return events;
}

function parseDelete(raw: RawEvent): GatewayEvent {
  const ids = isIntList(raw.message_ids) ? raw.message_ids : isInt(raw.message_id) ? [raw.message_id] : undefined;
  return ids ? { kind: 'MESSAGE_DELETED', messageIds: ids, wire: raw } : unknown(raw);
}

function parseReaction(raw: RawEvent): GatewayEvent {
  const kind = onlyKind('reaction', raw.op) as ReactionData['kind'] | undefined;
  // `user_id` arrived with featureLevels.reactionUserId (src/zulip/feature-levels.ts); older servers
  // only send the deprecated `user` object.
  const legacyUser = isObject(raw.user) ? raw.user.user_id : undefined;
  const userId = isInt(raw.user_id) ? raw.user_id : isInt(legacyUser) ? legacyUser : undefined;
  if (!kind || !isInt(raw.message_id) || userId === undefined || typeof raw.emoji_name !== 'string') return unknown(raw);
  return { kind, wire: { ...(raw as ReactionData['wire']), user_id: userId } };
}

function parseFlags(raw: RawEvent): GatewayEvent {
  // `operation` is the deprecated alias of `op`, which older servers send instead (https://zulip.com/api/changelog, level 32).
  const op = raw.op ?? raw.operation;
  const kind = onlyKind('update_message_flags', op) as FlagsData['kind'] | undefined;
  if (!kind || typeof raw.flag !== 'string' || !isIntList(raw.messages)) return unknown(raw);
  return { kind, wire: raw as FlagsData['wire'] };
}

function parseTyping(raw: RawEvent): GatewayEvent {
  const kind = onlyKind('typing', raw.op) as TypingData['kind'] | undefined;
  if (!kind || !isObject(raw.sender) || !isInt(raw.sender.user_id)) return unknown(raw);
  return { kind, wire: raw as TypingData['wire'] };
}

/** The id of the message an event is about, for events about exactly one message. */
export function messageIdOf(event: GatewayEvent): number | undefined {
  switch (event.kind) {
    case 'MESSAGE':
      return event.message.id;
    case 'MESSAGE_UPDATED':
    case 'REACTION_ADDED':
    case 'REACTION_REMOVED':
      return event.wire.message_id;
    case 'SUBMESSAGE':
    case 'TYPING_EDIT_MESSAGE':
      return isInt(event.wire.message_id) ? event.wire.message_id : undefined;
    default:
      return undefined;
  }
}
