/**
 * Real-time events as GraphQL subscriptions (over graphql-ws and SSE alike):
 *
 * - `events(filter, after)`: every event kind, as the `ChatEvent` union, filtered by kind,
 *   channel, topic and narrow;
 * - `messages(narrow, after)`: new, edited, moved and deleted messages and reactions in a narrow;
 * - `typing(conversation)`: who is typing in one conversation, as a state that changes.
 *
 * Every event carries its gateway `cursor`; subscribing again with `after: <last cursor>` replays
 * what was missed while the credential's queue and replay buffer live, or starts with a
 * `ResyncEvent` telling the client to refetch by query. Payloads link to the query types (an
 * event's message is a `Message`, whose `sender` resolves through the same loaders). Loaders are
 * shared by all subscriptions of one credential for one upstream batch, so a burst of events costs
 * one `GET /users`, not one per subscriber per event.
 *
 * The hub (../events) knows queues and fan-out; this file turns its deliveries into GraphQL.
 */
import { GraphQLError } from 'graphql';
import type { Message, Reaction } from '../../zulip/model/messages.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import { builder } from '../builder.js';
import { requireCredentials, type Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { decodeCursor, type Cursor } from '../events/buffer.js';
import { compileFilter, type EventFilter, type FilterSpec, type FilterTerm, type NarrowState } from '../events/filters.js';
import type { EventHub } from '../events/hub.js';
import {
  EVENT_KINDS,
  EVENT_OPS,
  messageIdOf,
  type EventKind,
  type GatewayEvent,
  type MessageDeletedData,
  type MessageEventData,
  type MessageMovedData,
  type MessageUpdatedData,
  type OtherData,
  type ReactionData,
  type ResyncData,
  type TypingData,
  type FlagsData,
} from '../events/model.js';
import type { Delivery, Subscriber, SubscriberItem } from '../events/subscriber.js';
import { createLoaders, type Loaders } from '../loaders.js';
import { ChannelRef } from './channels.js';
import { DraftRef } from './drafts.js';
import { MessageRef, MessageTypeEnum, NarrowInput, PropagateModeEnum, type NarrowShape } from './messages.js';
import { PresenceStatusEnum } from './presence.js';
import { ReactionRef } from './reactions.js';
import { ScheduledMessageRef } from './scheduled-messages.js';
import { SubscriptionRef } from './subscriptions.js';
import { UserGroupRef } from './user-groups.js';
import { VisibilityPolicyEnum } from './user-topics.js';
import { UserRef } from './users.js';

const BAD_USER_INPUT = 'BAD_USER_INPUT';

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: BAD_USER_INPUT } });
}

// ---- payloads ----------------------------------------------------------------------------------------

/** What every event object is backed by: the parsed event and its cursor. */
interface Payload<E extends GatewayEvent = GatewayEvent> {
  cursor: string;
  event: E;
}

type Other = Payload<OtherData>;

/** The last item of a stream that ends abnormally: the resolver turns it into a GraphQL error. */
interface Ended {
  ended: { code: string; message: string };
}

const END_CODES: Record<string, string> = {
  SLOW_CONSUMER: 'SLOW_CONSUMER',
  UNAUTHENTICATED: GatewayErrorCode.unauthenticated,
  SHUTDOWN: 'SUBSCRIPTION_CLOSED',
};

function throwIfEnded<T>(item: T | Ended): T {
  if (item && typeof item === 'object' && 'ended' in item) {
    throw new GraphQLError(item.ended.message, { extensions: { code: item.ended.code } });
  }
  return item;
}

// ---- wire field readers (tolerant: a missing or mistyped field reads as null) -----------------------

const num = (w: Record<string, unknown>, key: string): number | null => (typeof w[key] === 'number' ? (w[key] as number) : null);
const str = (w: Record<string, unknown>, key: string): string | null => (typeof w[key] === 'string' ? (w[key] as string) : null);
const bool = (w: Record<string, unknown>, key: string): boolean | null => (typeof w[key] === 'boolean' ? (w[key] as boolean) : null);
const ints = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []);
const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [];
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** The wire event without the envelope keys, for opaque `data` fields. */
const dataOf = (w: Record<string, unknown>): Record<string, unknown> => {
  const { id: _id, type: _type, op: _op, ...rest } = w;
  return rest;
};

function loadUser(ctx: Context, id: number | null | undefined) {
  return id == null ? null : ctx.loaders.users.load(id);
}

function loadChannel(ctx: Context, id: number | null | undefined) {
  return id == null ? null : ctx.loaders.channels.load(id);
}

// ---- enums -------------------------------------------------------------------------------------------

const KIND_DESCRIPTIONS: Record<EventKind, string> = {
  MESSAGE: 'A new message.',
  MESSAGE_UPDATED: 'A message\u2019s content was edited (or re-rendered).',
  MESSAGE_MOVED: 'Messages moved to another topic and/or channel.',
  MESSAGE_DELETED: 'Messages were deleted, or the caller lost access to them.',
  SUBMESSAGE: 'An integration (poll, to-do list) added data to a message.',
  REACTION_ADDED: 'An emoji reaction was added.',
  REACTION_REMOVED: 'An emoji reaction was removed.',
  FLAGS_ADDED: 'The caller set a personal flag (read, starred...) on messages.',
  FLAGS_REMOVED: 'The caller cleared a personal flag on messages.',
  TYPING_STARTED: 'Someone started typing.',
  TYPING_STOPPED: 'Someone stopped typing.',
  TYPING_EDIT_MESSAGE: 'Someone started or stopped editing a message.',
  PRESENCE: 'A user came online or went idle.',
  USER_STATUS: 'A user changed their status (text, emoji, away).',
  SUBSCRIPTION: 'The caller\u2019s channel subscriptions, or the subscribers of a channel, changed.',
  CHANNEL: 'A channel was created, deleted or changed.',
  DEFAULT_CHANNELS: 'The organization\u2019s default channels changed.',
  USER: 'A user joined, changed or became inaccessible.',
  USER_GROUP: 'A user group was created, changed or removed.',
  DRAFTS: 'The caller\u2019s drafts changed.',
  SCHEDULED_MESSAGES: 'The caller\u2019s scheduled messages changed.',
  USER_TOPIC: 'The caller\u2019s visibility preference for a topic (muted, followed...) changed.',
  SETTINGS: 'One of the caller\u2019s personal settings changed.',
  ALERT_WORDS: 'The caller\u2019s alert words changed.',
  MUTED_USERS: 'The set of users the caller muted changed.',
  ATTACHMENT: 'The caller\u2019s uploaded files changed.',
  SAVED_SNIPPETS: 'The caller\u2019s saved snippets changed.',
  CUSTOM_PROFILE_FIELDS: 'The organization\u2019s custom profile fields changed.',
  REALM: 'An organization setting changed, or the organization was deactivated.',
  REALM_BOT: 'A bot the caller administers changed.',
  REALM_DOMAINS: 'The organization\u2019s allowed email domains changed.',
  REALM_EMOJI: 'The organization\u2019s custom emoji changed.',
  REALM_USER_SETTINGS_DEFAULTS: 'A default setting for new users changed.',
  SERVER_RESTART: 'The chat server restarted (possibly upgraded); the stream continues.',
  UNKNOWN: 'An event this gateway does not model; its JSON is passed through.',
  RESYNC: 'Events may have been missed: refetch what you display by query.',
};

