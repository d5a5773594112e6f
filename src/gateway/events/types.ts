/**
 * The one table of queue event types (https://zulip.com/api/get-events): for each raw `type` (and,
 * where the kind depends on it, each `op`), what it means to every part of the gateway:
 *
 * - `kinds`: what GraphQL subscribers receive (events/model.ts), each kind with the live resources
 *   it changes (`live`, the vocabulary of live/resources.ts);
 * - `directory`: what it does to the credential's live directory (directory/directory.ts dispatches
 *   on it to directory/apply/);
 * - `unreads`: what it does to the caller's unread counts (directory/unreads.ts);
 * - `messageCache`: what it does to the cached message windows (directory/messages/events.ts);
 * - `registered`: whether every credential's queue registers for it;
 * - `sync`: what the credential's change log keeps of it (sync/log.ts), `other` when absent.
 *
 * Everything else is derived from this table: the parser's kinds and ops, the registered types, the
 * directory's and the unreads' types, the message cache's inert types, and the live invalidation
 * by kind. A type not in the table is `UNKNOWN` to subscribers, drops every cached message window
 * and re-runs every live query: a newer server's event is never applied half-understood.
 *
 * This module is data: it imports nothing, so that the event hub, the directory and the live
 * queries can all read it.
 */

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
 * The live resources a kind changes (live/resources.ts computes the names from the event):
 * - `newMessage`: the narrows that may list it, its channel and topics, and `Unreads` unless read;
 * - `editedMessage`: the message (and `Unreads` when a mention of an unread message changed);
 * - `movedMessages`, `deletedMessages`: the messages, the narrows of both places, `Unreads`;
 * - `messageEntity`: the one message (a reaction, a submessage);
 * - `flags`: the messages (every narrow for `all`), flag narrows, `Unreads` for read and mentions;
 * - `presence`, `user`, `channel`, `subscription`, `userTopic`, `userGroup`: that entity and the
 *   root lists it is in;
 * - `nothing`: typing notifications change nothing a query reads;
 * - `everything`: every live query of the credential (changes no narrower resource covers).
 */
export type LiveEffect =
  | 'newMessage'
  | 'editedMessage'
  | 'movedMessages'
  | 'deletedMessages'
  | 'messageEntity'
  | 'flags'
  | 'presence'
  | 'user'
  | 'channel'
  | 'subscription'
  | 'userTopic'
  | 'userGroup'
  | 'nothing'
  | 'everything';

/** What the live directory does with an event (directory/apply/, directory/directory.ts). */
export type DirectoryEffect =
  /** `realm_user`: a user added, changed or removed (apply/users.ts). */
  | 'users'
  /** `stream`: a channel created, changed or deleted (apply/channels.ts). */
  | 'channels'
  /** `subscription`: the caller's subscriptions (apply/channels.ts). */
  | 'subscriptions'
  /** `user_group` (apply/user-groups.ts). */
  | 'userGroups'
  /** `realm`: the kept realm limits (apply/realm.ts). */
  | 'realm'
  /** The server restarted: object shapes may have changed with its version, reload. */
  | 'reload';

/** What the caller's unread counts do with an event (directory/unreads.ts). */
export type UnreadsEffect =
  /** A new message: unread unless it carries the `read` flag. */
  | 'message'
  /** `read` (and mention) flags added or removed. */
  | 'flags'
  /** Deleted messages are no longer unread. */
  | 'delete'
  /** A move changes where a message counts; an edit may add or remove a mention. */
  | 'update'
  /** A topic's visibility policy: muted topics do not count. */
  | 'topicPolicy';

/** What the message cache does with an event (directory/messages/events.ts). */
export type MessageCacheEffect =
  /** Never changes a message as `GET /messages` serves it. */
  | 'none'
  /** Appended to every window whose narrow matches it. */
  | 'insert'
  /** Removed from every window. */
  | 'remove'
  /** The message's reaction list. */
  | 'reactions'
  /** The flags a client may change; other flags drop the windows. */
  | 'flags'
  /** Edits and moves: the windows holding the messages (and, for a move, every channel window) are dropped. */
  | 'edit'
  /** The windows holding the message are dropped. */
  | 'submessage'
  /** A user's name, email or avatar changed: the windows showing them are dropped. */
  | 'senders'
  /** A channel renamed or deleted: the windows showing it are dropped. */
  | 'channelNames'
  /** The caller left a channel: the windows narrowed to it are dropped. */
  | 'leave'
  /** Realm settings that change how messages are served (edit history): every window is dropped. */
  | 'realmPolicy'
  /** Topic links are computed with the linkifiers: every window is dropped. */
  | 'linkifiers'
  /** The queue is gone with the server's restart: every window is dropped. */
  | 'reset';

/**
 * What the change log behind `changes(since:)` keeps of an event (sync/log.ts), each compacted to a
 * final state by what it is about:
 * - `created`, `edited`, `deleted`: a message's final state (or its absence);
 * - `flags`, `reaction`: a flag or reaction of a message, by final value;
 * - `user`, `channel`, `subscription`, `userGroup`: the object's id (its final state is read when asked);
 * - `setting`: one of the caller's settings, by name;
 * - `none`: nothing a reopening client needs (momentary: typing; the queue's own: heartbeat, restart);
 * - `other` (the default, and every type the table does not know): the event itself, the last one
 *   about the same thing.
 */
