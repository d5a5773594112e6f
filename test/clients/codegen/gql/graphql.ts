/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** Opaque JSON passed through unchanged, used only for payloads the gateway does not model (for example event types it does not know yet). */
  JSON: { input: unknown; output: unknown; }
  /** An integer that may exceed 32 bits, such as a message ID or an anchor, sent as a JSON number. Inputs must be safe integers (at most 2^53 - 1 in magnitude). Outputs are integers exactly as the chat server sent them; the one larger value in use is the legacy "newest" anchor 10000000000000000, which is exactly representable as a double. */
  Long: { input: number; output: number; }
  /** A file sent with the operation as a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec): its variable is null in `operations`, and `map` names the file part that carries it. One file per request; input only. */
  Upload: { input: File; output: File; }
};

/** When animated image previews play. */
export enum AnimateImagePreviews {
  /** Always. */
  Always = 'ALWAYS',
  /** Never. */
  Never = 'NEVER',
  /** When the pointer is over them. */
  OnHover = 'ON_HOVER'
}

/** The kind of a bot account. */
export enum BotType {
  /** An embedded bot (4), run by the server. */
  Embedded = 'EMBEDDED',
  /** A generic bot (1). */
  Generic = 'GENERIC',
  /** An incoming webhook bot (2): it can only send messages. */
  IncomingWebhook = 'INCOMING_WEBHOOK',
  /** An outgoing webhook bot (3). */
  OutgoingWebhook = 'OUTGOING_WEBHOOK'
}

/** Which channels show a numeric unread count in the left sidebar (the others show a dot). */
export enum ChannelUnreadsDisplayPolicy {
  /** All channels (1). */
  AllChannels = 'ALL_CHANNELS',
  /** No channels (3). */
  NoChannels = 'NO_CHANNELS',
  /** Unmuted channels and topics (2). */
  UnmutedChannelsAndTopics = 'UNMUTED_CHANNELS_AND_TOPICS'
}

/** Which color theme the apps use. */
export enum ColorScheme {
  /** Follow the system setting (1). */
  Automatic = 'AUTOMATIC',
  /** Dark theme (2). */
  Dark = 'DARK',
  /** Light theme (3). */
  Light = 'LIGHT'
}

/** One conversation: a channel topic (`channelId` and `topic`), or a direct-message conversation (`dmUserIds`). */
export type ConversationInput = {
  /** The channel of a topic. */
  channelId?: InputMaybe<Scalars['Long']['input']>;
  /** The other participants of a direct-message conversation. */
  dmUserIds?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** The topic (case-insensitive). */
  topic?: InputMaybe<Scalars['String']['input']>;
};

/** The kind of value a custom profile field holds. */
export enum CustomProfileFieldType {
  /** A date (4), `YYYY-MM-DD`. */
  Date = 'DATE',
  /** A username on an external service (7), e.g. GitHub. */
  ExternalAccount = 'EXTERNAL_ACCOUNT',
  /** Long text (2), Markdown. */
  LongText = 'LONG_TEXT',
  /** Pronouns (8; feature level 151). */
  Pronouns = 'PRONOUNS',
  /** One choice from a list of options (3). */
  Select = 'SELECT',
  /** Short text (1), Markdown. */
  ShortText = 'SHORT_TEXT',
  /** A link (5). */
  Url = 'URL',
  /** A list of users (6). */
  User = 'USER'
}

/** Whether inactive channels are moved down in the channel list. */
export enum DemoteInactiveChannels {
  /** Always (2). */
  Always = 'ALWAYS',
  /** When there are many channels (1). */
  Automatic = 'AUTOMATIC',
  /** Never (3). */
  Never = 'NEVER'
}

/** A draft to create, or the replacement for an existing one. */
export type DraftInput = {
  /** The draft text (Markdown); must not be blank. */
  content: Scalars['String']['input'];
  /** When it was last edited, in UNIX seconds (default: now, by the server’s clock). */
  timestamp?: InputMaybe<Scalars['Long']['input']>;
  /** CHANNEL: exactly one channel ID. DIRECT: the recipients’ user IDs. UNADDRESSED: omit (default []). */
  to?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** The topic of a CHANNEL draft; ignored for the other types (default ""). */
  topic?: InputMaybe<Scalars['String']['input']>;
  /** Who the draft is addressed to. */
  type: DraftType;
};

/** Who a draft is addressed to. */
export enum DraftType {
  /** A topic in a channel (`stream` on the wire). */
  Channel = 'CHANNEL',
  /** One or more users, as a direct message (`private` on the wire). */
  Direct = 'DIRECT',
  /** Nobody yet (the empty type on the wire). */
  Unaddressed = 'UNADDRESSED'
}

/** The personal flags a user can add or remove; the others follow the message content. */
export enum EditableMessageFlag {
  /** The caller collapsed the message. */
  Collapsed = 'COLLAPSED',
  /** The caller has read the message. */
  Read = 'READ',
  /** The caller starred the message. */
  Starred = 'STARRED'
}

/** How emoji are drawn. */
export enum Emojiset {
  /** Google modern. */
  Google = 'GOOGLE',
  /** Google classic ("blobs"). */
  GoogleBlob = 'GOOGLE_BLOB',
  /** Plain text. */
  Text = 'TEXT',
  /** Twitter. */
  Twitter = 'TWITTER'
}