export const EventKindEnum = builder.enumType('EventKind', {
  description: 'The kinds of real-time event a subscription can receive (and filter on).',
  values: Object.fromEntries(EVENT_KINDS.map((kind) => [kind, { value: kind, description: KIND_DESCRIPTIONS[kind] }])) as Record<
    EventKind,
    { value: EventKind; description: string }
  >,
});

export const EventOpEnum = builder.enumType('EventOp', {
  description:
    'What an event did to the thing it is about. Each event type documents which of these it uses; an ' +
    'operation newer than this schema arrives as an `UnknownEvent` instead.',
  values: Object.fromEntries(
    EVENT_OPS.map((op) => [op.toUpperCase(), { value: op, description: `The chat server\u2019s \`${op}\` operation.` }]),
  ) as Record<string, { value: string; description: string }>,
});

export const ResyncReasonEnum = builder.enumType('ResyncReason', {
  description: 'Why events may have been missed.',
  values: {
    QUEUE_EXPIRED: { value: 'QUEUE_EXPIRED', description: 'The upstream event queue expired or was lost; a new one replaced it.' },
    UPSTREAM_ERROR: { value: 'UPSTREAM_ERROR', description: 'The upstream event queue failed and was replaced.' },
    CURSOR_EXPIRED: { value: 'CURSOR_EXPIRED', description: 'The resume cursor is older than what the gateway keeps for replay.' },
    CURSOR_UNKNOWN: {
      value: 'CURSOR_UNKNOWN',
      description: 'The resume cursor belongs to an event stream that ended (the gateway restarted, or the stream idled out).',
    },
  } as const,
});

// ---- the Event interface and the event types ----------------------------------------------------------

export const EventInterface = builder.interfaceRef<Payload>('Event').implement({
  description: 'What every real-time event has.',
  resolveType: (p) => TYPE_BY_KIND[p.event.kind],
  fields: (t) => ({
    cursor: t.string({
      description: 'The gateway cursor of this event: subscribe again with `after: cursor` to resume right after it.',
      resolve: (p) => p.cursor,
    }),
    kind: t.field({ type: EventKindEnum, description: 'What happened.', resolve: (p) => p.event.kind }),
  }),
});

/** An event object type; every one implements `Event`. */
const eventType = <P extends Payload>(name: string, description: string) =>
  builder.objectRef<P>(name).implement({
    description,
    // Pothos cannot prove a generic P extends the interface's shape; every P here is a Payload.
    interfaces: [EventInterface] as never,
    fields: () => ({}),
  });

export const MessageEventRef = eventType<Payload<MessageEventData>>('MessageEvent', 'A new message (kind MESSAGE).');
builder.objectFields(MessageEventRef, (t) => ({
  message: t.field({
    type: MessageRef,
    description: 'The message, with the caller\u2019s flags and HTML content, as `message(id)` returns it.',
    resolve: (p) => p.event.message,
  }),
}));

export const MessageUpdatedEventRef = eventType<Payload<MessageUpdatedData>>(
  'MessageUpdatedEvent',
  'A message\u2019s content was edited, or re-rendered by the server (kind MESSAGE_UPDATED).',
);
builder.objectFields(MessageUpdatedEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The edited message.', resolve: (p) => p.event.wire.message_id }),
  editedMessage: t.field({
    type: MessageRef,
    nullable: true,
    description: 'The message as it is now (loaded by ID); null if it is gone or invisible.',
    resolve: (p, _args, ctx) => ctx.loaders.messages.load(p.event.wire.message_id),
  }),
  editorId: t.field({
    type: 'Long',
    nullable: true,
    description: 'Who edited it; null for rendering-only updates.',
    resolve: (p) => p.event.wire.user_id ?? null,
  }),
  editor: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who edited it; null for rendering-only updates.',
    resolve: (p, _args, ctx) => loadUser(ctx, p.event.wire.user_id),
  }),
  renderingOnly: t.boolean({
    description: 'True when only the rendering changed (e.g. a link preview), not the content.',
    resolve: (p) => p.event.wire.rendering_only === true,
  }),
  content: t.string({
    nullable: true,
    description: 'The new content, rendered HTML.',
    resolve: (p) => p.event.wire.rendered_content ?? null,
  }),
  rawContent: t.string({ nullable: true, description: 'The new content, Markdown.', resolve: (p) => p.event.wire.content ?? null }),
  previousContent: t.string({
    nullable: true,
    description: 'The content before the edit, rendered HTML.',
    resolve: (p) => p.event.wire.orig_rendered_content ?? null,
  }),
  previousRawContent: t.string({
    nullable: true,
    description: 'The content before the edit, Markdown.',
    resolve: (p) => p.event.wire.orig_content ?? null,
  }),
  channelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel, for channel messages.',
    resolve: (p) => p.event.wire.stream_id ?? null,
  }),
  editTimestamp: t.field({
    type: 'Long',
    nullable: true,
    description: 'When it was edited (UNIX seconds).',
    resolve: (p) => p.event.wire.edit_timestamp ?? null,
  }),
}));

export const MessageMovedEventRef = eventType<Payload<MessageMovedData>>(
  'MessageMovedEvent',
  'Messages moved to another topic and/or channel (kind MESSAGE_MOVED). Resolving or unresolving a topic is a move.',
);
builder.objectFields(MessageMovedEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message the move was made on.', resolve: (p) => p.event.wire.message_id }),
  messageIds: t.field({ type: ['Long'], description: 'Every message moved.', resolve: (p) => p.event.wire.message_ids }),
  editor: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who moved them.',
    resolve: (p, _args, ctx) => loadUser(ctx, p.event.wire.user_id),
  }),
  previousChannelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel they were in.',
    resolve: (p) => p.event.wire.stream_id ?? null,
  }),
  previousChannel: t.field({
    type: ChannelRef,
    nullable: true,
    description: 'The channel they were in.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.stream_id),
  }),
  channelId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The channel they are in now.',
    resolve: (p) => p.event.wire.new_stream_id ?? p.event.wire.stream_id ?? null,
  }),
  channel: t.field({
    type: ChannelRef,
    nullable: true,
    description: 'The channel they are in now.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.new_stream_id ?? p.event.wire.stream_id),
  }),
  previousTopic: t.string({ nullable: true, description: 'The topic they were in.', resolve: (p) => p.event.wire.orig_subject ?? null }),
  topic: t.string({
    nullable: true,
    description: 'The topic they are in now.',
    resolve: (p) => p.event.wire.subject ?? p.event.wire.orig_subject ?? null,
  }),
  propagateMode: t.field({
    type: PropagateModeEnum,
    nullable: true,
    description: 'Which messages of the topic the move applied to.',
    resolve: (p) => (p.event.wire.propagate_mode as 'change_one' | 'change_later' | 'change_all' | undefined) ?? null,
  }),
}));

