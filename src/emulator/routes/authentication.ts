/**
 * Login without credentials: `POST /jwt/fetch_api_key` (https://zulip.com/api/jwt-fetch-api-key)
 * with a token signed by the organization's key (settings.jwtAuthKey), and `POST /fetch_api_key`
 * (https://zulip.com/api/fetch-api-key), checked
 * against the password `PATCH /settings` sets or the account's initial one (routes/settings.ts).
 * Zulip's api_fetch_api_key answers a deactivated account and a wrong password differently. And
 * `POST /users/me/api_key/regenerate` (https://zulip.com/api/regenerate-api-key).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest, userDeactivated } from '../errors.js';
import { newApiKey } from './bots.js';
import { passwordOf } from './settings.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

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

/**
 * Zulip's zerver/views/auth.py `jwt_fetch_api_key`: an HS256 JSON Web Token signed with the
 * organization's key, whose `email` claim names the account.
 */
function jwtFetchApiKey({ params, store, settings }: RouteContext) {
  const token = params.optStr('token');
  params.has('include_profile');
  if (settings.jwtAuthKey === undefined) throw badRequest('Invalid subdomain');
  if (!token) throw badRequest('No JSON web token passed in request');
  const claims = verifiedClaims(token, settings.jwtAuthKey);
  if (!claims) throw badRequest('Bad JSON web token');
  if (typeof claims.email !== 'string') throw badRequest('No email specified in JSON web token claims');
  const user = store.userByEmail(claims.email);
  if (!user || user.is_bot || !user.is_active) throw new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);
  // Zulip answers the key and the email, no user ID (`user` only with include_profile).
  return { api_key: user.api_key, email: user.email };
}

/** The claims of an HS256 token whose signature `key` verifies; null otherwise. */
function verifiedClaims(token: string, key: string): Record<string, unknown> | null {
  const [header, payload, signature, ...rest] = token.split('.');
  if (!header || !payload || signature === undefined || rest.length > 0) return null;
  try {
    const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (alg !== 'HS256') return null;
    const expected = createHmac('sha256', key).update(`${header}.${payload}`).digest();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** https://zulip.com/api/regenerate-api-key: humans only (human_users_only); the old key stops working. */
function regenerateApiKey(ctx: RouteContext) {
  if (ctx.user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  ctx.user.api_key = newApiKey();
  return { api_key: ctx.user.api_key };
}

export const routes: Route[] = [
  { operation: ops.fetchApiKey, auth: false, handler: fetchApiKey },
  { operation: ops.jwtFetchApiKey, auth: false, handler: jwtFetchApiKey },
  { operation: ops.regenerateApiKey, handler: regenerateApiKey },
];