/** Which events to deliver; every field given must hold. With `channelId`, `topic` or `narrow`, only events that happen in a matching conversation pass (messages and their edits, moves, deletions and reactions; typing; and, for channel and topic conditions, channel, subscription and topic-preference changes). `ResyncEvent`s always pass. */
export type EventFilterInput = {
  /** Only events in this channel. */
  channelId?: InputMaybe<Scalars['Long']['input']>;
  /** Only these kinds (at least one). Default: every kind. */
  kinds?: InputMaybe<Array<EventKind>>;
  /** A narrow, evaluated by the gateway: channelId, channelName, topic, senderId, dmUserIds, dmIncluding, id, `is` (DM, UNREAD, STARRED, MENTIONED, ALERTED, RESOLVED) and `not`. Other conditions are refused. */
  narrow?: InputMaybe<NarrowInput>;
  /** Only events in this topic (case-insensitive; any channel unless channelId is set). */
  topic?: InputMaybe<Scalars['String']['input']>;
};

/** The kinds of real-time event a subscription can receive (and filter on). */
export enum EventKind {
  /** The caller’s alert words changed. */
  AlertWords = 'ALERT_WORDS',
  /** The caller’s uploaded files changed. */
  Attachment = 'ATTACHMENT',
  /** A channel was created, deleted or changed. */
  Channel = 'CHANNEL',
  /** The organization’s custom profile fields changed. */
  CustomProfileFields = 'CUSTOM_PROFILE_FIELDS',
  /** The organization’s default channels changed. */
  DefaultChannels = 'DEFAULT_CHANNELS',
  /** The caller’s drafts changed. */
  Drafts = 'DRAFTS',
  /** The caller set a personal flag (read, starred...) on messages. */
  FlagsAdded = 'FLAGS_ADDED',
  /** The caller cleared a personal flag on messages. */
  FlagsRemoved = 'FLAGS_REMOVED',
  /** A new message. */
  Message = 'MESSAGE',
  /** Messages were deleted, or the caller lost access to them. */
  MessageDeleted = 'MESSAGE_DELETED',
  /** Messages moved to another topic and/or channel. */
  MessageMoved = 'MESSAGE_MOVED',
  /** A message’s content was edited (or re-rendered). */
  MessageUpdated = 'MESSAGE_UPDATED',
  /** The set of users the caller muted changed. */
  MutedUsers = 'MUTED_USERS',
  /** A user came online or went idle. */
  Presence = 'PRESENCE',
  /** An emoji reaction was added. */
  ReactionAdded = 'REACTION_ADDED',
  /** An emoji reaction was removed. */
  ReactionRemoved = 'REACTION_REMOVED',
  /** An organization setting changed, or the organization was deactivated. */
  Realm = 'REALM',
  /** A bot the caller administers changed. */
  RealmBot = 'REALM_BOT',
  /** The organization’s allowed email domains changed. */
  RealmDomains = 'REALM_DOMAINS',
  /** The organization’s custom emoji changed. */
  RealmEmoji = 'REALM_EMOJI',
  /** A default setting for new users changed. */
  RealmUserSettingsDefaults = 'REALM_USER_SETTINGS_DEFAULTS',
  /** Events may have been missed: refetch what you display by query. */
  Resync = 'RESYNC',
  /** The caller’s saved snippets changed. */
  SavedSnippets = 'SAVED_SNIPPETS',
  /** The caller’s scheduled messages changed. */
  ScheduledMessages = 'SCHEDULED_MESSAGES',
  /** The chat server restarted (possibly upgraded); the stream continues. */
  ServerRestart = 'SERVER_RESTART',
  /** One of the caller’s personal settings changed. */
  Settings = 'SETTINGS',
  /** An integration (poll, to-do list) added data to a message. */
  Submessage = 'SUBMESSAGE',
  /** The caller’s channel subscriptions, or the subscribers of a channel, changed. */
  Subscription = 'SUBSCRIPTION',
  /** Someone started or stopped editing a message. */
  TypingEditMessage = 'TYPING_EDIT_MESSAGE',
  /** Someone started typing. */
  TypingStarted = 'TYPING_STARTED',
  /** Someone stopped typing. */
  TypingStopped = 'TYPING_STOPPED',
  /** An event this gateway does not model; its JSON is passed through. */
  Unknown = 'UNKNOWN',
  /** A user joined, changed or became inaccessible. */
  User = 'USER',
  /** A user group was created, changed or removed. */
  UserGroup = 'USER_GROUP',
  /** A user changed their status (text, emoji, away). */
  UserStatus = 'USER_STATUS',
  /** The caller’s visibility preference for a topic (muted, followed...) changed. */
  UserTopic = 'USER_TOPIC'
}

