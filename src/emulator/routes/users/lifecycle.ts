/**
 * Account lifecycle: `POST /users` (https://zulip.com/api/create-user), `DELETE /users/me`
 * (https://zulip.com/api/deactivate-own-user) and `POST /users/{user_id}/reactivate`
 * (https://zulip.com/api/reactivate-user), with their `realm_user` events.
 *
 * As in Zulip (zerver/views/users.py): creating needs an administrator holding `can_create_users`
 * from feature level 36 (any administrator before), a valid full name, an unused and valid email
 * and a strong enough password; a user cannot deactivate themselves when they are the only active
 * user or the only owner (CANNOT_DEACTIVATE_LAST_USER); reactivating is `access_user_by_id` with
 * `for_admin` (an administrator, or the owner of a bot).
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import { requireRealmAdmin } from '../../admin.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest } from '../../errors.js';
import { addUser, subscribe } from '../../factory.js';
import { Role, type User } from '../../store.js';
import { deactivate } from './deactivate.js';
import { accessUser } from './read.js';
import { EMAIL_RE, botAudience, checkFullName, isLastOwner, realmUserUpdate } from './update.js';
import { serializeUser, usersWhoCanAccess } from './wire.js';

/** Zulip's PASSWORD_MIN_LENGTH; its strength check (zxcvbn) is stricter than length alone. */
const MIN_PASSWORD_LENGTH = 6;

/** https://zulip.com/api/create-user */
export function createUser(ctx: RouteContext) {
  const { store, params } = ctx;
  requireRealmAdmin(ctx);
  // TODO(server-4): createUserPermission (36); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel >= featureLevels.createUserPermission && ctx.user.can_create_users !== true) {
    throw badRequest('User not authorized to create users');
  }
  const email = params.str('email').trim();
  const password = params.str('password');
  const fullName = checkFullName(params.str('full_name'));
  if (!EMAIL_RE.test(email)) throw badRequest('Bad name or username');
  if (email.includes('+')) throw badRequest('Email addresses containing + are not allowed.');
  const holder = store.userByEmail(email);
  if (holder && holder.delivery_email.toLowerCase() === email.toLowerCase()) throw badRequest(`Email '${email}' already in use`);
  if (password.length < MIN_PASSWORD_LENGTH) throw badRequest('The password is too weak.');
  const nowMs = ctx.clock.now();
  const user = addUser(store, { full_name: fullName, delivery_email: email, role: Role.MEMBER, date_joined: new Date(nowMs).toISOString() }, nowMs);
  store.passwords.set(user.user_id, password);
  // Zulip subscribes new accounts to the organization's default channels.
  for (const streamId of store.defaultChannelIds) subscribe(store, streamId, user.user_id);
  for (const viewerId of usersWhoCanAccess(store, user)) {
    const viewer = store.users.get(viewerId)!;
    const person = serializeUser(store, viewer, user, { baseUrl: ctx.baseUrl, featureLevel: ctx.settings.featureLevel, clientGravatar: false, includeProfileData: true });
    ctx.events.notify([viewerId], { type: 'realm_user', op: 'add', person });
  }
  return { user_id: user.user_id };
}

/** Zulip's CannotDeactivateLastUserError. */
function cannotDeactivateLastUser(isLastOwnerError: boolean): ApiError {
  const entity = isLastOwnerError ? 'organization owner' : 'user';
  return new ApiError('CANNOT_DEACTIVATE_LAST_USER', `Cannot deactivate the only ${entity}`, 400, { entity, is_last_owner: isLastOwnerError });
}

/** https://zulip.com/api/deactivate-own-user */
export function deactivateOwnUser(ctx: RouteContext) {
  const { store, user } = ctx;
  const active = [...store.users.values()].filter((u) => u.is_active);
  if (active.length === 1) throw cannotDeactivateLastUser(false);
  if (user.role === Role.OWNER && isLastOwner(store, user)) throw cannotDeactivateLastUser(true);
  // As for an administrator's deactivation, the user's bots go with them.
  const bots = [...store.users.values()].filter((u) => u.is_bot && u.is_active && u.bot_owner_id === user.user_id);
  for (const account of [user, ...bots]) deactivate(ctx, account);
  return {};
}

/** https://zulip.com/api/reactivate-user */
export function reactivateUser(ctx: RouteContext) {
  const target = accessUser(ctx, String(ctx.pathInt('user_id')), { allowDeactivated: true, allowBots: true, forAdmin: true });
  if (!target.is_active) reactivate(ctx, target);
  return {};
}

/** Marks the account active again and tells those who can access it (`realm_user` update with `is_active`). */
function reactivate(ctx: RouteContext, account: User): void {
  account.is_active = true;
  ctx.events.notify(usersWhoCanAccess(ctx.store, account), realmUserUpdate({ user_id: account.user_id, is_active: true }));
  if (account.is_bot) {
    ctx.events.notify(botAudience(ctx.store, account), { type: 'realm_bot', op: 'update', bot: { user_id: account.user_id, is_active: true } });
  }
}
