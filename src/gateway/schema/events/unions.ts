/**
 * The unions subscriptions return: `ChatEvent` (every event type) and `MessageStreamEvent` (what
 * changes the messages of a narrow). Each member type lives with its concern in this folder.
 */
import { builder } from '../../builder.js';
import type { EventKind } from '../../events/model.js';
import {
  ChannelEventRef,
  DefaultChannelsEventRef,
  SubscriptionEventRef,
  UserTopicEventRef,
} from './channel-events.js';
import { resolveEventType } from './kinds.js';
import {
  MessageDeletedEventRef,
  MessageEventRef,
  MessageFlagsEventRef,
  MessageMovedEventRef,
  MessageUpdatedEventRef,
  ReactionEventRef,
  SubmessageEventRef,
} from './message-events.js';
import {
  AttachmentEventRef,
  CustomProfileFieldsEventRef,
  RealmBotEventRef,
  RealmDomainsEventRef,
  RealmEmojiEventRef,
  RealmEventRef,
  RealmUserSettingsDefaultsEventRef,
  ResyncEventRef,
  SavedSnippetsEventRef,
  ServerRestartEventRef,
  UnknownEventRef,
} from './realm-events.js';
import { TypingEditMessageEventRef, TypingEventRef } from './typing-events.js';
import {
  AlertWordsEventRef,
  DraftsEventRef,
  MutedUsersEventRef,
  PresenceEventRef,
  ScheduledMessagesEventRef,
  SettingsEventRef,
  UserEventRef,
  UserGroupEventRef,
  UserStatusEventRef,
} from './user-events.js';

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
export const MESSAGE_STREAM_KINDS: EventKind[] = ['MESSAGE', 'MESSAGE_UPDATED', 'MESSAGE_MOVED', 'MESSAGE_DELETED', 'REACTION_ADDED', 'REACTION_REMOVED'];

export const MessageStreamEventUnion = builder.unionType('MessageStreamEvent', {
  description: 'What changes the messages of a narrow: new, edited, moved and deleted messages, reactions, and resyncs.',
  types: [MessageEventRef, MessageUpdatedEventRef, MessageMovedEventRef, MessageDeletedEventRef, ReactionEventRef, ResyncEventRef],
  resolveType: resolveEventType,
});