export const MessageDeletedEventRef = eventType<Payload<MessageDeletedData>>(
  'MessageDeletedEvent',
  'Messages were deleted, or moved where the caller cannot see them (kind MESSAGE_DELETED).',
);
builder.objectFields(MessageDeletedEventRef, (t) => ({
  messageIds: t.field({ type: ['Long'], description: 'The messages.', resolve: (p) => p.event.messageIds }),
  messageType: t.field({
    type: MessageTypeEnum,
    description: 'Channel or direct messages.',
    resolve: (p) => (p.event.wire.message_type === 'private' ? 'private' : 'stream'),
  }),
  channelId: t.field({ type: 'Long', nullable: true, description: 'Their channel.', resolve: (p) => p.event.wire.stream_id ?? null }),
  topic: t.string({ nullable: true, description: 'Their topic.', resolve: (p) => p.event.wire.topic ?? null }),
}));

export const ReactionEventRef = eventType<Payload<ReactionData>>(
  'ReactionEvent',
  'An emoji reaction was added (REACTION_ADDED) or removed (REACTION_REMOVED).',
);
builder.objectFields(ReactionEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message reacted to.', resolve: (p) => p.event.wire.message_id }),
  added: t.boolean({ description: 'True when added, false when removed.', resolve: (p) => p.event.kind === 'REACTION_ADDED' }),
  reaction: t.field({
    type: ReactionRef,
    description: 'The reaction (its `user` resolves through the same loaders as queries).',
    resolve: (p) => {
      const { emoji_name, emoji_code, reaction_type, user_id } = p.event.wire;
      return { emoji_name, emoji_code, reaction_type, user_id } as Reaction;
    },
  }),
}));

export const MessageFlagsEventRef = eventType<Payload<FlagsData>>(
  'MessageFlagsEvent',
  'The caller set (FLAGS_ADDED) or cleared (FLAGS_REMOVED) a personal flag on messages.',
);
builder.objectFields(MessageFlagsEventRef, (t) => ({
  flag: t.string({ description: 'The flag, as the server names it (`read`, `starred`...).', resolve: (p) => p.event.wire.flag }),
  added: t.boolean({ description: 'True when set, false when cleared.', resolve: (p) => p.event.kind === 'FLAGS_ADDED' }),
  messageIds: t.field({ type: ['Long'], description: 'The messages (empty when `all`).', resolve: (p) => p.event.wire.messages }),
  all: t.boolean({ description: 'True for "mark all messages as read".', resolve: (p) => p.event.wire.all === true }),
}));

export const TypingEventRef = eventType<Payload<TypingData>>(
  'TypingEvent',
  'Someone started (TYPING_STARTED) or stopped (TYPING_STOPPED) typing. A start is renewed while typing goes on.',
);
builder.objectFields(TypingEventRef, (t) => ({
  started: t.boolean({ description: 'True for a start, false for a stop.', resolve: (p) => p.event.kind === 'TYPING_STARTED' }),
  senderId: t.field({ type: 'Long', description: 'Who is typing.', resolve: (p) => p.event.wire.sender.user_id }),
  sender: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who is typing.',
    resolve: (p, _args, ctx) => ctx.loaders.users.load(p.event.wire.sender.user_id),
  }),
  messageType: t.field({
    type: MessageTypeEnum,
    description: 'In a channel topic, or a direct-message conversation.',
    resolve: (p) => (p.event.wire.message_type === 'stream' ? 'stream' : 'private'),
  }),
  channelId: t.field({ type: 'Long', nullable: true, description: 'The channel.', resolve: (p) => p.event.wire.stream_id ?? null }),
  channel: t.field({
    type: ChannelRef,
    nullable: true,
    description: 'The channel.',
    resolve: (p, _args, ctx) => loadChannel(ctx, p.event.wire.stream_id),
  }),
  topic: t.string({ nullable: true, description: 'The topic.', resolve: (p) => (p.event.wire.message_type === 'stream' ? (p.event.wire.topic ?? '') : null) }),
  recipientIds: t.field({
    type: ['Long'],
    nullable: true,
    description: 'Everyone in the direct-message conversation, the sender included.',
    resolve: (p) => p.event.wire.recipients?.map((r) => r.user_id) ?? null,
  }),
}));

/** A small event type backed by the wire event of one kind. */
function otherType(name: string, description: string) {
  return eventType<Other>(name, description);
}

export const SubmessageEventRef = otherType('SubmessageEvent', 'An integration added data to a message (kind SUBMESSAGE).');
builder.objectFields(SubmessageEventRef, (t) => ({
  messageId: t.field({ type: 'Long', description: 'The message.', resolve: (p) => num(p.event.wire, 'message_id')! }),
  submessageId: t.field({ type: 'Long', nullable: true, description: 'The submessage.', resolve: (p) => num(p.event.wire, 'submessage_id') }),
  senderId: t.field({ type: 'Long', description: 'Who added it.', resolve: (p) => num(p.event.wire, 'sender_id')! }),
  msgType: t.string({ nullable: true, description: 'The integration\u2019s message type.', resolve: (p) => str(p.event.wire, 'msg_type') }),
  content: t.string({ nullable: true, description: 'JSON text, for the integration.', resolve: (p) => str(p.event.wire, 'content') }),
}));

export const TypingEditMessageEventRef = otherType(
  'TypingEditMessageEvent',
  'Someone started (op START) or stopped (op STOP) editing a message (kind TYPING_EDIT_MESSAGE).',
);
builder.objectFields(TypingEditMessageEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'START or STOP.', resolve: (p) => String(p.event.wire.op) }),
  messageId: t.field({ type: 'Long', description: 'The message.', resolve: (p) => num(p.event.wire, 'message_id')! }),
  senderId: t.field({ type: 'Long', description: 'Who is editing.', resolve: (p) => num(p.event.wire, 'sender_id')! }),
  sender: t.field({
    type: UserRef,
    nullable: true,
    description: 'Who is editing.',
    resolve: (p, _args, ctx) => loadUser(ctx, num(p.event.wire, 'sender_id')),
  }),
}));

