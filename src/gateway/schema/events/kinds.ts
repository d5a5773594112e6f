/**
 * The enums of the event schema and the `Event` interface every event type implements, with the
 * one table that maps each kind of the hub's model to its GraphQL type.
 */
import { builder } from '../../builder.js';
import { EVENT_KINDS, EVENT_OPS, type EventKind } from '../../events/model.js';
import type { Other, Payload } from './payloads.js';

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
    REDIS_UNAVAILABLE: {
      value: 'REDIS_UNAVAILABLE',
      description: 'Cluster mode: Redis was unreachable or lost the event log, so events in between may be missing.',
    },
    CURSOR_EXPIRED: { value: 'CURSOR_EXPIRED', description: 'The resume cursor is older than what the gateway keeps for replay.' },
    CURSOR_UNKNOWN: {
      value: 'CURSOR_UNKNOWN',
      description: 'The resume cursor belongs to an event stream that ended (the gateway restarted, or the stream idled out).',
    },
  } as const,
});

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

export const resolveEventType = (p: Payload) => TYPE_BY_KIND[p.event.kind];

const EventInterface = builder.interfaceRef<Payload>('Event').implement({
  description: 'What every real-time event has.',
  resolveType: resolveEventType,
  fields: (t) => ({
    cursor: t.string({
      description: 'The gateway cursor of this event: subscribe again with `after: cursor` to resume right after it.',
      resolve: (p) => p.cursor,
    }),
    kind: t.field({ type: EventKindEnum, description: 'What happened.', resolve: (p) => p.event.kind }),
  }),
});

/** An event object type; every one implements `Event`. */
export const eventType = <P extends Payload>(name: string, description: string) =>
  builder.objectRef<P>(name).implement({
    description,
    // Pothos cannot prove a generic P extends the interface's shape; every P here is a Payload.
    interfaces: [EventInterface] as never,
    fields: () => ({}),
  });

/** A small event type backed by the wire event of one kind. */
export function otherType(name: string, description: string) {
  return eventType<Other>(name, description);
}
