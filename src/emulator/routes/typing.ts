/**
 * Typing notifications: `POST /typing` (https://zulip.com/api/set-typing-status) and the `typing`
 * event. The server keeps no typing state; it validates and fans out (zerver/views/typing.py,
 * zerver/actions/typing.py). Events go only to users with receives_typing_notifications on: for a
 * direct conversation to every participant (the sender included), for a channel topic to the
 * channel's other subscribers. Queues without the stream_typing_notifications capability drop
 * channel typing events (queues.ts). `POST /messages/{message_id}/typing` and its
 * `typing_edit_message` event say someone is editing a message.
 */
import type { Route, RouteContext } from '../context.js';
import { badRequest, invalidChannelId } from '../errors.js';
import { checkNoNullBytes } from '../http.js';
import type { Channel, User } from '../store.js';
import { accessMessage } from './messages/access.js';
import { checkCanEditContent } from './messages/edit.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const OPS = new Set(['start', 'stop']);
const TYPES = new Set(['direct', 'stream', 'channel']);

function receivesTyping(user: User): boolean {
  return user.is_active && user.settings.receives_typing_notifications !== false;
}

function person(user: User) {
  return { user_id: user.user_id, email: user.email };
}

/** The topic as the event carries it: `(no topic)` and the empty-topic display name mean the empty topic. */
function readTopic(ctx: RouteContext): string {
  const raw = ctx.params.optStr('topic');
  if (raw === undefined) throw badRequest('Missing topic');
  const topic = checkNoNullBytes('topic', raw);
  if (topic.length > ctx.settings.maxTopicLength) {
    throw badRequest(`topic is too long (limit: ${ctx.settings.maxTopicLength} characters)`);
  }
  return topic === '(no topic)' || topic === ctx.store.realm.empty_topic_display_name ? '' : topic;
}

/** Zulip's access_stream_by_id_for_message + access_stream_for_send_message. */
function channelForTyping(ctx: RouteContext, streamId: number): Channel {
  const { store, user } = ctx;
  const channel = store.channels.get(streamId);
  if (!channel || !store.canAccessChannelContent(user, channel)) throw invalidChannelId();
  if (channel.is_archived) throw badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (!store.userHasGroupSetting(user.user_id, channel.can_send_message_group)) {
    throw badRequest('You do not have permission to post in this channel.');
  }
  return channel;
}

function setTypingStatus(ctx: RouteContext): Record<string, never> {
  const { params, store, user } = ctx;
  const type = params.optStr('type') ?? 'direct';
  const op = params.str('op');
  const to = params.optIntArray('to');
  const streamId = params.optInt('stream_id');
  if (!TYPES.has(type)) throw badRequest('Invalid type');
  if (!OPS.has(op)) throw badRequest('Invalid op');

  if (type === 'stream' || type === 'channel') {
    if (streamId === undefined) throw badRequest("Missing 'stream_id' argument");
    const topic = readTopic(ctx);
    if (user.settings.send_stream_typing_notifications === false) {
      throw badRequest('User has disabled typing notifications for channel messages');
    }
    const channel = channelForTyping(ctx, streamId);
    const audience = store
      .subscriberIds(channel.stream_id)
      .map((id) => store.users.get(id))
      .filter((u): u is User => u !== undefined && u.user_id !== user.user_id && receivesTyping(u))
      .map((u) => u.user_id);
    ctx.events.notify(audience, {
      type: 'typing',
      op,
      message_type: 'stream',
      sender: person(user),
      stream_id: channel.stream_id,
      topic,
    });
    return {};
  }

  params.optStr('topic'); // ignored for direct typing, as documented
  if (to === undefined) throw badRequest("Missing 'to' argument");
  const userIds = to;
  if (userIds.length === 0) throw badRequest("Empty 'to' list");
  if (user.settings.send_private_typing_notifications === false) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  // One unknown ID rejects the whole request: a partial list would name another conversation.
  const ids = userIds.includes(user.user_id) ? [...userIds] : [...userIds, user.user_id];
  const recipients = ids.map((id) => {
    const recipient = store.users.get(id);
    if (!recipient) throw badRequest(`Invalid user ID ${id}`);
    return recipient;
  });
  const unique = [...new Map(recipients.map((r) => [r.user_id, r])).values()];
  ctx.events.notify(
    unique.filter(receivesTyping).map((u) => u.user_id),
    { type: 'typing', op, message_type: 'direct', sender: person(user), recipients: unique.map(person) },
  );
  return {};
}

/**
 * `POST /messages/{message_id}/typing` (https://zulip.com/api/set-typing-status-for-message-edit,
 * feature level 351): as Zulip's send_message_edit_notification_backend (zerver/views/typing.py),
 * only someone who may edit the message's content now (no grace period) can say they are editing
 * it. The `typing_edit_message` event goes to the channel's active subscribers, or to the
 * conversation's participants, who have typing notifications on (zerver/actions/typing.py).
 */
function setTypingStatusForMessageEdit(ctx: RouteContext): Record<string, never> {
  const { params, store, user } = ctx;
  const messageId = ctx.pathInt('message_id');
  const op = params.str('op');
  if (!OPS.has(op)) throw badRequest('Invalid op');
  const message = accessMessage(store, user, messageId);
  checkCanEditContent(store, user, message, ctx.nowSeconds(), 0);
  const base = { type: 'typing_edit_message', op, sender_id: user.user_id, message_id: message.id };
  if (message.type === 'stream') {
    if (user.settings.send_stream_typing_notifications === false) {
      throw badRequest('User has disabled typing notifications for channel messages');
    }
    const audience = store.subscriberIds(message.stream_id!).filter((id) => receivesTyping(store.users.get(id)!));
    ctx.events.notify(audience, { ...base, recipient: { type: 'channel', channel_id: message.stream_id!, topic: message.topic } });
    return {};
  }
  if (user.settings.send_private_typing_notifications === false) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  const audience = message.dm_user_ids!.filter((id) => receivesTyping(store.users.get(id)!));
  ctx.events.notify(audience, { ...base, recipient: { type: 'direct', user_ids: audience } });
  return {};
}

export const routes: Route[] = [
  { operation: ops.setTypingStatus, handler: setTypingStatus },
  { operation: ops.setTypingStatusForMessageEdit, handler: setTypingStatusForMessageEdit },
];
