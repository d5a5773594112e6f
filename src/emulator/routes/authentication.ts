/**
 * Login without credentials: `POST /fetch_api_key` (https://zulip.com/api/fetch-api-key), checked
 * against the password `PATCH /settings` sets or the account's initial one (routes/settings.ts).
 * Zulip's api_fetch_api_key answers a deactivated account and a wrong password differently. And
 * `POST /users/me/api_key/regenerate` (https://zulip.com/api/regenerate-api-key).
 */
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest, userDeactivated } from '../errors.js';
import { newApiKey } from './bots.js';
import { passwordOf } from './settings.js';

function fetchApiKey({ params, store }: RouteContext) {
  const username = params.str('username');
  const password = params.str('password');
  const user = store.userByEmail(username);
  if (!user || user.is_bot || passwordOf(store, user) !== password) {
    throw new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);
  }
  if (!user.is_active) throw userDeactivated();
  return { api_key: user.api_key, email: user.email, user_id: user.user_id };
}

/** https://zulip.com/api/regenerate-api-key: humans only (human_users_only); the old key stops working. */
function regenerateApiKey(ctx: RouteContext) {
  if (ctx.user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  ctx.user.api_key = newApiKey();
  return { api_key: ctx.user.api_key };
}

export const routes: Route[] = [
  { method: 'POST', path: '/fetch_api_key', auth: false, handler: fetchApiKey },
  { method: 'POST', path: '/users/me/api_key/regenerate', handler: regenerateApiKey },
];