export const PresenceEventRef = otherType('PresenceEvent', 'A user came online or changed activity (kind PRESENCE).');
builder.objectFields(PresenceEventRef, (t) => {
  const latest = (p: Other) =>
    Object.values(record(p.event.wire.presence))
      .map(record)
      .sort((a, b) => (num(b, 'timestamp') ?? 0) - (num(a, 'timestamp') ?? 0))[0] ?? {};
  return {
    userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(p.event.wire, 'user_id') }),
    user: t.field({ type: UserRef, nullable: true, description: 'The user.', resolve: (p, _a, ctx) => loadUser(ctx, num(p.event.wire, 'user_id')) }),
    status: t.field({
      type: PresenceStatusEnum,
      nullable: true,
      description: 'What the user\u2019s client reported.',
      resolve: (p) => {
        const status = str(latest(p), 'status');
        return status === 'active' || status === 'idle' ? status : null;
      },
    }),
    timestamp: t.field({ type: 'Long', nullable: true, description: 'When the status was reported (UNIX seconds).', resolve: (p) => num(latest(p), 'timestamp') }),
    serverTimestamp: t.float({ nullable: true, description: 'The server\u2019s time when it sent the event.', resolve: (p) => num(p.event.wire, 'server_timestamp') }),
  };
});

export const UserStatusEventRef = otherType('UserStatusEvent', 'A user changed their status (kind USER_STATUS); only changed fields are set.');
builder.objectFields(UserStatusEventRef, (t) => ({
  userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(p.event.wire, 'user_id') }),
  user: t.field({ type: UserRef, nullable: true, description: 'The user.', resolve: (p, _a, ctx) => loadUser(ctx, num(p.event.wire, 'user_id')) }),
  statusText: t.string({ nullable: true, description: 'The status text.', resolve: (p) => str(p.event.wire, 'status_text') }),
  emojiName: t.string({ nullable: true, description: 'The status emoji\u2019s name.', resolve: (p) => str(p.event.wire, 'emoji_name') }),
  emojiCode: t.string({ nullable: true, description: 'The status emoji\u2019s code.', resolve: (p) => str(p.event.wire, 'emoji_code') }),
  away: t.boolean({ nullable: true, description: 'The deprecated away flag.', resolve: (p) => bool(p.event.wire, 'away') }),
}));

export const SubscriptionEventRef = otherType(
  'SubscriptionEvent',
  'The caller\u2019s subscriptions or a channel\u2019s subscribers changed (kind SUBSCRIPTION; ops ADD, REMOVE, UPDATE, PEER_ADD, PEER_REMOVE).',
);
builder.objectFields(SubscriptionEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What changed.', resolve: (p) => String(p.event.wire.op) }),
  channelIds: t.field({
    type: ['Long'],
    description: 'The channels concerned.',
    resolve: (p) => {
      const w = p.event.wire;
      const fromList = objects(w.subscriptions).map((s) => num(s, 'stream_id')).filter((id): id is number => id !== null);
      return [...new Set([...ints(w.stream_ids), ...(num(w, 'stream_id') !== null ? [num(w, 'stream_id')!] : []), ...fromList])];
    },
  }),
  userIds: t.field({ type: ['Long'], description: 'PEER_ADD / PEER_REMOVE: the users who joined or left.', resolve: (p) => ints(p.event.wire.user_ids) }),
  property: t.string({ nullable: true, description: 'UPDATE: the property changed.', resolve: (p) => str(p.event.wire, 'property') }),
  value: t.field({ type: 'JSON', nullable: true, description: 'UPDATE: its new value.', resolve: (p) => p.event.wire.value ?? null }),
  subscriptions: t.field({
    type: [SubscriptionRef],
    description: 'ADD: the new subscriptions (empty for the other operations; see channelIds).',
    resolve: (p) => (p.event.wire.op === 'add' ? (objects(p.event.wire.subscriptions) as unknown as Subscription[]) : []),
  }),
}));

export const ChannelEventRef = otherType('ChannelEvent', 'A channel was created, deleted or changed (kind CHANNEL; ops CREATE, DELETE, UPDATE).');
builder.objectFields(ChannelEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  channelIds: t.field({
    type: ['Long'],
    description: 'The channels concerned.',
    resolve: (p) => {
      const id = num(p.event.wire, 'stream_id');
      return id !== null ? [id] : objects(p.event.wire.streams).map((s) => num(s, 'stream_id')).filter((x): x is number => x !== null);
    },
  }),
  channels: t.field({
    type: [ChannelRef],
    nullable: true,
    description: 'CREATE / DELETE: the channels, as they were sent; UPDATE: the channel as it is now (loaded); null if it cannot be read.',
    resolve: async (p, _args, ctx) => {
      const id = num(p.event.wire, 'stream_id');
      if (id !== null) return [await ctx.loaders.channels.load(id)];
      return objects(p.event.wire.streams) as never[];
    },
  }),
  property: t.string({ nullable: true, description: 'UPDATE: the property changed.', resolve: (p) => str(p.event.wire, 'property') }),
  value: t.field({ type: 'JSON', nullable: true, description: 'UPDATE: its new value.', resolve: (p) => p.event.wire.value ?? null }),
}));

export const DefaultChannelsEventRef = otherType('DefaultChannelsEvent', 'The organization\u2019s default channels changed (kind DEFAULT_CHANNELS).');
builder.objectFields(DefaultChannelsEventRef, (t) => ({
  channelIds: t.field({
    type: ['Long'],
    description: 'The default channels now.',
    resolve: (p) => objects(p.event.wire.default_streams).map((s) => num(s, 'stream_id')).filter((x): x is number => x !== null),
  }),
}));

export const UserEventRef = otherType('UserEvent', 'A user joined (ADD), changed (UPDATE) or became inaccessible (REMOVE) (kind USER).');
builder.objectFields(UserEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  userId: t.field({ type: 'Long', nullable: true, description: 'The user.', resolve: (p) => num(record(p.event.wire.person), 'user_id') }),
  user: t.field({
    type: UserRef,
    nullable: true,
    description: 'The user as they are now (loaded); null after REMOVE.',
    resolve: (p, _a, ctx) => (p.event.wire.op === 'remove' ? null : loadUser(ctx, num(record(p.event.wire.person), 'user_id'))),
  }),
  changes: t.field({ type: 'JSON', description: 'The fields sent (the `person` object).', resolve: (p) => record(p.event.wire.person) }),
}));

export const UserGroupEventRef = otherType(
  'UserGroupEvent',
  'A user group was created, changed or removed, or its members or subgroups changed (kind USER_GROUP).',
);
builder.objectFields(UserGroupEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  groupId: t.field({
    type: 'Long',
    nullable: true,
    description: 'The group.',
    resolve: (p) => num(p.event.wire, 'group_id') ?? num(record(p.event.wire.group), 'id'),
  }),
  group: t.field({
    type: UserGroupRef,
    nullable: true,
    description: 'The group as it is now (loaded); null after REMOVE.',
    resolve: (p, _a, ctx) => {
      if (p.event.wire.op === 'remove') return null;
      const id = num(p.event.wire, 'group_id') ?? num(record(p.event.wire.group), 'id');
      return id === null ? null : ctx.loaders.userGroups.load(id);
    },
  }),
  userIds: t.field({ type: ['Long'], description: 'ADD_MEMBERS / REMOVE_MEMBERS: the users.', resolve: (p) => ints(p.event.wire.user_ids) }),
  subgroupIds: t.field({
    type: ['Long'],
    description: 'ADD_SUBGROUPS / REMOVE_SUBGROUPS: the subgroups.',
    resolve: (p) => ints(p.event.wire.direct_subgroup_ids ?? p.event.wire.subgroup_ids),
  }),
  changes: t.field({ type: 'JSON', description: 'UPDATE: the changed fields (empty otherwise).', resolve: (p) => record(p.event.wire.data) }),
}));