/** What an event did to the thing it is about. Each event type documents which of these it uses; an operation newer than this schema arrives as an `UnknownEvent` instead. */
export enum EventOp {
  /** The chat server’s `add` operation. */
  Add = 'ADD',
  /** The chat server’s `add_members` operation. */
  AddMembers = 'ADD_MEMBERS',
  /** The chat server’s `add_subgroups` operation. */
  AddSubgroups = 'ADD_SUBGROUPS',
  /** The chat server’s `change` operation. */
  Change = 'CHANGE',
  /** The chat server’s `create` operation. */
  Create = 'CREATE',
  /** The chat server’s `deactivated` operation. */
  Deactivated = 'DEACTIVATED',
  /** The chat server’s `delete` operation. */
  Delete = 'DELETE',
  /** The chat server’s `peer_add` operation. */
  PeerAdd = 'PEER_ADD',
  /** The chat server’s `peer_remove` operation. */
  PeerRemove = 'PEER_REMOVE',
  /** The chat server’s `remove` operation. */
  Remove = 'REMOVE',
  /** The chat server’s `remove_members` operation. */
  RemoveMembers = 'REMOVE_MEMBERS',
  /** The chat server’s `remove_subgroups` operation. */
  RemoveSubgroups = 'REMOVE_SUBGROUPS',
  /** The chat server’s `start` operation. */
  Start = 'START',
  /** The chat server’s `stop` operation. */
  Stop = 'STOP',
  /** The chat server’s `update` operation. */
  Update = 'UPDATE',
  /** The chat server’s `update_dict` operation. */
  UpdateDict = 'UPDATE_DICT'
}

/** Whether to add or remove a flag. */
export enum FlagOperation {
  /** Set the flag. */
  Add = 'ADD',
  /** Clear the flag. */
  Remove = 'REMOVE'
}

/** A change of a group-setting value. With `old`, the server refuses the change unless the current value is `old` (protection against concurrent edits). */
export type GroupSettingUpdateInput = {
  /** The new value. */
  new: GroupSettingValueInput;
  /** The value expected to be current. */
  old?: InputMaybe<GroupSettingValueInput>;
};

/** A group-setting value: either `groupId` alone, or `directMembers` and/or `directSubgroups` (an anonymous group; a missing list counts as empty). Exactly one form must be given. */
export type GroupSettingValueInput = {
  /** Users who hold the permission directly (anonymous-group form). */
  directMembers?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** Groups whose members hold the permission (anonymous-group form). */
  directSubgroups?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** A user group that holds the permission. */
  groupId?: InputMaybe<Scalars['Long']['input']>;
};

/** Where a message window starts: a message ID, or an anchor the server computes. Give exactly one. */
export type MessageAnchorInput = {
  /** A message ID; it need not match the narrow, or exist (the window is placed around it). */
  messageId?: InputMaybe<Scalars['Long']['input']>;
  /** A computed anchor. */
  named?: InputMaybe<NamedAnchor>;
};

/** The format of `Message.content`, chosen by the `applyMarkdown` argument of the query. */
export enum MessageContentType {
  /** Rendered HTML (`text/html`). */
  Html = 'HTML',
  /** The Markdown source the sender wrote (`text/x-markdown`). */
  Markdown = 'MARKDOWN'
}

/** A personal flag of the caller's on a message. https://zulip.com/api/update-message-flags#available-flags */
export enum MessageFlag {
  /** The caller collapsed the message. */
  Collapsed = 'COLLAPSED',
  /** The message mentions a group the caller belongs to. */
  GroupMentioned = 'GROUP_MENTIONED',
  /** The message contains one of the caller's alert words. */
  HasAlertWord = 'HAS_ALERT_WORD',
  /** The caller did not receive the message when it was sent (e.g. sent before they subscribed). */
  Historical = 'HISTORICAL',
  /** The message mentions the caller, directly or through a group. */
  Mentioned = 'MENTIONED',
  /** The caller has read the message. */
  Read = 'READ',
  /** The caller starred the message. */
  Starred = 'STARRED',
  /** The message contains a channel wildcard mention such as @**all** (feature level 224). */
  StreamWildcardMentioned = 'STREAM_WILDCARD_MENTIONED',
  /** The message contains a topic wildcard mention, @**topic** (feature level 224). */
  TopicWildcardMentioned = 'TOPIC_WILDCARD_MENTIONED',
  /**
   * Either wildcard mention flag.
   * @deprecated Use STREAM_WILDCARD_MENTIONED or TOPIC_WILDCARD_MENTIONED.
   */
  WildcardMentioned = 'WILDCARD_MENTIONED'
}

/** How long messages are kept: a number of days, or a policy. Exactly one field. */
export type MessageRetentionInput =
  /** Delete messages this many days after they are sent (positive). */
  { days: Scalars['Int']['input']; policy?: never; }
  |  /** REALM_DEFAULT or UNLIMITED. */
  { days?: never; policy: MessageRetentionPolicy; };

/** A message retention period that is not a number of days. */
export enum MessageRetentionPolicy {
  /** Follow the organization setting. */
  RealmDefault = 'REALM_DEFAULT',
  /** Keep messages forever. */
  Unlimited = 'UNLIMITED'
}

/** Where a message was sent. */
export enum MessageType {
  /** To a channel, under a topic. */
  Channel = 'CHANNEL',
  /** To one or more users directly. */
  Direct = 'DIRECT'
}

/** An anchor the server computes. */
export enum NamedAnchor {
  /** The oldest unread message matching the narrow, or the newest one when none is unread. */
  FirstUnread = 'FIRST_UNREAD',
  /** The newest message matching the narrow. */
  Newest = 'NEWEST',
  /** The oldest message matching the narrow. */
  Oldest = 'OLDEST'
}

