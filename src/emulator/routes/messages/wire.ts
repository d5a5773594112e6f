/** The wire form of a message (https://zulip.com/api/get-messages#response), per viewer and per event queue. */
import type { Queue } from '../../queues.js';
import { avatarUrl } from '../users/index.js';
import type { EditHistoryEntry, Message, Store, User } from '../../store.js';

// ---- serializers ---------------------------------------------------------------------------------

export interface SerializeOptions {
  /** HTML content (`text/html`) or the Markdown source (`text/x-markdown`). */
  applyMarkdown: boolean;
  /** Leave `avatar_url` null for gravatar users whose real email the viewer can see. */
  clientGravatar: boolean;
  /** Otherwise the empty topic is shown as the organization's empty-topic display name. */
  allowEmptyTopicName: boolean;
  /** Server origin, for uploaded-avatar URLs. */
  baseUrl: string;
}

/** A message as `GET /messages` and `message` events carry it (flags are not part of it). */
export interface WireMessage {
  id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  avatar_url: string | null;
  client: string;
  content: string;
  content_type: 'text/html' | 'text/x-markdown';
  display_recipient: string | { id: number; email: string; full_name: string; is_mirror_dummy: boolean }[];
  recipient_id: number;
  stream_id?: number;
  subject: string;
  topic_links: { text: string; url: string }[];
  timestamp: number;
  type: 'stream' | 'private';
  is_me_message: boolean;
  reactions: { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }[];
  submessages: unknown[];
  edit_history?: EditHistoryEntry[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

/** A topic as returned: '' becomes the empty-topic display name unless the client accepts ''. */
export function displayTopic(store: Store, topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? store.realm.empty_topic_display_name : topic;
}

/** The message object of `GET /messages` (minus `flags`), `message` events and the loaders. */
export function serializeMessage(store: Store, viewer: User, message: Message, options: SerializeOptions): WireMessage {
  const sender = store.users.get(message.sender_id)!;
  const wire: WireMessage = {
    id: message.id,
    sender_id: sender.user_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: store.realm.string_id,
    avatar_url: avatarUrl(store, sender, { baseUrl: options.baseUrl, clientGravatar: options.clientGravatar, viewer }),
    client: message.client,
    content: options.applyMarkdown ? message.rendered_content : message.content,
    content_type: options.applyMarkdown ? 'text/html' : 'text/x-markdown',
    display_recipient: displayRecipient(store, message),
    recipient_id: message.recipient_id,
    subject: message.type === 'stream' ? displayTopic(store, message.topic, options.allowEmptyTopicName) : '',
    topic_links: [],
    timestamp: message.timestamp,
    type: message.type,
    is_me_message: message.is_me_message,
    reactions: message.reactions.map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
    submessages: [],
  };
  if (message.type === 'stream') wire.stream_id = message.stream_id!;
  if (message.edit_history.length > 0 && store.realm.settings.allow_edit_history) {
    wire.edit_history = message.edit_history.map((e) => ({ ...e }));
  }
  if (message.last_edit_timestamp !== undefined) wire.last_edit_timestamp = message.last_edit_timestamp;
  if (message.last_moved_timestamp !== undefined) wire.last_moved_timestamp = message.last_moved_timestamp;
  return wire;
}

export function displayRecipient(store: Store, message: Message): WireMessage['display_recipient'] {
  if (message.type === 'stream') return store.channels.get(message.stream_id!)?.name ?? '';
  return message.dm_user_ids!.map((id) => {
    const u = store.users.get(id)!;
    return { id, email: u.email, full_name: u.full_name, is_mirror_dummy: false };
  });
}

/** The flags a user has on a message; messages they did not receive carry `historical`. */
export function messageFlagsFor(store: Store, userId: number, message: Message): string[] {
  return store.messageFlags(userId, message);
}

export function queueSerializeOptions(queue: Queue, baseUrl: string): SerializeOptions {
  return {
    applyMarkdown: queue.options.applyMarkdown,
    clientGravatar: queue.options.clientGravatar,
    allowEmptyTopicName: queue.options.capabilities.empty_topic_name === true,
    baseUrl,
  };
}
