/**
 * The organization-administration rules several realm resources share (linkifiers, code
 * playgrounds, realm domains, custom profile fields, invitations, exports): Zulip's `require_realm_admin`,
 * `require_realm_owner` and `require_member_or_admin` decorators, and the audience of realm-wide events.
 * https://zulip.com/help/roles-and-permissions
 */
import type { RouteContext } from './context.js';
import { ApiError } from './errors.js';
import { Role, type Store } from './store.js';

/** Zulip's OrganizationAdministratorRequiredError. */
export function requireRealmAdmin(ctx: RouteContext): void {
  if (!ctx.store.isAdmin(ctx.user)) throw new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
}

/** Zulip's OrganizationOwnerRequiredError. */
export function requireRealmOwner(ctx: RouteContext): void {
  if (ctx.user.role !== Role.OWNER) throw new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);
}

/** Zulip's require_member_or_admin: no guests, no bots. */
export function requireMemberOrAdmin(ctx: RouteContext): void {
  if (ctx.store.isGuest(ctx.user)) throw new ApiError('BAD_REQUEST', 'Not allowed for guest users', 400);
  if (ctx.user.is_bot) throw new ApiError('BAD_REQUEST', 'This endpoint does not accept bot requests.', 400);
}

/** Every active user: realm-wide settings events go to all of them (Zulip's active_user_ids). */
export function activeUserIds(store: Store): number[] {
  return [...store.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
}
