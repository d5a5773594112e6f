/**
 * `GET /messages/{message_id}/read_receipts` (https://zulip.com/api/get-read-receipts, feature
 * level 137). As Zulip's read_receipts view (zerver/views/read_receipts.py): the active users who
 * received the message and have it read, leaving out the sender, users who hide their receipts
 * (`send_read_receipts`), users who muted the caller and users the caller muted.
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { accessMessage } from './access.js';

export function getReadReceipts(ctx: RouteContext): Record<string, unknown> {
  const { store, user } = ctx;
  const message = accessMessage(store, user, ctx.pathInt('message_id'));
  if (store.realm.settings.enable_read_receipts === false) throw badRequest('Read receipts are disabled in this organization.');
  const mutedByCaller = store.mutedUsers.get(user.user_id);
  const userIds: number[] = [];
  for (const reader of store.users.values()) {
    if (!reader.is_active || reader.user_id === message.sender_id || reader.settings.send_read_receipts === false) continue;
    if (mutedByCaller?.has(reader.user_id) || store.mutedUsers.get(reader.user_id)?.has(user.user_id)) continue;
    if (store.receivedMessage(reader.user_id, message) && store.hasFlag(reader.user_id, message.id, 'read')) userIds.push(reader.user_id);
  }
  return { user_ids: userIds };
}
