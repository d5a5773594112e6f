/**
 * `PATCH /messages/{id}` (https://zulip.com/api/update-message): reads and validates every input
 * before changing the store, so a rejected request never leaves a half-applied change.
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { applyMentionFlags } from '../../factory.js';
import { renderMarkdown, type Rendered } from '../../markdown.js';
import type { Attachment, EditHistoryEntry, Message, Store, User } from '../../store.js';
import { accessMessage, messageListeners } from './access.js';
import {
  EDIT_LIMIT_BUFFER_SECONDS,
  PROPAGATE_MODES,
  normalizeContent,
  normalizeTopic,
  checkWildcardMentions,
  referencedAttachments,
  serializeAttachment,
} from './rules.js';
import { type MovePlan, timeLimitCheck, topicMessageIds, resolveKind, notifyUpdate, sendMoveNotifications } from './move.js';

/**
 * Zulip's validate_user_can_edit_message: editing is on, the caller sent the message, and the time
 * limit (plus `bufferSeconds` of grace) has not passed.
 */
export function checkCanEditContent(store: Store, user: User, message: Message, now: number, bufferSeconds: number): void {
  const realm = store.realm.settings;
  if (!realm.allow_message_editing) throw badRequest('Your organization has turned off message editing');
  if (message.sender_id !== user.user_id) throw badRequest("You don't have permission to edit this message");
  const limit = realm.message_content_edit_limit_seconds;
  if (limit !== null && now - message.timestamp > limit + bufferSeconds) {
    throw badRequest('The time limit for editing this message has past');
  }
}