/** Groups of channels a narrow can search in full, beyond the caller’s own history. */
export enum NarrowChannels {
  /** Every public channel. */
  Public = 'PUBLIC',
  /** Every web-public channel. */
  WebPublic = 'WEB_PUBLIC'
}

/** Content a narrow can filter on (the `has:` operator). */
export enum NarrowHas {
  /** Messages with an uploaded file. */
  Attachment = 'ATTACHMENT',
  /** Messages with an image. */
  Image = 'IMAGE',
  /** Messages with a link. */
  Link = 'LINK',
  /** Messages with at least one emoji reaction. */
  Reaction = 'REACTION'
}

/** Which messages to consider. Every field given adds one condition and a message must meet all of them; the conditions under `not` are each negated. Without channel conditions only the caller’s personal history is searched (add `channels: PUBLIC` to search all public channels). An empty narrow means every message the caller has received. https://zulip.com/api/construct-narrow */
export type NarrowInput = {
  /** Messages in this channel. */
  channelId?: InputMaybe<Scalars['Long']['input']>;
  /** Messages in the channel with this name (use channelId when known). */
  channelName?: InputMaybe<Scalars['String']['input']>;
  /** Search all channels of a kind. */
  channels?: InputMaybe<NarrowChannels>;
  /** Direct messages (1:1 and group) that include this user (feature level 177). */
  dmIncluding?: InputMaybe<Scalars['Long']['input']>;
  /** The direct-message conversation between the caller and exactly these users. */
  dmUserIds?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** Content the message must have; all must hold. */
  has?: InputMaybe<Array<NarrowHas>>;
  /** Only the message with this ID. */
  id?: InputMaybe<Scalars['Long']['input']>;
  /** Message states; all must hold. */
  is?: InputMaybe<Array<NarrowIs>>;
  /** Conditions that must each NOT hold (e.g. `not: { senderId: 5, topic: "x" }`: neither). Cannot be nested. */
  not?: InputMaybe<NarrowInput>;
  /** Full-text search: every word must appear. */
  search?: InputMaybe<Scalars['String']['input']>;
  /** Messages sent by this user. */
  senderId?: InputMaybe<Scalars['Long']['input']>;
  /** Messages in this topic (case-insensitive). */
  topic?: InputMaybe<Scalars['String']['input']>;
};

/** Message states a narrow can filter on (the `is:` operator). */
export enum NarrowIs {
  /** Containing one of the caller's alert words. */
  Alerted = 'ALERTED',
  /** Direct messages (sent as `is:private` to servers before feature level 177). */
  Dm = 'DM',
  /** In topics the caller follows. */
  Followed = 'FOLLOWED',
  /** Mentioning the caller (directly, by group or by wildcard). */
  Mentioned = 'MENTIONED',
  /** In muted topics or channels. */
  Muted = 'MUTED',
  /** In resolved topics. */
  Resolved = 'RESOLVED',
  /** Starred by the caller. */
  Starred = 'STARRED',
  /** Unread by the caller (indexed: the cheap way to find unread messages). */
  Unread = 'UNREAD'
}

/** Whether a user is online, derived from their presence timestamps and the server’s offline threshold. */
export enum PresenceState {
  /** Reported active within the offline threshold. */
  Active = 'ACTIVE',
  /** Connected within the offline threshold, but not active. */
  Idle = 'IDLE',
  /** Not heard from within the offline threshold. */
  Offline = 'OFFLINE'
}

/** What a client reports about its user. */
export enum PresenceStatus {
  /** The user interacted with the app recently. */
  Active = 'ACTIVE',
  /** The app is open but the user has not interacted with it recently. */
  Idle = 'IDLE'
}

/** A new value for one custom profile field. */
export type ProfileDataInput = {
  /** ID of the custom profile field. */
  fieldId: Scalars['Long']['input'];
  /** The new value; null or empty clears the field. */
  value?: InputMaybe<Scalars['String']['input']>;
};

/** The caller’s new value for one custom profile field: `value`, or `userIds` for a users field. */
export type ProfileValueInput = {
  /** The field. */
  fieldId: Scalars['Long']['input'];
  /** For a users field: the users it names. */
  userIds?: InputMaybe<Array<Scalars['Long']['input']>>;
  /** The new text value; empty clears it. */
  value?: InputMaybe<Scalars['String']['input']>;
};

/** Which messages a topic or channel move applies to. */
export enum PropagateMode {
  /** Every message in the topic. */
  ChangeAll = 'CHANGE_ALL',
  /** The target message and every later message in its topic. */
  ChangeLater = 'CHANGE_LATER',
  /** Only the target message (the only mode for content-only edits). */
  ChangeOne = 'CHANGE_ONE'
}

/** The service that issued a device’s push token. */
export enum PushTokenKind {
  /** Apple Push Notification service (iOS). */
  Apns = 'APNS',
  /** Firebase Cloud Messaging (Android). */
  Fcm = 'FCM'
}

