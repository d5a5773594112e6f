/**
 * `DELETE /messages/{message_id}` (https://zulip.com/api/delete-message) and its `delete_message`
 * event (https://zulip.com/api/get-events#delete_message).
 *
 * As in Zulip (zerver/views/message_edit.py, validate_can_delete_message): members of
 * `can_delete_any_message_group` delete any message they can read; others only their own (or
 * their bots'), if in `can_delete_own_message_group`, and within
 * `message_content_delete_limit_seconds` of sending. The event goes to everyone who could read it:
 * one `message_ids` list with the `bulk_message_deletion` capability, else `message_id`.
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { GroupSettingValue, Message, User } from '../../store.js';
import { accessMessage, messageListeners } from './access.js';

function inGroup(ctx: RouteContext, user: User, value: GroupSettingValue | undefined): boolean {
  return value !== undefined && ctx.store.userHasGroupSetting(user.user_id, value);
}

/** Zulip's validate_can_delete_message. */
function checkCanDelete(ctx: RouteContext, message: Message): void {
  const { user, store } = ctx;
  const settings = store.realm.settings;
  if (inGroup(ctx, user, settings.can_delete_any_message_group)) return;
  const sender = store.users.get(message.sender_id);
  const own = message.sender_id === user.user_id || sender?.bot_owner_id === user.user_id;
  if (!own || !inGroup(ctx, user, settings.can_delete_own_message_group)) throw badRequest("You don't have permission to delete this message");
  const limit = settings.message_content_delete_limit_seconds ?? null;
  if (limit !== null && ctx.nowSeconds() - message.timestamp > limit) throw badRequest('The time limit for deleting this message has passed');
}

/** https://zulip.com/api/delete-message */
export function deleteMessage(ctx: RouteContext): Record<string, unknown> {
  const message = accessMessage(ctx.store, ctx.user, ctx.pathInt('message_id'));
  checkCanDelete(ctx, message);
  const listeners = messageListeners(ctx.store, message);
  listeners.add(ctx.user.user_id);
  ctx.store.messages.delete(message.id);
  const base: Record<string, unknown> & { type: string } =
    message.type === 'stream'
      ? { type: 'delete_message', message_type: 'stream', stream_id: message.stream_id!, topic: message.topic }
      : { type: 'delete_message', message_type: 'private' };
  ctx.events.notify(listeners, (queue) =>
    queue.options.capabilities.bulk_message_deletion ? { ...base, message_ids: [message.id] } : { ...base, message_id: message.id },
  );
  return {};
}