export function updateMessage(ctx: RouteContext): Record<string, unknown> {
  const { params: p, store, user, settings } = ctx;
  const messageId = ctx.pathInt('message_id');
  const rawTopic = p.optStr('topic') ?? p.optStr('subject');
  const propagateMode = p.optStr('propagate_mode') ?? 'change_one';
  const notifyOld = p.bool('send_notification_to_old_thread', false);
  const notifyNew = p.bool('send_notification_to_new_thread', true);
  const rawContent = p.optStr('content');
  const streamId = p.optInt('stream_id');
  if (!PROPAGATE_MODES.has(propagateMode)) throw badRequest('Invalid propagate_mode');
  const message = accessMessage(store, user, messageId);
  const now = ctx.nowSeconds();
  const realm = store.realm.settings;

  // Zulip's validate_message_edit_payload.
  if (rawTopic === undefined && rawContent === undefined && streamId === undefined) throw badRequest('Nothing to change');
  if (message.type === 'private') {
    if (streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
    if (rawTopic !== undefined) throw badRequest('Direct messages cannot have topics.');
  }
  if (propagateMode !== 'change_one' && rawTopic === undefined && streamId === undefined) {
    throw badRequest('Invalid propagate_mode without topic edit');
  }
  if (rawContent !== undefined && streamId !== undefined) throw badRequest('Cannot change message content while changing channel');

  let content: string | undefined;
  if (rawContent !== undefined) {
    if (rawContent.includes('\u0000')) throw badRequest('Message must not contain null bytes');
    content = normalizeContent(rawContent.trim() === '' ? '(deleted)' : rawContent, settings.maxMessageLength);
  }
  let newTopic: string | undefined;
  if (rawTopic !== undefined) {
    newTopic = normalizeTopic(store, rawTopic, settings.maxTopicLength);
    if (newTopic === '' && realm.mandatory_topics) throw badRequest("Topic can't be empty");
  }

  const contentChanged = content !== undefined && content !== message.content;
  const topicChanged = newTopic !== undefined && newTopic !== message.topic;
  const streamChanged = streamId !== undefined && streamId !== message.stream_id;
  if (!contentChanged && !topicChanged && !streamChanged) throw badRequest('Nothing to change');

  // Content: only the sender, while editing is on and within the time limit.
  if (contentChanged) checkCanEditContent(store, user, message, now, EDIT_LIMIT_BUFFER_SECONDS);

  // Moves: who may, to where, and which messages.
  let move: MovePlan | undefined;
  if (topicChanged || streamChanged) {
    const fromStream = store.channels.get(message.stream_id!)!;
    const oldTopic = message.topic;
    const targetTopic = topicChanged ? newTopic! : oldTopic;
    const resolveOnly = topicChanged && !streamChanged ? resolveKind(oldTopic, targetTopic) : null;
    if (topicChanged && oldTopic === '' && /^(✔\s*)+$/.test(targetTopic)) {
      throw badRequest('General chat cannot be marked as resolved');
    }
    if (topicChanged) {
      if (resolveOnly) {
        const can =
          store.userHasGroupSetting(user.user_id, realm.can_resolve_topics_group) ||
          store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_topics_group);
        if (!can) throw badRequest("You don't have permission to resolve topics.");
      } else if (!store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_topics_group)) {
        throw badRequest("You don't have permission to edit this message");
      }
    }
    let toStream = fromStream;
    if (streamChanged) {
      if (!store.userHasGroupSetting(user.user_id, realm.can_move_messages_between_channels_group)) {
        throw badRequest("You don't have permission to move this message");
      }
      const target = store.channels.get(streamId!);
      if (!target || target.is_archived || !store.canAccessChannelContent(user, target)) throw badRequest('Invalid channel ID');
      if (!store.userHasGroupSetting(user.user_id, target.can_send_message_group)) {
        throw badRequest('You do not have permission to post in this channel.');
      }
      toStream = target;
    }
    const inTopic = topicMessageIds(store, user, fromStream.stream_id, oldTopic);
    const ids =
      propagateMode === 'change_one' ? [message.id] : propagateMode === 'change_later' ? inTopic.filter((id) => id >= message.id) : inTopic;
    move = { ids, fromStream, toStream, oldTopic, newTopic: targetTopic, topicChanged, streamChanged, resolveOnly };
    timeLimitCheck(store, user, move, now);
  }

  let rendered: Rendered | undefined;
  if (contentChanged) {
    rendered = renderMarkdown(store, content!);
    if (message.type === 'stream') {
      const streamAfter = move?.toStream.stream_id ?? message.stream_id!;
      checkWildcardMentions(store, user, rendered, streamAfter, move?.newTopic ?? message.topic);
    }
  }

  // ---- everything is valid: apply ----
  const listenersBefore = messageListeners(store, message);
  const orig = { content: message.content, rendered: message.rendered_content, stream: message.stream_id, topic: message.topic };
  const detached: Attachment[] = [];
  if (contentChanged) {
    const before = referencedAttachments(store, message.content, message.sender_id);
    const after = new Set(referencedAttachments(store, content!, message.sender_id));
    message.content = content!;
    message.rendered_content = rendered!.html;
    message.is_me_message = rendered!.isMeMessage;
    message.last_edit_timestamp = now;
    for (const a of after) a.message_ids.add(message.id);
    for (const a of before) {
      if (after.has(a)) continue;
      a.message_ids.delete(message.id);
      if (a.message_ids.size === 0) detached.push(a);
    }
    const groupMembers = new Set<number>();
    for (const g of rendered!.mentionedGroupIds) for (const u of store.groupMembersRecursive(g)) groupMembers.add(u);
    for (const uid of store.messageAudience(message)) applyMentionFlags(store, uid, message.id, rendered!, groupMembers);
  }
  if (move) {
    for (const id of move.ids) {
      const m = store.messages.get(id)!;
      const entry: EditHistoryEntry = { user_id: user.user_id, timestamp: now };
      if (id === message.id && contentChanged) {
        entry.prev_content = orig.content;
        entry.prev_rendered_content = orig.rendered;
      }
      if (move.streamChanged) {
        entry.prev_stream = move.fromStream.stream_id;
        entry.stream = move.toStream.stream_id;
      }
      if (move.topicChanged) {
        entry.prev_topic = m.topic;
        entry.topic = move.newTopic;
      }
      m.edit_history.unshift(entry);
      m.stream_id = move.toStream.stream_id;
      m.recipient_id = move.toStream.recipient_id;
      m.topic = move.newTopic;
      if (!move.resolveOnly) m.last_moved_timestamp = now;
    }
    store.reindexMessages(move.ids, move.fromStream.stream_id, move.toStream.stream_id);
  } else if (contentChanged) {
    message.edit_history.unshift({ user_id: user.user_id, timestamp: now, prev_content: orig.content, prev_rendered_content: orig.rendered });
  }

  notifyUpdate(ctx, message, move, listenersBefore, orig, propagateMode, contentChanged, now);
  if (move) sendMoveNotifications(ctx, move, message.id, propagateMode, notifyOld, notifyNew);
  return { detached_uploads: detached.map((a) => serializeAttachment(store, a)) };
}