/** The namespace of an emoji code. */
export enum ReactionType {
  /** A custom emoji uploaded to the organization; the code is its ID. */
  RealmEmoji = 'REALM_EMOJI',
  /** A special emoji that comes with the server; the code is its name (`zulip_extra_emoji` on older servers). */
  ServiceExtraEmoji = 'SERVICE_EXTRA_EMOJI',
  /** A Unicode emoji; the code is its dash-separated hex codepoints. */
  UnicodeEmoji = 'UNICODE_EMOJI'
}

/** What a data export holds. https://zulip.com/help/export-your-organization#export-data-in-an-importable-format */
export enum RealmExportType {
  /** All public and private data (feature level 449; the organization must allow it). */
  FullWithoutConsent = 'FULL_WITHOUT_CONSENT',
  /** Public data, and the private data of users who consented (feature level 304). */
  FullWithConsent = 'FULL_WITH_CONSENT',
  /** Public data only. */
  Public = 'PUBLIC'
}

/** Changes to the settings new users start with. Leave out (or set to null) what should stay as it is. */
export type RealmUserSettingsDefaultsInput = {
  /** Whether topics where the user is mentioned are followed automatically. */
  automaticallyFollowTopicsWhereMentioned?: InputMaybe<Scalars['Boolean']['input']>;
  /** The color theme. */
  colorScheme?: InputMaybe<ColorScheme>;
  /** Whether inactive channels are moved down in the channel list. */
  demoteInactiveChannels?: InputMaybe<DemoteInactiveChannels>;
  /** Whether reactions show who reacted rather than a count. */
  displayEmojiReactionUsers?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether desktop notifications include direct message content. */
  dmContentInDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** How long to wait before emailing about new messages, in seconds (at most a week). */
  emailNotificationsBatchingPeriodSeconds?: InputMaybe<Scalars['Int']['input']>;
  /** How emoji are drawn. */
  emojiset?: InputMaybe<Emojiset>;
  /** Sounds for channel messages. */
  enableChannelAudibleNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for channel messages. */
  enableChannelDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for channel messages. */
  enableChannelEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Mobile push notifications for channel messages. */
  enableChannelPushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for direct messages and mentions. */
  enableDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Digest emails while away. */
  enableDigestEmails?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether drafts are stored on the server. Turning it off deletes the stored drafts. */
  enableDraftsSynchronization?: InputMaybe<Scalars['Boolean']['input']>;
  /** Sounds for followed topics. */
  enableFollowedTopicAudibleNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for followed topics. */
  enableFollowedTopicDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for followed topics. */
  enableFollowedTopicEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications for followed topics. */
  enableFollowedTopicPushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether wildcard mentions in followed topics notify like personal mentions. */
  enableFollowedTopicWildcardMentionsNotify?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for direct messages and mentions while offline. */
  enableOfflineEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications for direct messages and mentions while offline. */
  enableOfflinePushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications even while online. */
  enableOnlinePushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Sounds for direct messages and mentions. */
  enableSounds?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether Enter sends a message (otherwise Ctrl+Enter does). */
  enterSends?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the web app uses the full width of wide screens. */
  fluidLayoutWidth?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether AI features are hidden. */
  hideAiFeatures?: InputMaybe<Scalars['Boolean']['input']>;
  /** Reserved for a high-contrast variant of the design. */
  highContrastMode?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the user list is in the left sidebar in narrow windows. */
  leftSideUserlist?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether notification emails include the message content. */
  messageContentInEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Name of the notification sound, or "none". */
  notificationSound?: InputMaybe<Scalars['String']['input']>;
  /** Whether others see when the user is online. */
  presenceEnabled?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the user receives typing notifications from others. */
  receivesTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others see when the user types in a channel. */
  sendChannelTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others see when the user types a direct message. */
  sendDirectTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others may see which messages the user has read. */
  sendReadReceipts?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether clients show the number of starred messages. */
  starredMessageCounts?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether emoticons like :) become emoji in sent messages. */
  translateEmoticons?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether times are shown in 24-hour notation. */
  twentyFourHourTime?: InputMaybe<Scalars['Boolean']['input']>;
  /** How the user list looks. */
  userListStyle?: InputMaybe<UserListStyle>;
  /** When animated image previews play. */
  webAnimateImagePreviews?: InputMaybe<AnimateImagePreviews>;
  /** Where clicking a channel in the web app leads. */
  webChannelDefaultView?: InputMaybe<WebChannelDefaultView>;
  /** Which channels show a numeric unread count. */
  webChannelUnreadsCountDisplayPolicy?: InputMaybe<ChannelUnreadsDisplayPolicy>;
  /** Whether the Escape key leads to the home view. */
  webEscapeNavigatesToHomeView?: InputMaybe<Scalars['Boolean']['input']>;
  /** Base font size of the web app, in pixels. */
  webFontSizePx?: InputMaybe<Scalars['Int']['input']>;
  /** The view the web app opens on. */
  webHomeView?: InputMaybe<WebHomeView>;
  /** Base line height of the web app, in percent (120 means 1.2). */
  webLineHeightPercent?: InputMaybe<Scalars['Int']['input']>;
  /** Whether the web app offers to update the profile time zone when the browser’s differs. */
  webSuggestUpdateTimezone?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether wildcard mentions (@**all**) notify like personal mentions. */
  wildcardMentionsNotify?: InputMaybe<Scalars['Boolean']['input']>;
};