export const DraftsEventRef = otherType('DraftsEvent', 'The caller\u2019s drafts changed (kind DRAFTS; ops ADD, UPDATE, REMOVE).');
builder.objectFields(DraftsEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  drafts: t.field({
    type: [DraftRef],
    description: 'ADD / UPDATE: the drafts added or changed.',
    resolve: (p) => [...objects(p.event.wire.drafts), ...objects(p.event.wire.draft ? [p.event.wire.draft] : [])] as never[],
  }),
  draftId: t.field({ type: 'Long', nullable: true, description: 'REMOVE: the draft deleted.', resolve: (p) => num(p.event.wire, 'draft_id') }),
}));

export const ScheduledMessagesEventRef = otherType(
  'ScheduledMessagesEvent',
  'The caller\u2019s scheduled messages changed (kind SCHEDULED_MESSAGES; ops ADD, UPDATE, REMOVE).',
);
builder.objectFields(ScheduledMessagesEventRef, (t) => ({
  op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }),
  scheduledMessages: t.field({
    type: [ScheduledMessageRef],
    description: 'ADD / UPDATE: the scheduled messages added or changed.',
    resolve: (p) =>
      [...objects(p.event.wire.scheduled_messages), ...objects(p.event.wire.scheduled_message ? [p.event.wire.scheduled_message] : [])] as never[],
  }),
  scheduledMessageId: t.field({
    type: 'Long',
    nullable: true,
    description: 'REMOVE: the scheduled message deleted.',
    resolve: (p) => num(p.event.wire, 'scheduled_message_id'),
  }),
}));

export const UserTopicEventRef = otherType('UserTopicEvent', 'The caller\u2019s visibility preference for a topic changed (kind USER_TOPIC).');
builder.objectFields(UserTopicEventRef, (t) => ({
  channelId: t.field({ type: 'Long', nullable: true, description: 'The channel.', resolve: (p) => num(p.event.wire, 'stream_id') }),
  channel: t.field({ type: ChannelRef, nullable: true, description: 'The channel.', resolve: (p, _a, ctx) => loadChannel(ctx, num(p.event.wire, 'stream_id')) }),
  topic: t.string({ nullable: true, description: 'The topic.', resolve: (p) => str(p.event.wire, 'topic_name') }),
  visibilityPolicy: t.field({
    type: VisibilityPolicyEnum,
    nullable: true,
    description: 'The policy now; null for a value newer than this schema.',
    resolve: (p) => {
      const policy = num(p.event.wire, 'visibility_policy');
      return policy === 0 || policy === 1 || policy === 2 || policy === 3 ? policy : null;
    },
  }),
  lastUpdated: t.field({ type: 'Long', nullable: true, description: 'When it changed (UNIX seconds).', resolve: (p) => num(p.event.wire, 'last_updated') }),
}));

export const SettingsEventRef = otherType('SettingsEvent', 'One of the caller\u2019s personal settings changed (kind SETTINGS).');
builder.objectFields(SettingsEventRef, (t) => ({
  property: t.string({
    nullable: true,
    description: 'The setting\u2019s name, as `PATCH /settings` names it.',
    resolve: (p) => str(p.event.wire, 'property') ?? str(p.event.wire, 'setting_name') ?? str(p.event.wire, 'notification_name'),
  }),
  value: t.field({
    type: 'JSON',
    nullable: true,
    description: 'Its new value.',
    resolve: (p) => p.event.wire.value ?? p.event.wire.setting ?? null,
  }),
  languageName: t.string({ nullable: true, description: 'For `default_language`: the language\u2019s name.', resolve: (p) => str(p.event.wire, 'language_name') }),
}));

export const AlertWordsEventRef = otherType('AlertWordsEvent', 'The caller\u2019s alert words changed (kind ALERT_WORDS).');
builder.objectFields(AlertWordsEventRef, (t) => ({
  alertWords: t.stringList({
    description: 'The whole new list.',
    resolve: (p) => (Array.isArray(p.event.wire.alert_words) ? p.event.wire.alert_words.filter((w): w is string => typeof w === 'string') : []),
  }),
}));

export const MutedUsersEventRef = otherType('MutedUsersEvent', 'The users the caller muted changed (kind MUTED_USERS).');
builder.objectFields(MutedUsersEventRef, (t) => ({
  userIds: t.field({
    type: ['Long'],
    description: 'Every muted user now.',
    resolve: (p) => objects(p.event.wire.muted_users).map((m) => num(m, 'id')).filter((x): x is number => x !== null),
  }),
}));

/**
 * Organization-level events: a typed envelope and an opaque payload. `withOp` for the types whose
 * wire events always carry an op (the parser turns any other op into an UnknownEvent).
 */
function dataType(name: string, description: string, withOp = true) {
  const ref = otherType(name, description);
  builder.objectFields(ref, (t) => ({
    ...(withOp && { op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }) }),
    data: t.field({ type: 'JSON', description: 'The event\u2019s fields as the server sent them.', resolve: (p) => dataOf(p.event.wire) }),
  }));
  return ref;
}

export const AttachmentEventRef = dataType('AttachmentEvent', 'The caller\u2019s uploaded files changed (kind ATTACHMENT).');
export const SavedSnippetsEventRef = dataType('SavedSnippetsEvent', 'The caller\u2019s saved snippets changed (kind SAVED_SNIPPETS).');
export const CustomProfileFieldsEventRef = dataType('CustomProfileFieldsEvent', 'Custom profile fields changed (kind CUSTOM_PROFILE_FIELDS).', false);
export const RealmEventRef = dataType('RealmEvent', 'An organization setting changed, or the organization was deactivated (kind REALM).');
export const RealmBotEventRef = dataType('RealmBotEvent', 'A bot the caller administers changed (kind REALM_BOT).');
export const RealmDomainsEventRef = dataType('RealmDomainsEvent', 'Allowed email domains changed (kind REALM_DOMAINS).');
export const RealmEmojiEventRef = dataType('RealmEmojiEvent', 'Custom emoji changed (kind REALM_EMOJI).');
export const RealmUserSettingsDefaultsEventRef = dataType(
  'RealmUserSettingsDefaultsEvent',
  'A default setting for new users changed (kind REALM_USER_SETTINGS_DEFAULTS).',
);