export type SyncEffect = 'created' | 'edited' | 'deleted' | 'flags' | 'reaction' | 'user' | 'channel' | 'subscription' | 'userGroup' | 'setting' | 'none' | 'other';

/** The kinds one event yields, each with the live resources it changes. */
export type Kinds = Readonly<Partial<Record<EventKind, LiveEffect>>>;

export interface EventTypeEntry {
  /** Every credential's queue registers for it (events/hub.ts). */
  readonly registered: boolean;
  /**
   * The kinds subscribers receive (`update_message` yields up to two). Absent: `UNKNOWN`; empty:
   * nothing (`heartbeat`).
   */
  readonly kinds?: Kinds;
  /** For types whose kind depends on the op: each op's kinds. An op not listed is `UNKNOWN`. */
  readonly ops?: Readonly<Record<string, Kinds>>;
  readonly directory?: DirectoryEffect;
  readonly unreads?: UnreadsEffect;
  readonly messageCache: MessageCacheEffect;
  /** @default 'other' */
  readonly sync?: SyncEffect;
}

const everything = (kind: EventKind): Kinds => ({ [kind]: 'everything' });
/** The same kinds for every op listed. */
const sameForOps = (ops: readonly string[], kinds: Kinds): Record<string, Kinds> => Object.fromEntries(ops.map((op) => [op, kinds]));
const addUpdateRemove = (kind: EventKind) => sameForOps(['add', 'update', 'remove'], everything(kind));

/**
 * The table. Registered types first, in the order the queue registers them; then the types other
 * registrations (the live directory's, a caller's own) may bring, which only the message cache
 * reads. `update_display_settings` and `update_global_notifications` are the legacy settings
 * events of servers without `user_settings_object` (removed in Zulip 12.0, feature level 439).
 */
export const EVENT_TYPES: Readonly<Record<string, EventTypeEntry>> = {
  message: { registered: true, kinds: { MESSAGE: 'newMessage' }, unreads: 'message', messageCache: 'insert', sync: 'created' },
  update_message: {
    registered: true,
    kinds: { MESSAGE_UPDATED: 'editedMessage', MESSAGE_MOVED: 'movedMessages' },
    unreads: 'update',
    messageCache: 'edit',
    sync: 'edited',
  },
  delete_message: { registered: true, kinds: { MESSAGE_DELETED: 'deletedMessages' }, unreads: 'delete', messageCache: 'remove', sync: 'deleted' },
  submessage: { registered: true, kinds: { SUBMESSAGE: 'messageEntity' }, messageCache: 'submessage' },
  reaction: {
    registered: true,
    ops: { add: { REACTION_ADDED: 'messageEntity' }, remove: { REACTION_REMOVED: 'messageEntity' } },
    messageCache: 'reactions',
    sync: 'reaction',
  },
  update_message_flags: {
    registered: true,
    ops: { add: { FLAGS_ADDED: 'flags' }, remove: { FLAGS_REMOVED: 'flags' } },
    unreads: 'flags',
    messageCache: 'flags',
    sync: 'flags',
  },
  typing: { registered: true, ops: { start: { TYPING_STARTED: 'nothing' }, stop: { TYPING_STOPPED: 'nothing' } }, messageCache: 'none', sync: 'none' },
  typing_edit_message: { registered: true, ops: sameForOps(['start', 'stop'], { TYPING_EDIT_MESSAGE: 'nothing' }), messageCache: 'none', sync: 'none' },
  presence: { registered: true, kinds: { PRESENCE: 'presence' }, messageCache: 'none' },
  user_status: { registered: true, kinds: everything('USER_STATUS'), messageCache: 'none' },
  subscription: {
    registered: true,
    ops: sameForOps(['add', 'remove', 'update', 'peer_add', 'peer_remove'], { SUBSCRIPTION: 'subscription' }),
    directory: 'subscriptions',
    messageCache: 'leave',
    sync: 'subscription',
  },
  stream: { registered: true, ops: sameForOps(['create', 'delete', 'update'], { CHANNEL: 'channel' }), directory: 'channels', messageCache: 'channelNames', sync: 'channel' },
  default_streams: { registered: true, kinds: everything('DEFAULT_CHANNELS'), messageCache: 'none' },
  realm_user: { registered: true, ops: sameForOps(['add', 'update', 'remove'], { USER: 'user' }), directory: 'users', messageCache: 'senders', sync: 'user' },
  user_group: {
    registered: true,
    ops: sameForOps(['add', 'update', 'remove', 'add_members', 'remove_members', 'add_subgroups', 'remove_subgroups'], { USER_GROUP: 'userGroup' }),
    directory: 'userGroups',
    messageCache: 'none',
    sync: 'userGroup',
  },
  drafts: { registered: true, ops: addUpdateRemove('DRAFTS'), messageCache: 'none' },
  scheduled_messages: { registered: true, ops: addUpdateRemove('SCHEDULED_MESSAGES'), messageCache: 'none' },
  user_topic: { registered: true, kinds: { USER_TOPIC: 'userTopic' }, unreads: 'topicPolicy', messageCache: 'none' },
  user_settings: { registered: true, ops: { update: everything('SETTINGS') }, messageCache: 'none', sync: 'setting' },
  update_display_settings: { registered: true, kinds: everything('SETTINGS'), messageCache: 'none' },
  update_global_notifications: { registered: true, kinds: everything('SETTINGS'), messageCache: 'none' },
  alert_words: { registered: true, kinds: everything('ALERT_WORDS'), messageCache: 'none' },
  muted_users: { registered: true, kinds: everything('MUTED_USERS'), messageCache: 'none' },
  attachment: { registered: true, ops: addUpdateRemove('ATTACHMENT'), messageCache: 'none' },
  saved_snippets: { registered: true, ops: addUpdateRemove('SAVED_SNIPPETS'), messageCache: 'none' },
  custom_profile_fields: { registered: true, kinds: everything('CUSTOM_PROFILE_FIELDS'), messageCache: 'none' },
  realm: { registered: true, ops: sameForOps(['update', 'update_dict', 'deactivated'], everything('REALM')), directory: 'realm', messageCache: 'realmPolicy' },
  realm_bot: { registered: true, ops: sameForOps(['add', 'update', 'delete', 'remove'], everything('REALM_BOT')), messageCache: 'none' },
  realm_domains: { registered: true, ops: sameForOps(['add', 'change', 'remove'], everything('REALM_DOMAINS')), messageCache: 'none' },
  realm_emoji: { registered: true, ops: { update: everything('REALM_EMOJI') }, messageCache: 'none' },
  realm_user_settings_defaults: { registered: true, ops: { update: everything('REALM_USER_SETTINGS_DEFAULTS') }, messageCache: 'none' },
  restart: { registered: true, kinds: everything('SERVER_RESTART'), directory: 'reload', messageCache: 'reset', sync: 'none' },
  // Not registered for subscribers (web_reload_client is for the web app; heartbeat always comes).
  heartbeat: { registered: false, kinds: {}, messageCache: 'none', sync: 'none' },
  default_stream_groups: { registered: false, messageCache: 'none' },
  realm_linkifiers: { registered: false, messageCache: 'linkifiers' },
  realm_playgrounds: { registered: false, messageCache: 'none' },
  onboarding_steps: { registered: false, messageCache: 'none' },
  navigation_view: { registered: false, messageCache: 'none' },
  has_zoom_token: { registered: false, messageCache: 'none' },
  invites_changed: { registered: false, messageCache: 'none' },
  web_reload_client: { registered: false, messageCache: 'none', sync: 'none' },
};