/** Why events may have been missed. */
export enum ResyncReason {
  /** The resume cursor is older than what the gateway keeps for replay. */
  CursorExpired = 'CURSOR_EXPIRED',
  /** The resume cursor belongs to an event stream that ended (the gateway restarted, or the stream idled out). */
  CursorUnknown = 'CURSOR_UNKNOWN',
  /** The upstream event queue expired or was lost; a new one replaced it. */
  QueueExpired = 'QUEUE_EXPIRED',
  /** Cluster mode: Redis was unreachable or lost the event log, so events in between may be missing. */
  RedisUnavailable = 'REDIS_UNAVAILABLE',
  /** The upstream event queue failed and was replaced. */
  UpstreamError = 'UPSTREAM_ERROR'
}

/** A user's organization-level role. https://zulip.com/api/roles-and-permissions */
export enum Role {
  /** Organization administrator (200). */
  Administrator = 'ADMINISTRATOR',
  /** Guest (600), with limited access. */
  Guest = 'GUEST',
  /** Member (400). */
  Member = 'MEMBER',
  /** Organization moderator (300). */
  Moderator = 'MODERATOR',
  /** Organization owner (100); also an administrator. */
  Owner = 'OWNER'
}

/** Where a scheduled message goes. */
export enum ScheduledMessageType {
  /** A topic in a channel (`stream` on the wire). */
  Channel = 'CHANNEL',
  /** One or more users, as a direct message (`private` on the wire). */
  Direct = 'DIRECT'
}

/** Changes to the caller’s settings and account. Leave out (or set to null) what should stay as it is. */
export type SettingsInput = {
  /** Whether topics where the user is mentioned are followed automatically. */
  automaticallyFollowTopicsWhereMentioned?: InputMaybe<Scalars['Boolean']['input']>;
  /** The color theme. */
  colorScheme?: InputMaybe<ColorScheme>;
  /** Language code of the interface and emails, e.g. "en" or "de". */
  defaultLanguage?: InputMaybe<Scalars['String']['input']>;
  /** Whether inactive channels are moved down in the channel list. */
  demoteInactiveChannels?: InputMaybe<DemoteInactiveChannels>;
  /** Whether reactions show who reacted rather than a count. */
  displayEmojiReactionUsers?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether desktop notifications include direct message content. */
  dmContentInDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** New email address: starts a confirmation; nothing changes until the emailed link is followed. */
  email?: InputMaybe<Scalars['String']['input']>;
  /** How long to wait before emailing about new messages, in seconds (at most a week). */
  emailNotificationsBatchingPeriodSeconds?: InputMaybe<Scalars['Int']['input']>;
  /** How emoji are drawn. */
  emojiset?: InputMaybe<Emojiset>;
  /** Sounds for channel messages. */
  enableChannelAudibleNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for channel messages. */
  enableChannelDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for channel messages. */
  enableChannelEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Mobile push notifications for channel messages. */
  enableChannelPushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for direct messages and mentions. */
  enableDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Digest emails while away. */
  enableDigestEmails?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether drafts are stored on the server. Turning it off deletes the stored drafts. */
  enableDraftsSynchronization?: InputMaybe<Scalars['Boolean']['input']>;
  /** Sounds for followed topics. */
  enableFollowedTopicAudibleNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Desktop notifications for followed topics. */
  enableFollowedTopicDesktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for followed topics. */
  enableFollowedTopicEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications for followed topics. */
  enableFollowedTopicPushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether wildcard mentions in followed topics notify like personal mentions. */
  enableFollowedTopicWildcardMentionsNotify?: InputMaybe<Scalars['Boolean']['input']>;
  /** Emails about new logins to the account. */
  enableLoginEmails?: InputMaybe<Scalars['Boolean']['input']>;
  /** Marketing emails (Zulip Cloud only). */
  enableMarketingEmails?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for direct messages and mentions while offline. */
  enableOfflineEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications for direct messages and mentions while offline. */
  enableOfflinePushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications even while online. */
  enableOnlinePushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Sounds for direct messages and mentions. */
  enableSounds?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether Enter sends a message (otherwise Ctrl+Enter does). */
  enterSends?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the web app uses the full width of wide screens. */
  fluidLayoutWidth?: InputMaybe<Scalars['Boolean']['input']>;
  /** New full name (2 to 100 characters, no * ` \ > " @). */
  fullName?: InputMaybe<Scalars['String']['input']>;
  /** Whether AI features are hidden. */
  hideAiFeatures?: InputMaybe<Scalars['Boolean']['input']>;
  /** Reserved for a high-contrast variant of the design. */
  highContrastMode?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the user list is in the left sidebar in narrow windows. */
  leftSideUserlist?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether notification emails include the message content. */
  messageContentInEmailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** New password; needs oldPassword. */
  newPassword?: InputMaybe<Scalars['String']['input']>;
  /** Name of the notification sound, or "none". */
  notificationSound?: InputMaybe<Scalars['String']['input']>;
  /** The current password; required with newPassword. */
  oldPassword?: InputMaybe<Scalars['String']['input']>;
  /** Whether others see when the user is online. */
  presenceEnabled?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether the user receives typing notifications from others. */
  receivesTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others see when the user types in a channel. */
  sendChannelTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others see when the user types a direct message. */
  sendDirectTypingNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether others may see which messages the user has read. */
  sendReadReceipts?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether clients show the number of starred messages. */
  starredMessageCounts?: InputMaybe<Scalars['Boolean']['input']>;
  /** IANA time zone of the profile, e.g. "Europe/Paris"; empty when unset. */
  timezone?: InputMaybe<Scalars['String']['input']>;
  /** Whether emoticons like :) become emoji in sent messages. */
  translateEmoticons?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether times are shown in 24-hour notation. */
  twentyFourHourTime?: InputMaybe<Scalars['Boolean']['input']>;
  /** How the user list looks. */
  userListStyle?: InputMaybe<UserListStyle>;
  /** When animated image previews play. */
  webAnimateImagePreviews?: InputMaybe<AnimateImagePreviews>;
  /** Where clicking a channel in the web app leads. */
  webChannelDefaultView?: InputMaybe<WebChannelDefaultView>;
  /** Which channels show a numeric unread count. */
  webChannelUnreadsCountDisplayPolicy?: InputMaybe<ChannelUnreadsDisplayPolicy>;
  /** Whether the Escape key leads to the home view. */
  webEscapeNavigatesToHomeView?: InputMaybe<Scalars['Boolean']['input']>;
  /** Base font size of the web app, in pixels. */
  webFontSizePx?: InputMaybe<Scalars['Int']['input']>;
  /** The view the web app opens on. */
  webHomeView?: InputMaybe<WebHomeView>;
  /** Base line height of the web app, in percent (120 means 1.2). */
  webLineHeightPercent?: InputMaybe<Scalars['Int']['input']>;
  /** Whether the web app offers to update the profile time zone when the browser’s differs. */
  webSuggestUpdateTimezone?: InputMaybe<Scalars['Boolean']['input']>;
  /** Whether wildcard mentions (@**all**) notify like personal mentions. */
  wildcardMentionsNotify?: InputMaybe<Scalars['Boolean']['input']>;
};

