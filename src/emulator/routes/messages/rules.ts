/**
 * Limits and rules shared by sending and editing: content and topic normalization, who may post to
 * a channel, wildcard-mention permission, attachments. Zulip 10's zerver/actions/message_send.py and
 * message_edit.py are the model.
 */
import { ApiError, badRequest } from '../../errors.js';
import type { Rendered } from '../../markdown.js';
import { FLAG_NAMES, type Attachment, type Channel, type Message, type Store, type User } from '../../store.js';
import { activeSubscriberCount } from './access.js';

/** Zulip's MAX_MESSAGES_PER_FETCH and MAX_MESSAGES_PER_UPDATE. */
export const MAX_MESSAGES_PER_FETCH = 5000;
export const MAX_MESSAGES_PER_UPDATE = 5000;
/** Seconds of grace Zulip allows past the edit and move time limits. */
export const EDIT_LIMIT_BUFFER_SECONDS = 20;
export const EDITABLE_FLAGS = new Set(['read', 'starred', 'collapsed']);
export const NON_EDITABLE_FLAGS = new Set<string>(FLAG_NAMES.filter((flag) => !EDITABLE_FLAGS.has(flag)));
export const PROPAGATE_MODES = new Set(['change_one', 'change_later', 'change_all']);
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
/** Zulip's WELCOME_BOT: sends new users (and administrators testing it) the welcome messages. */
export const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';

// ---- shared message rules ------------------------------------------------------------------------

export function truncate(text: string, max: number, marker: string): string {
  return text.length > max ? text.slice(0, max - marker.length) + marker : text;
}

/** Zulip's normalize_body: trims, refuses empty content and NUL bytes, truncates. */
export function normalizeContent(content: string, maxLength: number): string {
  const body = content.trimEnd().replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncate(body, maxLength, '\n[message truncated]');
}

/** A topic as stored: stripped, `(no topic)` and the display name read as '', truncated. */
export function normalizeTopic(store: Store, topic: string, maxLength: number): string {
  if (topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
  const stripped = topic.trim();
  if (stripped === '(no topic)' || stripped === store.realm.empty_topic_display_name) return '';
  return truncate(stripped, maxLength, '...');
}

export function canSendToChannel(store: Store, user: User, channel: Channel): void {
  if (!store.userHasGroupSetting(user.user_id, channel.can_send_message_group)) {
    throw badRequest('You do not have permission to post in this channel.');
  }
  const notAuthorized = () => badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (channel.is_archived) throw notAuthorized();
  if (store.isSubscribed(user.user_id, channel.stream_id)) return;
  if (!channel.invite_only && !store.isGuest(user)) return;
  throw notAuthorized();
}

/** Users who sent or reacted to messages of a topic (Zulip's participants_for_topic). */
export function topicParticipants(store: Store, streamId: number, topic: string): Set<number> {
  const lower = topic.toLowerCase();
  const ids = new Set<number>();
  for (const id of store.channelMessageIds(streamId)) {
    const m = store.messages.get(id);
    if (!m || m.stream_id !== streamId || m.topic.toLowerCase() !== lower) continue;
    ids.add(m.sender_id);
    for (const r of m.reactions) ids.add(r.user_id);
  }
  return ids;
}

/** Wildcard mentions in big channels / busy topics need can_mention_many_users_group. */
export function checkWildcardMentions(store: Store, sender: User, rendered: Rendered, streamId: number, topic: string): void {
  if (!rendered.channelWildcard && !rendered.topicWildcard) return;
  if (store.userHasGroupSetting(sender.user_id, store.realm.settings.can_mention_many_users_group)) return;
  const threshold = store.realm.settings.wildcard_mention_large_stream_threshold;
  if (rendered.channelWildcard && activeSubscriberCount(store, streamId) > threshold) {
    throw new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.');
  }
  if (rendered.topicWildcard && topicParticipants(store, streamId, topic).size > threshold) {
    throw new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.');
  }
}

/** Attachments of the organization referenced by `/user_uploads/<path_id>` in the content. */
export function referencedAttachments(store: Store, content: string, ownerId: number): Attachment[] {
  if (!content.includes('/user_uploads/')) return [];
  const found: Attachment[] = [];
  for (const a of store.attachments.values()) {
    if (a.owner_id === ownerId && content.includes(`/user_uploads/${a.path_id}`)) found.push(a);
  }
  return found;
}

export function serializeAttachment(store: Store, a: Attachment) {
  return {
    id: a.id,
    name: a.name,
    path_id: a.path_id,
    size: a.size,
    create_time: a.create_time,
    messages: [...a.message_ids]
      .map((id) => store.messages.get(id))
      .filter((m): m is Message => m !== undefined)
      .map((m) => ({ id: m.id, date_sent: m.timestamp * 1000 })),
  };
}

/** The client name Zulip records: the User-Agent's product token. */
export function clientName(request: Request): string {
  const ua = request.headers.get('user-agent')?.trim();
  const name = ua ? ua.split(/[/\s]/)[0] : '';
  return name || 'API';
}
