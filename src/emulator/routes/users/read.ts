/**
 * `GET /users` (https://zulip.com/api/get-users), `GET /users/{user_id}`
 * (https://zulip.com/api/get-user), `GET /users/{email}` (https://zulip.com/api/get-user-by-email) and
 * `GET /users/me` (https://zulip.com/api/get-own-user), and the user lookups the writes share.
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest, insufficientPermission } from '../../errors.js';
import type { User } from '../../store.js';
import { accessibleUserIds, canAccessUser, type SerializeOptions, serializeUser } from './wire.js';

// ---- lookups -----------------------------------------------------------------------------------

export function noSuchUser(): ApiError {
  return badRequest('No such user');
}

/** Zulip's OrganizationOwnerRequiredError. */
export function ownerRequired(): ApiError {
  return new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);
}

/**
 * The user a path segment names: an ID, or an email (the API email, or since feature level 302
 * the real address when the requester may see it).
 */
export function lookupUser(ctx: RouteContext, raw: string): User {
  const { store, user: viewer } = ctx;
  if (/^\d+$/.test(raw)) {
    const target = store.users.get(Number(raw));
    if (!target) throw noSuchUser();
    return target;
  }
  const wanted = raw.toLowerCase();
  const users = [...store.users.values()];
  const target =
    users.find((u) => u.email.toLowerCase() === wanted) ??
    users.find((u) => u.delivery_email.toLowerCase() === wanted && store.canSeeRealEmail(viewer, u));
  if (!target) throw noSuchUser();
  return target;
}

/** Zulip's access_user_common: read access needs only user access; `forAdmin` needs an administrator. */
export function accessUser(
  ctx: RouteContext,
  raw: string,
  options: { allowDeactivated: boolean; allowBots: boolean; forAdmin: boolean },
): User {
  const target = lookupUser(ctx, raw);
  if (target.is_bot && !options.allowBots) throw noSuchUser();
  if (!target.is_active && !options.allowDeactivated) throw badRequest('User is deactivated');
  if (!options.forAdmin) {
    if (!canAccessUser(ctx.store, ctx.user, target)) throw insufficientPermission();
    return target;
  }
  const canAdmin = ctx.store.isAdmin(ctx.user) || (target.is_bot && target.bot_owner_id === ctx.user.user_id);
  if (!canAdmin) throw insufficientPermission();
  return target;
}

export function readUserQuery(ctx: RouteContext): SerializeOptions {
  return {
    baseUrl: ctx.baseUrl,
    featureLevel: ctx.settings.featureLevel,
    clientGravatar: ctx.params.bool('client_gravatar', true),
    includeProfileData: ctx.params.bool('include_custom_profile_fields', false),
  };
}

// ---- reads -------------------------------------------------------------------------------------

export function getUsers(ctx: RouteContext) {
  const options = readUserQuery(ctx);
  // Below level 384 `user_ids` is not read, so it is reported in ignored_parameters_unsupported.
  // TODO(server-11): userIdsParameter (384); drop the older branch once every supported server has it.
  const wanted = ctx.settings.featureLevel >= featureLevels.userIdsParameter ? ctx.params.optIntArray('user_ids') : undefined;
  const only = wanted === undefined ? null : new Set(wanted);
  const accessible = accessibleUserIds(ctx.store, ctx.user);
  // With user_ids, only those users are read (unknown IDs are left out): a lookup of a few users
  // costs the same in any organization, as the server's indexed query does.
  const candidates = only === null ? [...ctx.store.users.values()] : [...only].flatMap((id) => ctx.store.users.get(id) ?? []);
  const members = candidates
    .filter((u) => accessible === null || accessible.has(u.user_id))
    .sort((a, b) => a.user_id - b.user_id)
    .map((u) => serializeUser(ctx.store, ctx.user, u, options));
  return { members };
}

export function getUser(ctx: RouteContext) {
  const options = readUserQuery(ctx);
  const target = accessUser(ctx, ctx.path.user_id!, { allowDeactivated: true, allowBots: true, forAdmin: false });
  return { user: serializeUser(ctx.store, ctx.user, target, options) };
}

export function getOwnUser(ctx: RouteContext) {
  const { store, user } = ctx;
  const { bot_type: _type, bot_owner_id: _owner, profile_data, ...rest } = serializeUser(store, user, user, {
    baseUrl: ctx.baseUrl,
    featureLevel: ctx.settings.featureLevel,
    clientGravatar: false,
    includeProfileData: true,
  });
  let maxMessageId = -1;
  for (const message of store.messages.values()) {
    if (message.id > maxMessageId && store.canSeeMessage(user, message)) maxMessageId = message.id;
  }
  return { ...rest, delivery_email: user.delivery_email, ...(profile_data && { profile_data }), max_message_id: maxMessageId };
}
