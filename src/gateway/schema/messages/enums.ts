/**
 * The enums of messages: message and content types, personal flags and flag operations, move
 * propagation, named anchors and the narrow's `is:` / `has:` / `channels:` operands.
 * https://zulip.com/api/get-messages, https://zulip.com/api/update-message-flags
 */
import type { MessageFlag } from '../../../zulip/model/messages.js';
import { builder } from '../../builder.js';

export const MessageTypeEnum = builder.enumType('MessageType', {
  description: 'Where a message was sent.',
  values: {
    CHANNEL: { value: 'stream', description: 'To a channel, under a topic.' },
    DIRECT: { value: 'private', description: 'To one or more users directly.' },
  } as const,
});

export const ContentTypeEnum = builder.enumType('MessageContentType', {
  description: 'The format of `Message.content`, chosen by the `applyMarkdown` argument of the query.',
  values: {
    HTML: { value: 'text/html', description: 'Rendered HTML (`text/html`).' },
    MARKDOWN: { value: 'text/x-markdown', description: 'The Markdown source the sender wrote (`text/x-markdown`).' },
  } as const,
});

const FLAG_VALUES = {
  READ: { value: 'read', description: 'The caller has read the message.' },
  STARRED: { value: 'starred', description: 'The caller starred the message.' },
  COLLAPSED: { value: 'collapsed', description: 'The caller collapsed the message.' },
  MENTIONED: { value: 'mentioned', description: 'The message mentions the caller, directly or through a group.' },
  STREAM_WILDCARD_MENTIONED: {
    value: 'stream_wildcard_mentioned',
    description: 'The message contains a channel wildcard mention such as @**all** (feature level 224).',
  },
  TOPIC_WILDCARD_MENTIONED: {
    value: 'topic_wildcard_mentioned',
    description: 'The message contains a topic wildcard mention, @**topic** (feature level 224).',
  },
  WILDCARD_MENTIONED: {
    value: 'wildcard_mentioned',
    description: 'Either wildcard mention flag.',
    deprecationReason: 'Use STREAM_WILDCARD_MENTIONED or TOPIC_WILDCARD_MENTIONED.',
  },
  GROUP_MENTIONED: { value: 'group_mentioned', description: 'The message mentions a group the caller belongs to.' },
  HAS_ALERT_WORD: { value: 'has_alert_word', description: "The message contains one of the caller's alert words." },
  HISTORICAL: {
    value: 'historical',
    description: 'The caller did not receive the message when it was sent (e.g. sent before they subscribed).',
  },
} as const satisfies Record<string, { value: MessageFlag; description: string; deprecationReason?: string }>;

/** Flag names this schema knows (newer ones only appear in `Message.flagNames`). */
export const KNOWN_FLAGS: ReadonlySet<string> = new Set(Object.values(FLAG_VALUES).map((v) => v.value));

export const MessageFlagEnum = builder.enumType('MessageFlag', {
  description: "A personal flag of the caller's on a message. https://zulip.com/api/update-message-flags#available-flags",
  values: FLAG_VALUES,
});

export const EditableMessageFlagEnum = builder.enumType('EditableMessageFlag', {
  description: 'The personal flags a user can add or remove; the others follow the message content.',
  values: {
    READ: { value: 'read', description: FLAG_VALUES.READ.description },
    STARRED: { value: 'starred', description: FLAG_VALUES.STARRED.description },
    COLLAPSED: { value: 'collapsed', description: FLAG_VALUES.COLLAPSED.description },
  } as const,
});

export const FlagOperationEnum = builder.enumType('FlagOperation', {
  description: 'Whether to add or remove a flag.',
  values: {
    ADD: { value: 'add', description: 'Set the flag.' },
    REMOVE: { value: 'remove', description: 'Clear the flag.' },
  } as const,
});

export const PropagateModeEnum = builder.enumType('PropagateMode', {
  description: 'Which messages a topic or channel move applies to.',
  values: {
    CHANGE_ONE: { value: 'change_one', description: 'Only the target message (the only mode for content-only edits).' },
    CHANGE_LATER: { value: 'change_later', description: 'The target message and every later message in its topic.' },
    CHANGE_ALL: { value: 'change_all', description: 'Every message in the topic.' },
  } as const,
});

export const NamedAnchorEnum = builder.enumType('NamedAnchor', {
  description: 'An anchor the server computes.',
  values: {
    NEWEST: { value: 'newest', description: 'The newest message matching the narrow.' },
    OLDEST: { value: 'oldest', description: 'The oldest message matching the narrow.' },
    FIRST_UNREAD: {
      value: 'first_unread',
      description: 'The oldest unread message matching the narrow, or the newest one when none is unread.',
    },
  } as const,
});

export const NarrowIsEnum = builder.enumType('NarrowIs', {
  description: 'Message states a narrow can filter on (the `is:` operator).',
  values: {
    DM: { value: 'dm', description: 'Direct messages (sent as `is:private` to servers before feature level 177).' },
    UNREAD: { value: 'unread', description: 'Unread by the caller (indexed: the cheap way to find unread messages).' },
    STARRED: { value: 'starred', description: 'Starred by the caller.' },
    MENTIONED: { value: 'mentioned', description: 'Mentioning the caller (directly, by group or by wildcard).' },
    ALERTED: { value: 'alerted', description: "Containing one of the caller's alert words." },
    RESOLVED: { value: 'resolved', description: 'In resolved topics.' },
    FOLLOWED: { value: 'followed', description: 'In topics the caller follows.' },
    MUTED: { value: 'muted', description: 'In muted topics or channels.' },
  } as const,
});

export const NarrowHasEnum = builder.enumType('NarrowHas', {
  description: 'Content a narrow can filter on (the `has:` operator).',
  values: {
    LINK: { value: 'link', description: 'Messages with a link.' },
    IMAGE: { value: 'image', description: 'Messages with an image.' },
    ATTACHMENT: { value: 'attachment', description: 'Messages with an uploaded file.' },
    REACTION: { value: 'reaction', description: 'Messages with at least one emoji reaction.' },
  } as const,
});

export const NarrowChannelsEnum = builder.enumType('NarrowChannels', {
  description: 'Groups of channels a narrow can search in full, beyond the caller\u2019s own history.',
  values: {
    PUBLIC: { value: 'public', description: 'Every public channel.' },
    WEB_PUBLIC: { value: 'web-public', description: 'Every web-public channel.' },
  } as const,
});
