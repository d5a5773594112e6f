/**
 * Moving messages between topics and channels (the move half of `PATCH /messages/{id}`,
 * https://zulip.com/api/update-message): time limits (MOVE_MESSAGES_TIME_LIMIT_EXCEEDED, with
 * `first_message_id_allowed_to_move` null when no requested message may move; resolving has no
 * limit), the `update_message` / `delete_message` events and the breadcrumb notifications.
 */
import type { RouteContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { channelNarrowPath, encodeHashComponent } from '../../markdown.js';
import { RESOLVED_TOPIC_PREFIX } from '../../narrow/index.js';
import type { Channel, Message, Store, User } from '../../store.js';
import { displayTopic } from './wire.js';
import { messageListeners } from './access.js';
import { EDIT_LIMIT_BUFFER_SECONDS } from './rules.js';
import { sendNotification } from './send.js';
import { notifyFlags } from './flags.js';

// ---- PATCH /messages/{id} ------------------------------------------------------------------------

export interface MovePlan {
  ids: number[];
  fromStream: Channel;
  toStream: Channel;
  oldTopic: string;
  newTopic: string;
  topicChanged: boolean;
  streamChanged: boolean;
  resolveOnly: 'resolve' | 'unresolve' | null;
}

/**
 * Move time limits (not for moderators and administrators, not for resolving): the stricter of the
 * applicable limits. MOVE_MESSAGES_TIME_LIMIT_EXCEEDED says which part of the topic may still move.
 */
export function timeLimitCheck(store: Store, user: User, plan: MovePlan, nowSeconds: number): void {
  if (store.isModeratorOrAbove(user) || plan.resolveOnly) return;
  const r = store.realm.settings;
  const limits: number[] = [];
  if (plan.topicChanged && r.move_messages_within_stream_limit_seconds !== null) limits.push(r.move_messages_within_stream_limit_seconds);
  if (plan.streamChanged && r.move_messages_between_streams_limit_seconds !== null) limits.push(r.move_messages_between_streams_limit_seconds);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits) + EDIT_LIMIT_BUFFER_SECONDS;
  const inTime = (id: number) => nowSeconds - store.messages.get(id)!.timestamp <= deadline;
  const allowed = plan.ids.filter(inTime);
  if (allowed.length === plan.ids.length) return;
  const inTopic = topicMessageIds(store, user, plan.fromStream.stream_id, plan.oldTopic);
  const allowedInTopic = inTopic.filter(inTime);
  const msg =
    allowedInTopic.length > 0
      ? `You only have permission to move the ${allowedInTopic.length}/${inTopic.length} most recent messages in this topic.`
      : 'The time limit for moving this message has passed.';
  throw new ApiError('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', msg, 400, {
    first_message_id_allowed_to_move: allowed[0] ?? null,
    total_messages_allowed_to_move: allowedInTopic.length,
    total_messages_in_topic: inTopic.length,
  });
}

/** Ids of a topic's messages the user can read, ascending (case-insensitive topic match). */
export function topicMessageIds(store: Store, user: User, streamId: number, topic: string): number[] {
  const lower = topic.toLowerCase();
  const ids: number[] = [];
  for (const id of store.channelMessageIds(streamId)) {
    const m = store.messages.get(id);
    if (m && m.stream_id === streamId && m.topic.toLowerCase() === lower && store.canSeeMessage(user, m)) ids.push(id);
  }
  return ids;
}

export function resolveKind(oldTopic: string, newTopic: string): 'resolve' | 'unresolve' | null {
  if (newTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && newTopic.slice(RESOLVED_TOPIC_PREFIX.length) === oldTopic) {
    return 'resolve';
  }
  if (oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !newTopic.startsWith(RESOLVED_TOPIC_PREFIX) && stripResolved(oldTopic) === newTopic) {
    return 'unresolve';
  }
  return null;
}

export function stripResolved(topic: string): string {
  let t = topic;
  while (t.startsWith(RESOLVED_TOPIC_PREFIX)) t = t.slice(RESOLVED_TOPIC_PREFIX.length);
  return t;
}

