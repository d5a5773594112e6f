/** `DELETE /users/{user_id}` (https://zulip.com/api/deactivate-user). */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { Role, type User } from '../../store.js';
import { usersWhoCanAccess } from './wire.js';
import { ownerRequired, accessUser } from './read.js';
import { isLastOwner, botAudience, realmUserUpdate } from './update.js';

// ---- deactivation ------------------------------------------------------------------------------

export function deactivateUser(ctx: RouteContext) {
  const { store } = ctx;
  const target = accessUser(ctx, String(ctx.pathInt('user_id')), { allowDeactivated: false, allowBots: false, forAdmin: true });
  const comment = ctx.params.optStr('deactivation_notification_comment');
  if (comment !== undefined && comment.length > 2000) {
    throw badRequest('deactivation_notification_comment is too long (limit: 2000 characters)');
  }
  if (target.role === Role.OWNER && ctx.user.role !== Role.OWNER) throw ownerRequired();
  if (isLastOwner(store, target)) throw badRequest('Cannot deactivate the only organization owner');
  // As in Zulip, the user's bots go with them.
  const bots = [...store.users.values()].filter((u) => u.is_bot && u.is_active && u.bot_owner_id === target.user_id);
  for (const account of [target, ...bots]) deactivate(ctx, account);
  return {};
}

/**
 * Marks the account inactive and tells those who can access it (`realm_user` update with
 * `is_active`, feature level 222). Clients then drop the user from group membership (feature level
 * 303): group member lists leave deactivated users out, so no `user_group` event is sent.
 */
export function deactivate(ctx: RouteContext, account: User): void {
  const audience = usersWhoCanAccess(ctx.store, account).filter((id) => id !== account.user_id);
  account.is_active = false;
  ctx.events.notify(audience, realmUserUpdate({ user_id: account.user_id, is_active: false }));
  if (account.is_bot) {
    ctx.events.notify(botAudience(ctx.store, account), { type: 'realm_bot', op: 'update', bot: { user_id: account.user_id, is_active: false } });
  }
}
