/**
 * Mobile push registration, the deprecated token endpoints (https://zulip.com/api/add-apns-token,
 * remove-apns-token, add-fcm-token, remove-fcm-token). As Zulip's push_notifications view
 * (zerver/views/push_notifications.py): a token is 1 to 4096 characters, an APNs token is hex, an
 * app ID is required for APNs, and removing an unknown token fails (the emulator uses no push
 * bouncer). Tokens are kept per user and kind; no error message repeats a token.
 */
import type { Route, RouteContext } from '../context.js';
import { badRequest } from '../errors.js';

type TokenKind = 'apns' | 'fcm';

/** Zulip's validate_token. */
function readToken(ctx: RouteContext, kind: TokenKind): string {
  const token = ctx.params.str('token');
  if (token === '' || token.length > 4096) throw badRequest('Empty or invalid length token');
  if (kind === 'apns' && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) throw badRequest('Invalid APNS token');
  return token;
}

function tokensOf(ctx: RouteContext): Map<string, { kind: TokenKind; token: string; appid?: string }> {
  let mine = ctx.store.pushTokens.get(ctx.user.user_id);
  if (!mine) ctx.store.pushTokens.set(ctx.user.user_id, (mine = new Map()));
  return mine;
}

function addToken(kind: TokenKind) {
  return (ctx: RouteContext): Record<string, never> => {
    const token = readToken(ctx, kind);
    const appid = kind === 'apns' ? ctx.params.str('appid') : undefined;
    if (appid !== undefined && !/^[.a-zA-Z0-9-]+$/.test(appid)) throw badRequest('Invalid app ID');
    tokensOf(ctx).set(`${kind}:${token}`, { kind, token, ...(appid !== undefined && { appid }) });
    return {};
  };
}

function removeToken(kind: TokenKind) {
  return (ctx: RouteContext): Record<string, never> => {
    const token = readToken(ctx, kind);
    if (!tokensOf(ctx).delete(`${kind}:${token}`)) throw badRequest('Token does not exist');
    return {};
  };
}

export const routes: Route[] = [
  { method: 'POST', path: '/users/me/apns_device_token', handler: addToken('apns') },
  { method: 'DELETE', path: '/users/me/apns_device_token', handler: removeToken('apns') },
  { method: 'POST', path: '/users/me/android_gcm_reg_id', handler: addToken('fcm') },
  { method: 'DELETE', path: '/users/me/android_gcm_reg_id', handler: removeToken('fcm') },
];