/** A channel to subscribe to, by name; it is created if it does not exist. */
export type SubscribeChannelInput = {
  /** The subscribers' color for the channel, #rrggbb. */
  color?: InputMaybe<Scalars['String']['input']>;
  /** Description (Markdown) of a channel this call creates. */
  description?: InputMaybe<Scalars['String']['input']>;
  /** The channel name. */
  name: Scalars['String']['input'];
};

/** New personal settings for one of the caller's subscriptions; only the fields given change. */
export type SubscriptionSettingsInput = {
  /** A sound for every message. */
  audibleNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** The channel. */
  channelId: Scalars['Long']['input'];
  /** Color, #rrggbb. */
  color?: InputMaybe<Scalars['String']['input']>;
  /** Desktop notifications for every message. */
  desktopNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Email notifications for every message. */
  emailNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Mute or unmute the channel. */
  isMuted?: InputMaybe<Scalars['Boolean']['input']>;
  /** Pin the channel to the top. */
  pinToTop?: InputMaybe<Scalars['Boolean']['input']>;
  /** Push notifications for every message. */
  pushNotifications?: InputMaybe<Scalars['Boolean']['input']>;
  /** Wildcard mentions notify like personal mentions. */
  wildcardMentionsNotify?: InputMaybe<Scalars['Boolean']['input']>;
};

/** A conversation being composed in: either `userIds` (direct) or `channelId` with `topic`. */
export type TypingTarget = {
  /** Channel message: the channel (needs feature level 215). */
  channelId?: InputMaybe<Scalars['Long']['input']>;
  /** Channel message: the topic; "(no topic)" and the empty-topic display name mean the empty topic. */
  topic?: InputMaybe<Scalars['String']['input']>;
  /** Direct message: the recipients’ user IDs (the caller may be left out). */
  userIds?: InputMaybe<Array<Scalars['Long']['input']>>;
};

/** How the user list in the right sidebar looks. */
export enum UserListStyle {
  /** Compact (1). */
  Compact = 'COMPACT',
  /** With avatar and status (3). */
  WithAvatarAndStatus = 'WITH_AVATAR_AND_STATUS',
  /** With status (2). */
  WithStatus = 'WITH_STATUS'
}

/** Identifies a user: exactly one of `id` or `email`. */
export type UserLookupInput = {
  /** The API email, the placeholder form, or the real address when the caller may see it. */
  email?: InputMaybe<Scalars['String']['input']>;
  /** The user ID. */
  id?: InputMaybe<Scalars['Long']['input']>;
};

/** A call provider a chat server can create calls with. */
export enum VideoCallProvider {
  /** BigBlueButton. */
  BigBlueButton = 'BIG_BLUE_BUTTON',
  /** Constructor Groups. */
  ConstructorGroups = 'CONSTRUCTOR_GROUPS',
  /** Nextcloud Talk. */
  NextcloudTalk = 'NEXTCLOUD_TALK'
}