export const ServerRestartEventRef = otherType('ServerRestartEvent', 'The chat server restarted; the stream continues (kind SERVER_RESTART).');
builder.objectFields(ServerRestartEventRef, (t) => ({
  featureLevel: t.int({ nullable: true, description: 'The server\u2019s feature level now.', resolve: (p) => num(p.event.wire, 'zulip_feature_level') }),
  version: t.string({ nullable: true, description: 'The server\u2019s version now.', resolve: (p) => str(p.event.wire, 'zulip_version') }),
}));

export const UnknownEventRef = otherType('UnknownEvent', 'An event this gateway does not model, passed through (kind UNKNOWN).');
builder.objectFields(UnknownEventRef, (t) => ({
  type: t.string({ description: 'The server\u2019s event type.', resolve: (p) => p.event.wire.type }),
  operation: t.string({ nullable: true, description: 'The server\u2019s operation (`op`), if any.', resolve: (p) => str(p.event.wire, 'op') }),
  data: t.field({ type: 'JSON', description: 'The event\u2019s fields as the server sent them.', resolve: (p) => dataOf(p.event.wire) }),
}));

export const ResyncEventRef = eventType<Payload<ResyncData>>(
  'ResyncEvent',
  'Events may have been missed and cannot be replayed: refetch what you display by query, then carry on (kind RESYNC). ' +
    'Its cursor is a valid resume point.',
);
builder.objectFields(ResyncEventRef, (t) => ({
  reason: t.field({ type: ResyncReasonEnum, description: 'Why.', resolve: (p) => p.event.reason }),
  featureLevel: t.int({ nullable: true, description: 'The chat server\u2019s feature level now.', resolve: (p) => p.event.featureLevel }),
}));

/** The GraphQL type of each kind. */
const TYPE_BY_KIND: Record<EventKind, string> = {
  MESSAGE: 'MessageEvent',
  MESSAGE_UPDATED: 'MessageUpdatedEvent',
  MESSAGE_MOVED: 'MessageMovedEvent',
  MESSAGE_DELETED: 'MessageDeletedEvent',
  SUBMESSAGE: 'SubmessageEvent',
  REACTION_ADDED: 'ReactionEvent',
  REACTION_REMOVED: 'ReactionEvent',
  FLAGS_ADDED: 'MessageFlagsEvent',
  FLAGS_REMOVED: 'MessageFlagsEvent',
  TYPING_STARTED: 'TypingEvent',
  TYPING_STOPPED: 'TypingEvent',
  TYPING_EDIT_MESSAGE: 'TypingEditMessageEvent',
  PRESENCE: 'PresenceEvent',
  USER_STATUS: 'UserStatusEvent',
  SUBSCRIPTION: 'SubscriptionEvent',
  CHANNEL: 'ChannelEvent',
  DEFAULT_CHANNELS: 'DefaultChannelsEvent',
  USER: 'UserEvent',
  USER_GROUP: 'UserGroupEvent',
  DRAFTS: 'DraftsEvent',
  SCHEDULED_MESSAGES: 'ScheduledMessagesEvent',
  USER_TOPIC: 'UserTopicEvent',
  SETTINGS: 'SettingsEvent',
  ALERT_WORDS: 'AlertWordsEvent',
  MUTED_USERS: 'MutedUsersEvent',
  ATTACHMENT: 'AttachmentEvent',
  SAVED_SNIPPETS: 'SavedSnippetsEvent',
  CUSTOM_PROFILE_FIELDS: 'CustomProfileFieldsEvent',
  REALM: 'RealmEvent',
  REALM_BOT: 'RealmBotEvent',
  REALM_DOMAINS: 'RealmDomainsEvent',
  REALM_EMOJI: 'RealmEmojiEvent',
  REALM_USER_SETTINGS_DEFAULTS: 'RealmUserSettingsDefaultsEvent',
  SERVER_RESTART: 'ServerRestartEvent',
  UNKNOWN: 'UnknownEvent',
  RESYNC: 'ResyncEvent',
};

const resolveEventType = (p: Payload) => TYPE_BY_KIND[p.event.kind];

export const ChatEventUnion = builder.unionType('ChatEvent', {
  description: 'Any real-time event. Every member implements `Event` (cursor and kind).',
  types: [
    MessageEventRef,
    MessageUpdatedEventRef,
    MessageMovedEventRef,
    MessageDeletedEventRef,
    SubmessageEventRef,
    ReactionEventRef,
    MessageFlagsEventRef,
    TypingEventRef,
    TypingEditMessageEventRef,
    PresenceEventRef,
    UserStatusEventRef,
    SubscriptionEventRef,
    ChannelEventRef,
    DefaultChannelsEventRef,
    UserEventRef,
    UserGroupEventRef,
    DraftsEventRef,
    ScheduledMessagesEventRef,
    UserTopicEventRef,
    SettingsEventRef,
    AlertWordsEventRef,
    MutedUsersEventRef,
    AttachmentEventRef,
    SavedSnippetsEventRef,
    CustomProfileFieldsEventRef,
    RealmEventRef,
    RealmBotEventRef,
    RealmDomainsEventRef,
    RealmEmojiEventRef,
    RealmUserSettingsDefaultsEventRef,
    ServerRestartEventRef,
    UnknownEventRef,
    ResyncEventRef,
  ],
  resolveType: resolveEventType,
});

/** The kinds `messages` delivers. */
const MESSAGE_STREAM_KINDS: EventKind[] = ['MESSAGE', 'MESSAGE_UPDATED', 'MESSAGE_MOVED', 'MESSAGE_DELETED', 'REACTION_ADDED', 'REACTION_REMOVED'];

export const MessageStreamEventUnion = builder.unionType('MessageStreamEvent', {
  description: 'What changes the messages of a narrow: new, edited, moved and deleted messages, reactions, and resyncs.',
  types: [MessageEventRef, MessageUpdatedEventRef, MessageMovedEventRef, MessageDeletedEventRef, ReactionEventRef, ResyncEventRef],
  resolveType: resolveEventType,
});

// ---- inputs --------------------------------------------------------------------------------------------

interface EventFilterShape {
  kinds?: EventKind[] | null;
  channelId?: number | null;
  topic?: string | null;
  narrow?: NarrowShape | null;
}

export const EventFilterInput = builder.inputRef<EventFilterShape>('EventFilterInput').implement({
  description:
    'Which events to deliver; every field given must hold. With `channelId`, `topic` or `narrow`, only events ' +
    'that happen in a matching conversation pass (messages and their edits, moves, deletions and reactions; ' +
    'typing; and, for channel and topic conditions, channel, subscription and topic-preference changes). ' +
    '`ResyncEvent`s always pass.',
  fields: (t) => ({
    kinds: t.field({ type: [EventKindEnum], required: false, description: 'Only these kinds (at least one). Default: every kind.' }),
    channelId: t.field({ type: 'Long', required: false, description: 'Only events in this channel.' }),
    topic: t.string({ required: false, description: 'Only events in this topic (case-insensitive; any channel unless channelId is set).' }),
    narrow: t.field({
      type: NarrowInput,
      required: false,
      description:
        'A narrow, evaluated by the gateway: channelId, channelName, topic, senderId, dmUserIds, dmIncluding, id, ' +
        '`is` (DM, UNREAD, STARRED, MENTIONED, ALERTED, RESOLVED) and `not`. Other conditions are refused.',
    }),
  }),
});

