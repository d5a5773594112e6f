/**
 * Muted users: `POST` and `DELETE /users/me/muted_users/{muted_user_id}`
 * (https://zulip.com/api/mute-user, https://zulip.com/api/unmute-user, feature level 48), the
 * `muted_users` event (https://zulip.com/api/get-events#muted_users) and the `muted_users`
 * register state.
 *
 * As in Zulip (zerver/views/muted_users.py, zerver/actions/muted_users.py): a user cannot mute
 * themself; an unknown user, or one the caller cannot access, is "No such user"; deactivated
 * users and bots can be muted; muting marks the muted user's messages read for the caller (with
 * an `update_message_flags` event). Below feature level 48 the routes do not exist.
 */
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { Store, User } from '../store.js';
import { notifyFlags } from './messages/flags.js';
import { noSuchUser } from './users/read.js';
import { canAccessUser } from './users/wire.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** The caller's muted users as the event and the register state list them, in muting order. */
export function mutedUsersOf(store: Store, userId: number): { id: number; timestamp: number }[] {
  return [...(store.mutedUsers.get(userId) ?? [])].map(([id, timestamp]) => ({ id, timestamp }));
}

/** The muted user of the path: any existing user the caller can access (deactivated users and bots included). */
function target(ctx: RouteContext): User {
  const user = ctx.store.users.get(ctx.pathInt('muted_user_id'));
  if (!user || !canAccessUser(ctx.store, ctx.user, user)) throw noSuchUser();
  return user;
}

function notify(ctx: RouteContext): void {
  ctx.events.notify([ctx.user.user_id], { type: 'muted_users', muted_users: mutedUsersOf(ctx.store, ctx.user.user_id) });
}

/** Zulip's do_mark_muted_user_messages_as_read: every unread message the muted user sent becomes read. */
function markSentMessagesRead(ctx: RouteContext, muted: User): void {
  const uid = ctx.user.user_id;
  const changed: number[] = [];
  for (const message of ctx.store.messages.values()) {
    if (message.sender_id === muted.user_id && ctx.store.setFlag(uid, message.id, 'read', true)) changed.push(message.id);
  }
  if (changed.length > 0) notifyFlags(ctx, uid, 'add', 'read', changed);
}

/** https://zulip.com/api/mute-user */
function mute(ctx: RouteContext): Record<string, unknown> {
  if (ctx.pathInt('muted_user_id') === ctx.user.user_id) throw badRequest('Cannot mute self');
  const muted = target(ctx);
  let mine = ctx.store.mutedUsers.get(ctx.user.user_id);
  if (!mine) ctx.store.mutedUsers.set(ctx.user.user_id, (mine = new Map()));
  if (mine.has(muted.user_id)) throw badRequest('User already muted');
  mine.set(muted.user_id, ctx.nowSeconds());
  notify(ctx);
  markSentMessagesRead(ctx, muted);
  return {};
}

/** https://zulip.com/api/unmute-user */
function unmute(ctx: RouteContext): Record<string, unknown> {
  const muted = target(ctx);
  if (!ctx.store.mutedUsers.get(ctx.user.user_id)?.delete(muted.user_id)) throw badRequest('User is not muted');
  notify(ctx);
  return {};
}

export const routes: Route[] = [
  { operation: ops.muteUser, handler: mute },
  { operation: ops.unmuteUser, handler: unmute },
];

/** The `muted_users` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('muted_users') ? { muted_users: mutedUsersOf(ctx.store, ctx.user.user_id) } : {};
}
