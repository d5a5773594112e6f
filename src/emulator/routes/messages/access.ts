/** Who may read a message, who hears about it, and the `message` event (https://zulip.com/api/get-events#message). */
import type { RouteContext } from '../../context.js';
import { invalidMessage } from '../../errors.js';
import type { Message, Store, User } from '../../store.js';
import { serializeMessage, queueSerializeOptions } from './wire.js';

// ---- access and audiences --------------------------------------------------------------------------

/** Zulip's access_message: the message if the user may read it, else "Invalid message(s)". */
export function accessMessage(store: Store, user: User, messageId: number): Message {
  const message = store.messages.get(messageId);
  if (!message || !store.canSeeMessage(user, message)) throw invalidMessage();
  return message;
}

/**
 * Who is told about changes to a message (reactions, edits): everyone who received it, i.e. the
 * participants, or the active subscribers who can read it.
 */
export function messageListeners(store: Store, message: Message): Set<number> {
  const ids = new Set<number>();
  for (const id of store.messageAudience(message)) {
    const u = store.users.get(id);
    if (u?.is_active && store.canSeeMessage(u, message)) ids.add(id);
  }
  return ids;
}

export function activeSubscriberCount(store: Store, streamId: number): number {
  let n = 0;
  for (const id of store.subscriberIds(streamId)) if (store.users.get(id)?.is_active) n++;
  return n;
}
// ---- events ------------------------------------------------------------------------------------

/** `message` events: each receiver gets its flags and its queue's rendering. */
export function notifyNewMessage(
  ctx: Pick<RouteContext, 'store' | 'events' | 'baseUrl'>,
  message: Message,
  localEcho?: { queueId: string; localId: string },
): void {
  const { store } = ctx;
  const receivers = new Set<number>();
  for (const id of store.messageAudience(message)) if (store.users.get(id)?.is_active) receivers.add(id);
  receivers.add(message.sender_id);
  const channel = message.type === 'stream' ? store.channels.get(message.stream_id!) : undefined;
  ctx.events.notify(
    receivers,
    (queue) => {
      const viewer = store.users.get(queue.userId);
      if (!viewer) return null;
      const flags = receivers.has(queue.userId) ? store.messageFlags(queue.userId, message).filter((f) => f !== 'historical') : [];
      const event: Record<string, unknown> & { type: string } = {
        type: 'message',
        message: serializeMessage(store, viewer, message, queueSerializeOptions(queue, ctx.baseUrl)),
        flags,
      };
      if (localEcho && queue.id === localEcho.queueId && queue.userId === message.sender_id) event.local_message_id = localEcho.localId;
      return event;
    },
    { publicChannelListeners: channel !== undefined && !channel.invite_only },
  );
}