export function notifyUpdate(
  ctx: RouteContext,
  message: Message,
  move: MovePlan | undefined,
  listenersBefore: Set<number>,
  orig: { content: string; rendered: string; stream: number | undefined; topic: string },
  propagateMode: string,
  contentChanged: boolean,
  now: number,
): void {
  const { store } = ctx;
  const listenersAfter = messageListeners(store, message);
  // Users who could read the message before and cannot any more (moved to a channel they cannot see).
  const losing = new Set([...listenersBefore].filter((id) => !store.canSeeMessage(store.users.get(id)!, message)));
  const event: Record<string, unknown> = {
    type: 'update_message',
    user_id: ctx.user.user_id,
    rendering_only: false,
    message_id: message.id,
    message_ids: move ? [...move.ids].sort((a, b) => a - b) : [message.id],
    edit_timestamp: now,
  };
  if (orig.stream !== undefined) {
    event.stream_id = orig.stream;
    event.stream_name = move?.fromStream.name ?? store.channels.get(orig.stream)?.name;
  }
  if (move) {
    event.propagate_mode = propagateMode;
    event.orig_subject = orig.topic;
    if (move.streamChanged) event.new_stream_id = move.toStream.stream_id;
    if (move.topicChanged) {
      event.subject = move.newTopic;
      event.topic_links = [];
    }
  }
  if (contentChanged) {
    Object.assign(event, {
      orig_content: orig.content,
      orig_rendered_content: orig.rendered,
      content: message.content,
      rendered_content: message.rendered_content,
      is_me_message: message.is_me_message,
    });
  }
  const recipients = [...new Set([...listenersBefore, ...listenersAfter])].filter((id) => !losing.has(id));
  ctx.events.notify(recipients, (queue) => {
    const allowEmpty = queue.options.capabilities.empty_topic_name === true;
    const e: Record<string, unknown> & { type: string } = {
      ...(event as { type: string }),
      flags: store.receivedMessage(queue.userId, message) ? store.messageFlags(queue.userId, message) : [],
    };
    if (typeof e.orig_subject === 'string') e.orig_subject = displayTopic(store, e.orig_subject, allowEmpty);
    if (typeof e.subject === 'string') e.subject = displayTopic(store, e.subject, allowEmpty);
    return e;
  });

  if (!move) return;
  // Users who can no longer read the moved messages see them deleted: one event with
  // bulk_message_deletion, else one per message.
  if (losing.size > 0) {
    const ids = [...move.ids].sort((a, b) => a - b);
    const base = { type: 'delete_message', message_type: 'stream', stream_id: move.fromStream.stream_id, topic: orig.topic };
    ids.forEach((id, i) =>
      ctx.events.notify(losing, (queue) => {
        if (queue.options.capabilities.bulk_message_deletion) return i === 0 ? { ...base, message_ids: ids } : null;
        return { ...base, message_id: id };
      }),
    );
  }
  // Users who still see the messages but no longer receive them (not subscribed to the new
  // channel) have them marked as read, as Zulip does.
  if (move.streamChanged) {
    for (const uid of listenersBefore) {
      if (losing.has(uid)) continue;
      const changed = move.ids.filter((id) => {
        const m = store.messages.get(id)!;
        return !store.receivedMessage(uid, m) && store.setFlag(uid, id, 'read', true);
      });
      if (changed.length > 0) notifyFlags(ctx, uid, 'add', 'read', changed);
    }
  }
}

/** Zulip's send_message_moved_breadcrumbs and resolve-topic notifications. */
export function sendMoveNotifications(
  ctx: RouteContext,
  move: MovePlan,
  targetId: number,
  propagateMode: string,
  notifyOld: boolean,
  notifyNew: boolean,
): void {
  const { store, user } = ctx;
  const mention = `@_**${user.full_name}**`;
  if (move.resolveOnly) {
    const participants = new Set<number>();
    for (const id of move.ids) {
      const m = store.messages.get(id)!;
      participants.add(m.sender_id);
      for (const r of m.reactions) participants.add(r.user_id);
    }
    const text = move.resolveOnly === 'resolve' ? 'has marked this topic as resolved.' : 'has marked this topic as unresolved.';
    sendNotification(ctx, move.toStream, move.newTopic, `${mention} ${text}`, participants);
    return;
  }
  const count = move.ids.length;
  const oldLink = `#**${move.fromStream.name}>${move.oldTopic}**`;
  const newLink = `#**${move.toStream.name}>${move.newTopic}**`;
  if (notifyNew) {
    const link = `${ctx.baseUrl}${channelNarrowPath(move.toStream.stream_id, move.toStream.name)}/topic/${encodeHashComponent(move.newTopic)}/near/${targetId}`;
    const text =
      propagateMode === 'change_all'
        ? `This topic was moved here from ${oldLink} by ${mention}.`
        : count === 1
          ? `[A message](${link}) was moved here from ${oldLink} by ${mention}.`
          : `[${count} messages](${link}) were moved here from ${oldLink} by ${mention}.`;
    sendNotification(ctx, move.toStream, move.newTopic, text, new Set());
  }
  if (notifyOld) {
    const text =
      propagateMode === 'change_all'
        ? `This topic was moved to ${newLink} by ${mention}.`
        : count === 1
          ? `A message was moved from this topic to ${newLink} by ${mention}.`
          : `${count} messages were moved from this topic to ${newLink} by ${mention}.`;
    sendNotification(ctx, move.fromStream, move.oldTopic, text, new Set());
  }
}