interface ConversationShape {
  channelId?: number | null;
  topic?: string | null;
  dmUserIds?: number[] | null;
}

export const ConversationInput = builder.inputRef<ConversationShape>('ConversationInput').implement({
  description: 'One conversation: a channel topic (`channelId` and `topic`), or a direct-message conversation (`dmUserIds`).',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: false, description: 'The channel of a topic.' }),
    topic: t.string({ required: false, description: 'The topic (case-insensitive).' }),
    dmUserIds: t.field({ type: ['Long'], required: false, description: 'The other participants of a direct-message conversation.' }),
  }),
});

const SUBSCRIBABLE_STATES: ReadonlySet<string> = new Set<NarrowState>(['dm', 'unread', 'starred', 'mentioned', 'alerted', 'resolved']);

function positiveId(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw badInput(`${what} must be a positive ID.`);
  return value;
}

/** The filter terms of a narrow; refuses conditions an event cannot be tested against. */
function termsFromNarrow(narrow: NarrowShape, negated = false): FilterTerm[] {
  const terms: FilterTerm[] = [];
  const add = (term: FilterTerm) => terms.push(negated ? { ...term, negated: true } : term);
  const refuse = (field: string) => {
    throw badInput(`NarrowInput.${field} cannot be used in a subscription: events do not carry what it needs.`);
  };
  if (narrow.channels != null) refuse('channels');
  if (narrow.has != null) refuse('has');
  if (narrow.search != null) refuse('search');
  if (narrow.channelId != null && narrow.channelName != null) throw badInput('NarrowInput: give channelId or channelName, not both.');
  if (narrow.channelId != null) add({ operator: 'channel', channelId: positiveId(narrow.channelId, 'NarrowInput.channelId') });
  if (narrow.channelName != null) add({ operator: 'channelName', name: narrow.channelName });
  if (narrow.topic != null) add({ operator: 'topic', topic: narrow.topic });
  if (narrow.senderId != null) add({ operator: 'sender', userId: positiveId(narrow.senderId, 'NarrowInput.senderId') });
  if (narrow.dmUserIds != null) {
    if (narrow.dmUserIds.length === 0) throw badInput('NarrowInput.dmUserIds must name at least one user.');
    add({ operator: 'dm', userIds: narrow.dmUserIds.map((id) => positiveId(id, 'NarrowInput.dmUserIds')) });
  }
  if (narrow.dmIncluding != null) add({ operator: 'dmIncluding', userId: positiveId(narrow.dmIncluding, 'NarrowInput.dmIncluding') });
  if (narrow.id != null) add({ operator: 'id', messageId: positiveId(narrow.id, 'NarrowInput.id') });
  for (const state of narrow.is ?? []) {
    if (!SUBSCRIBABLE_STATES.has(state)) refuse(`is: ${state.toUpperCase()}`);
    add({ operator: 'is', state: state as NarrowState });
  }
  if (narrow.not) {
    if (negated) throw badInput('NarrowInput.not cannot be nested.');
    terms.push(...termsFromNarrow(narrow.not, true));
  }
  return terms;
}

function filterFromInput(input: EventFilterShape | null | undefined): FilterSpec {
  if (!input) return {};
  const spec: FilterSpec = {};
  if (input.kinds != null) {
    if (input.kinds.length === 0) throw badInput('EventFilterInput.kinds must name at least one kind (or be left out for all).');
    spec.kinds = input.kinds;
  }
  const terms: FilterTerm[] = [];
  if (input.channelId != null) terms.push({ operator: 'channel', channelId: positiveId(input.channelId, 'EventFilterInput.channelId') });
  if (input.topic != null) terms.push({ operator: 'topic', topic: input.topic });
  if (input.narrow) terms.push(...termsFromNarrow(input.narrow));
  if (terms.length > 0) spec.terms = terms;
  return spec;
}

function conversationTerms(input: ConversationShape): FilterTerm[] {
  const channel = input.channelId != null || input.topic != null;
  const direct = input.dmUserIds != null;
  if (channel === direct) throw badInput('ConversationInput: give channelId and topic, or dmUserIds.');
  if (direct) {
    if (input.dmUserIds!.length === 0) throw badInput('ConversationInput.dmUserIds must name at least one user.');
    return [{ operator: 'dm', userIds: input.dmUserIds!.map((id) => positiveId(id, 'ConversationInput.dmUserIds')) }];
  }
  if (input.channelId == null || input.topic == null) throw badInput('ConversationInput: a channel conversation needs channelId and topic.');
  return [
    { operator: 'channel', channelId: positiveId(input.channelId, 'ConversationInput.channelId') },
    { operator: 'topic', topic: input.topic },
  ];
}

function cursorFromArgument(after: string | null | undefined): Cursor | undefined {
  if (after == null) return undefined;
  const cursor = decodeCursor(after);
  if (!cursor) throw badInput('`after` is not a cursor this gateway handed out.');
  return cursor;
}

// ---- from hub deliveries to GraphQL payloads -------------------------------------------------------------

/**
 * Loaders shared by every subscription of one credential for one upstream batch (keyed by the
 * session's scope object, so they are collected with it). Only the latest batch's are kept: a long
 * subscription never serves a user list older than the events it delivers.
 */
const sharedLoaders = new WeakMap<object, { batch: object; loaders: Loaders }>();

function loadersFor(ctx: Context, delivery: Delivery): Loaders {
  const cached = sharedLoaders.get(delivery.scope);
  if (cached?.batch === delivery.batch) return cached.loaders;
  const loaders = createLoaders(ctx.connection);
  sharedLoaders.set(delivery.scope, { batch: delivery.batch, loaders });
  return loaders;
}

function hubOf(ctx: Context): EventHub {
  if (!ctx.events) throw new Error('the event hub is not installed (useEventHub in yoga.ts)');
  return ctx.events;
}

async function open(ctx: Context, spec: FilterSpec, after?: Cursor): Promise<Subscriber> {
  requireCredentials(ctx);
  return hubOf(ctx).subscribe(ctx.connection, { filter: spec, ...(after && { after }) });
}

const DONE = { done: true, value: undefined } as const;

/**
 * An async iterator over a subscriber. Hand-written rather than an async generator: `return()`
 * must end the subscription at once even while `next()` waits for an event, and a generator
 * would queue it behind that wait.
 */
