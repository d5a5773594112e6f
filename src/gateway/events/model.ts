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

/** Every kind a subscriber can receive; the GraphQL `EventKind` enum has the same values. */
export const EVENT_KINDS = [
  'MESSAGE',
  'MESSAGE_UPDATED',
  'MESSAGE_MOVED',
  'MESSAGE_DELETED',
  'SUBMESSAGE',
  'REACTION_ADDED',
  'REACTION_REMOVED',
  'FLAGS_ADDED',
  'FLAGS_REMOVED',
  'TYPING_STARTED',
  'TYPING_STOPPED',
  'TYPING_EDIT_MESSAGE',
  'PRESENCE',
  'USER_STATUS',
  'SUBSCRIPTION',
  'CHANNEL',
  'DEFAULT_CHANNELS',
  'USER',
  'USER_GROUP',
  'DRAFTS',
  'SCHEDULED_MESSAGES',
  'USER_TOPIC',
  'SETTINGS',
  'ALERT_WORDS',
  'MUTED_USERS',
  'ATTACHMENT',
  'SAVED_SNIPPETS',
  'CUSTOM_PROFILE_FIELDS',
  'REALM',
  'REALM_BOT',
  'REALM_DOMAINS',
  'REALM_EMOJI',
  'REALM_USER_SETTINGS_DEFAULTS',
  'SERVER_RESTART',
  'UNKNOWN',
  'RESYNC',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * The queue event types the gateway registers for: the union of everything it models, once per
 * credential (docs/events.md, "One queue per credential"). `heartbeat` is always delivered anyway; the legacy
 * settings events are listed so servers without `user_settings_object` still report settings;
 * `web_reload_client` is left out on purpose (it is for the web app).
 */
export const SUPPORTED_EVENT_TYPES: readonly string[] = [
  'message',
  'update_message',
  'delete_message',
  'submessage',
  'reaction',
  'update_message_flags',
  'typing',
  'typing_edit_message',
  'presence',
  'user_status',
  'subscription',
  'stream',
  'default_streams',
  'realm_user',
  'user_group',
  'drafts',
  'scheduled_messages',
  'user_topic',
  'user_settings',
  'update_display_settings',
  'update_global_notifications',
  'alert_words',
  'muted_users',
  'attachment',
  'saved_snippets',
  'custom_profile_fields',
  'realm',
  'realm_bot',
  'realm_domains',
  'realm_emoji',
  'realm_user_settings_defaults',
  'restart',
];

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

/** Kinds decided by the wire `type` alone. */
const KIND_BY_TYPE: Record<string, OtherData['kind']> = {
  submessage: 'SUBMESSAGE',
  typing_edit_message: 'TYPING_EDIT_MESSAGE',
  presence: 'PRESENCE',
  user_status: 'USER_STATUS',
  subscription: 'SUBSCRIPTION',
  stream: 'CHANNEL',
  default_streams: 'DEFAULT_CHANNELS',
  realm_user: 'USER',
  user_group: 'USER_GROUP',
  drafts: 'DRAFTS',
  scheduled_messages: 'SCHEDULED_MESSAGES',
  user_topic: 'USER_TOPIC',
  user_settings: 'SETTINGS',
  update_display_settings: 'SETTINGS',
  update_global_notifications: 'SETTINGS',
  alert_words: 'ALERT_WORDS',
  muted_users: 'MUTED_USERS',
  attachment: 'ATTACHMENT',
  saved_snippets: 'SAVED_SNIPPETS',
  custom_profile_fields: 'CUSTOM_PROFILE_FIELDS',
  realm: 'REALM',
  realm_bot: 'REALM_BOT',
  realm_domains: 'REALM_DOMAINS',
  realm_emoji: 'REALM_EMOJI',
  realm_user_settings_defaults: 'REALM_USER_SETTINGS_DEFAULTS',
  restart: 'SERVER_RESTART',
};

/**
 * The ops each wire type has, for types that have ops. An op outside its list (a newer server)
 * makes the event `UNKNOWN`, so typed consumers only ever see values they know.
 */
const OPS_BY_TYPE: Record<string, readonly string[]> = {
  subscription: ['add', 'remove', 'update', 'peer_add', 'peer_remove'],
  stream: ['create', 'delete', 'update'],
  realm_user: ['add', 'update', 'remove'],
  user_group: ['add', 'update', 'remove', 'add_members', 'remove_members', 'add_subgroups', 'remove_subgroups'],
  drafts: ['add', 'update', 'remove'],
  scheduled_messages: ['add', 'update', 'remove'],
  user_settings: ['update'],
  attachment: ['add', 'update', 'remove'],
  saved_snippets: ['add', 'update', 'remove'],
  realm: ['update', 'update_dict', 'deactivated'],
  realm_bot: ['add', 'update', 'delete', 'remove'],
  realm_domains: ['add', 'change', 'remove'],
  realm_emoji: ['update'],
  realm_user_settings_defaults: ['update'],
  typing_edit_message: ['start', 'stop'],
};

/** Every op value a typed event may carry (the GraphQL `EventOp` enum). */
export const EVENT_OPS = [...new Set(Object.values(OPS_BY_TYPE).flat())];

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isIntList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isInt);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const unknown = (raw: RawEvent): OtherData => ({ kind: 'UNKNOWN', wire: raw });

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
  const kind = KIND_BY_TYPE[raw.type];
  const ops = OPS_BY_TYPE[raw.type];
  if (!kind || (ops && !ops.includes(String(raw.op)))) return unknown(raw);
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
  const kind = raw.op === 'add' ? 'REACTION_ADDED' : raw.op === 'remove' ? 'REACTION_REMOVED' : undefined;
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
  const kind = op === 'add' ? 'FLAGS_ADDED' : op === 'remove' ? 'FLAGS_REMOVED' : undefined;
  if (!kind || typeof raw.flag !== 'string' || !isIntList(raw.messages)) return unknown(raw);
  return { kind, wire: raw as FlagsData['wire'] };
}

function parseTyping(raw: RawEvent): GatewayEvent {
  const kind = raw.op === 'start' ? 'TYPING_STARTED' : raw.op === 'stop' ? 'TYPING_STOPPED' : undefined;
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