/** The caller's visibility policy for a topic. https://zulip.com/help/mute-a-topic */
export enum VisibilityPolicy {
  /** Followed: notifications as configured for followed topics (feature level 219). */
  Followed = 'FOLLOWED',
  /** Muted: hidden from unread counts and the combined feed. */
  Muted = 'MUTED',
  /** No policy: the topic follows its channel's muting. */
  None = 'NONE',
  /** Unmuted in a muted channel; in an unmuted channel it behaves like NONE. */
  Unmuted = 'UNMUTED'
}

/** Where clicking a channel in the web app leads. */
export enum WebChannelDefaultView {
  /** The channel feed (2). */
  ChannelFeed = 'CHANNEL_FEED',
  /** The top topic in the channel (1). */
  TopTopic = 'TOP_TOPIC'
}

/** The view the web app opens on. */
export enum WebHomeView {
  /** All messages (the combined feed). */
  AllMessages = 'ALL_MESSAGES',
  /** Inbox. */
  Inbox = 'INBOX',
  /** Recent conversations. */
  RecentTopics = 'RECENT_TOPICS'
}

export type CodegenSnippetsQueryVariables = Exact<{ [key: string]: never; }>;


export type CodegenSnippetsQuery = { __typename: 'Query', savedSnippets?: Array<{ __typename: 'SavedSnippet', id: string, title: string }> | null };

export type CodegenRenameSnippetMutationVariables = Exact<{
  id: Scalars['Long']['input'];
  title: Scalars['String']['input'];
}>;


export type CodegenRenameSnippetMutation = { __typename: 'Mutation', editSavedSnippet: { __typename: 'SavedSnippetPayload', savedSnippet?: { __typename: 'SavedSnippet', id: string, title: string } | null } };

export type CodegenMoveTopicMutationVariables = Exact<{
  id: Scalars['Long']['input'];
  topic: Scalars['String']['input'];
}>;


export type CodegenMoveTopicMutation = { __typename: 'Mutation', editMessage:
    | { __typename: 'EditMessagePayload', messageId: number }
    | { __typename: 'MoveMessagesTimeLimitExceededError', code: string, message: string, totalMessagesAllowedToMove: number }
   };

export type CodegenDeferredQueryVariables = Exact<{ [key: string]: never; }>;


export type CodegenDeferredQuery = { __typename: 'Query', me?: { __typename: 'Me', id: string } | null } & ({ __typename: 'Query' } | { __typename: 'Query' }) & ({ __typename?: 'Query', channels?: Array<{ __typename: 'Channel', id: string, name: string }> | null } | { __typename?: 'Query', channels?: never });

export type CodegenMessagesSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type CodegenMessagesSubscription = { __typename?: 'Subscription', messages:
    | { __typename: 'MessageDeletedEvent' }
    | { __typename: 'MessageEvent', message: { __typename: 'Message', id: string, content: string, timestamp: number } }
    | { __typename: 'MessageMovedEvent' }
    | { __typename: 'MessageUpdatedEvent' }
    | { __typename: 'ReactionEvent' }
    | { __typename: 'ResyncEvent' }
   };


export const CodegenSnippetsDocument = {"__meta__":{"hash":"290e153bac39e87910a96466fed2d7e1daf7023d20bdbb02362151788d044169"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CodegenSnippets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"savedSnippets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<CodegenSnippetsQuery, CodegenSnippetsQueryVariables>;
export const CodegenRenameSnippetDocument = {"__meta__":{"hash":"08d5d05163b45f21df7ca082be07fdad79514c34f61f33c9853f28a76a3ef9bc"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CodegenRenameSnippet"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Long"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"title"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"editSavedSnippet"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"title"},"value":{"kind":"Variable","name":{"kind":"Name","value":"title"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"savedSnippet"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]}}]} as unknown as DocumentNode<CodegenRenameSnippetMutation, CodegenRenameSnippetMutationVariables>;
export const CodegenMoveTopicDocument = {"__meta__":{"hash":"6794f3f235982812cf3c72224883b87d5c4d658795bf219030dd1fad63e95508"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CodegenMoveTopic"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Long"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"topic"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"editMessage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"messageId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"topic"},"value":{"kind":"Variable","name":{"kind":"Name","value":"topic"}}},{"kind":"Argument","name":{"kind":"Name","value":"propagateMode"},"value":{"kind":"EnumValue","value":"CHANGE_ALL"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"EditMessagePayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"messageId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MoveMessagesTimeLimitExceededError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"totalMessagesAllowedToMove"}}]}}]}}]}}]} as unknown as DocumentNode<CodegenMoveTopicMutation, CodegenMoveTopicMutationVariables>;
export const CodegenDeferredDocument = {"__meta__":{"hash":"6439d3e85fc0190133fedbb1c39d5028f7afb8050e4b4afa83f60e5b89a9d7d5"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CodegenDeferred"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"me"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"channels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]} as unknown as DocumentNode<CodegenDeferredQuery, CodegenDeferredQueryVariables>;
export const CodegenMessagesDocument = {"__meta__":{"hash":"d71a5356ee63fee263a8f4754135ce76a43cd2c1fa9be25b7f376659a574e899"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"CodegenMessages"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"messages"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"narrow"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"channelName"},"value":{"kind":"StringValue","value":"general","block":false}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"MessageEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"message"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"timestamp"}}]}}]}}]}}]}}]} as unknown as DocumentNode<CodegenMessagesSubscription, CodegenMessagesSubscriptionVariables>;