function iterate<T>(subscriber: Subscriber, step: () => Promise<IteratorResult<T> | undefined>): AsyncIterableIterator<T> {
  return {
    async next() {
      for (;;) {
        const result = await step();
        if (result) return result;
      }
    },
    async return() {
      await subscriber.return();
      return DONE;
    },
    async throw(error?: unknown) {
      await subscriber.return();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function ended(item: Extract<SubscriberItem, { type: 'end' }>): Ended {
  return { ended: { code: END_CODES[item.reason] ?? 'SUBSCRIPTION_CLOSED', message: item.message } };
}

/** Decides an event the hub could not place without the message; an unreadable message lets it through. */
async function passesLookup(ctx: Context, filter: EventFilter, event: GatewayEvent, messageId: number | undefined): Promise<boolean> {
  if (messageId === undefined) return true;
  let message: Message;
  try {
    message = await ctx.loaders.messages.load(messageId);
  } catch {
    return true;
  }
  return filter.testMessage(event, message);
}

function eventPayloads(ctx: Context, subscriber: Subscriber, spec: FilterSpec): AsyncIterableIterator<Payload | Ended> {
  const filter = compileFilter(spec);
  return iterate<Payload | Ended>(subscriber, async () => {
    const result = await subscriber.next();
    if (result.done) return DONE;
    const item = result.value;
    if (item.type === 'end') return { done: false, value: ended(item) };
    const { delivery } = item;
    // The next execution resolves with this batch's loaders (see sharedLoaders).
    ctx.loaders = loadersFor(ctx, delivery);
    if (delivery.verdict === 'lookup' && !(await passesLookup(ctx, filter, delivery.event, messageIdOf(delivery.event)))) return undefined;
    return { done: false, value: { cursor: delivery.cursor, event: delivery.event } };
  });
}

// ---- typing state ------------------------------------------------------------------------------------------

interface TypingStatePayload {
  cursor: string | null;
  typistIds: number[];
  resynced: boolean;
}

export const TypingStateRef = builder.objectRef<TypingStatePayload>('TypingState').implement({
  description: 'Who is typing in one conversation, sent whenever it changes (a start, a stop, or a start that expired).',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: 'The cursor of the latest event that went into this state.', resolve: (s) => s.cursor }),
    typistIds: t.field({ type: ['Long'], description: 'The users typing now, in the order they started.', resolve: (s) => s.typistIds }),
    typists: t.field({
      type: [UserRef],
      description: 'The users typing now.',
      resolve: (s, _args, ctx) => ctx.loaders.users.loadMany(s.typistIds).then((users) => users.filter((u): u is Exclude<typeof u, Error> => !(u instanceof Error))),
    }),
    resynced: t.boolean({
      description: 'True when events may have been missed: the state was reset and rebuilds as people type.',
      resolve: (s) => s.resynced,
    }),
  }),
});

function typingStates(ctx: Context, subscriber: Subscriber, expiryMs: number): AsyncIterableIterator<TypingStatePayload | Ended> {
  const expiries = new Map<number, number>();
  let cursor: string | null = null;
  const state = (resynced: boolean) => ({ done: false as const, value: { cursor, typistIds: [...expiries.keys()], resynced } });
  const prune = () => {
    const now = Date.now();
    let changed = false;
    for (const [id, at] of expiries) if (at <= now) changed = expiries.delete(id) || changed;
    return changed;
  };
  return iterate<TypingStatePayload | Ended>(subscriber, async () => {
    const soonest = expiries.size > 0 ? Math.min(...expiries.values()) - Date.now() : undefined;
    const result = soonest === undefined ? await subscriber.next() : await subscriber.nextWithin(soonest);
    if (result === undefined) return prune() ? state(false) : undefined;
    if (result.done) return DONE;
    const item = result.value;
    if (item.type === 'end') return { done: false, value: ended(item) };
    const { delivery } = item;
    ctx.loaders = loadersFor(ctx, delivery);
    cursor = delivery.cursor;
    const event = delivery.event;
    if (event.kind === 'RESYNC') {
      expiries.clear();
      return state(true);
    }
    if (event.kind !== 'TYPING_STARTED' && event.kind !== 'TYPING_STOPPED') return undefined;
    const id = event.wire.sender.user_id;
    const known = expiries.has(id);
    // A start renews the expiry; a renewal alone is not a change worth sending.
    if (event.kind === 'TYPING_STARTED') expiries.set(id, Date.now() + expiryMs);
    else expiries.delete(id);
    const expired = prune();
    return known === (event.kind === 'TYPING_STARTED') && !expired ? undefined : state(false);
  });
}

// ---- subscription fields -----------------------------------------------------------------------------------

builder.subscriptionType({ description: 'Real-time events from the chat server.' });

const AFTER_DESCRIPTION =
  'Resume after this cursor (the `cursor` of the last event received): missed events are replayed first, or a ' +
  '`ResyncEvent` comes first when they can no longer be.';

builder.subscriptionField('events', (t) =>
  t.field({
    type: ChatEventUnion,
    description:
      'Every real-time event of the caller, filtered. One upstream event queue serves all subscriptions of a ' +
      'credential.',
    args: {
      filter: t.arg({ type: EventFilterInput, required: false, description: 'Which events; default: all.' }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => {
      const spec = filterFromInput(args.filter);
      const after = cursorFromArgument(args.after);
      return eventPayloads(ctx, await open(ctx, spec, after), spec);
    },
    // The union's resolveType picks the member type from the event's kind.
    resolve: (item: Payload | Ended) => throwIfEnded(item) as never,
  }),
);

builder.subscriptionField('messages', (t) =>
  t.field({
    type: MessageStreamEventUnion,
    description: 'New, edited, moved and deleted messages, and reactions, in a narrow (default: everything the caller receives).',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages (evaluated by the gateway; see EventFilterInput.narrow).' }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => {
      const spec: FilterSpec = { kinds: MESSAGE_STREAM_KINDS, terms: args.narrow ? termsFromNarrow(args.narrow) : [] };
      const after = cursorFromArgument(args.after);
      return eventPayloads(ctx, await open(ctx, spec, after), spec);
    },
    // The union's resolveType picks the member type from the event's kind.
    resolve: (item: Payload | Ended) => throwIfEnded(item) as never,
  }),
);

builder.subscriptionField('typing', (t) =>
  t.field({
    type: TypingStateRef,
    description:
      'Who is typing in one conversation. A new state is sent whenever someone starts, stops, or stops renewing ' +
      'their start for the server\u2019s typing expiry period.',
    args: { conversation: t.arg({ type: ConversationInput, required: true, description: 'The conversation.' }) },
    subscribe: async (_root, args, ctx) => {
      const spec: FilterSpec = { kinds: ['TYPING_STARTED', 'TYPING_STOPPED'], terms: conversationTerms(args.conversation) };
      const subscriber = await open(ctx, spec);
      return typingStates(ctx, subscriber, subscriber.typingExpiryMs);
    },
    resolve: (item: TypingStatePayload | Ended) => throwIfEnded(item),
  }),
);