/** The table's entry for a raw type; undefined for a type it does not know. */
export function eventTypeEntry(type: string): EventTypeEntry | undefined {
  return Object.hasOwn(EVENT_TYPES, type) ? EVENT_TYPES[type] : undefined;
}

const entries = Object.entries(EVENT_TYPES);

/** The types every credential's queue registers for (docs/events.md, "One queue per credential"). */
export const SUPPORTED_EVENT_TYPES: readonly string[] = entries.filter(([, e]) => e.registered).map(([type]) => type);

/** The types the caller's unread counts follow. */
export const UNREADS_EVENT_TYPES: readonly string[] = entries.filter(([, e]) => e.unreads).map(([type]) => type);

/** The types the live directory follows: its own, then the unread counts'. */
export const DIRECTORY_EVENT_TYPES: readonly string[] = [
  ...entries.filter(([, e]) => e.directory).map(([type]) => type),
  ...UNREADS_EVENT_TYPES,
];

/** The ops each type with ops has. */
export const OPS_BY_TYPE: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  entries.filter(([, e]) => e.ops).map(([type, e]) => [type, Object.keys(e.ops!)]),
);

/** Every op value a typed event may carry (the GraphQL `EventOp` enum). */
export const EVENT_OPS: readonly string[] = [...new Set(Object.values(OPS_BY_TYPE).flat())];

/** The kinds an event of this type and op yields; undefined when the table does not model it (`UNKNOWN`). */
export function kindsOf(type: string, op: unknown): Kinds | undefined {
  const entry = eventTypeEntry(type);
  if (!entry) return undefined;
  if (entry.ops) return Object.hasOwn(entry.ops, String(op)) ? entry.ops[String(op)] : undefined;
  return entry.kinds;
}

/** The live resources of each kind, from every entry that yields it (`UNKNOWN` and `RESYNC`: everything). */
export const LIVE_BY_KIND: Readonly<Partial<Record<EventKind, LiveEffect>>> = Object.fromEntries(
  entries.flatMap(([, e]) => [e.kinds ?? {}, ...Object.values(e.ops ?? {})].flatMap((kinds) => Object.entries(kinds))),
);
