/**
 * Mobile push registration, the deprecated token endpoints (https://zulip.com/api/add-apns-token,
 * remove-apns-token, add-fcm-token, remove-fcm-token). As Zulip's push_notifications view
 * (zerver/views/push_notifications.py): a token is 1 to 4096 characters, an APNs token is hex, an
 * app ID is required for APNs, and removing an unknown token fails (the emulator uses no push
 * bouncer). Tokens are kept per user and kind; no error message repeats a token.
 *
 * Client devices and end-to-end encrypted push (https://zulip.com/api/register-client-device,
 * remove-client-device, register-push-device, e2ee-test-notify, test-notify), as Zulip's
 * push_notifications and devices views: E2EE registration needs the push notification service
 * (`settings.pushNotificationService`), else PUSH_SERVICE_NOT_CONFIGURED; with it, the emulator
 * completes a registration at once (it has no bouncer to wait for). Test notifications go nowhere:
 * they succeed when the user has a device to send them to. No message repeats a key or a token.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import type { ClientDevice } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

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

/** https://zulip.com/api/register-client-device */
function registerClientDevice(ctx: RouteContext): Record<string, unknown> {
  const device_id = ctx.store.nextId('client-device');
  ctx.store.clientDevices.set(device_id, { device_id, user_id: ctx.user.user_id });
  return { device_id };
}

/** Zulip's check_device_id: the caller's own device, or an error. */
function ownDevice(ctx: RouteContext, deviceId: number): ClientDevice {
  const device = ctx.store.clientDevices.get(deviceId);
  if (device?.user_id !== ctx.user.user_id) throw badRequest('Invalid `device_id`');
  return device;
}

/** https://zulip.com/api/remove-client-device */
function removeClientDevice(ctx: RouteContext): Record<string, never> {
  ctx.store.clientDevices.delete(ownDevice(ctx, ctx.params.int('device_id')).device_id);
  return {};
}

/** Zulip's check_push_key: base64 of one cryptosystem byte (0x31, libsodium's secretbox) and a 32-byte key. */
function checkPushKey(pushKey: string): void {
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(pushKey) && pushKey.length % 4 === 0 ? Buffer.from(pushKey, 'base64') : undefined;
  if (bytes?.length !== 33 || bytes[0] !== 0x31) throw badRequest('Invalid `push_key`');
}

/** A token ID is the base64 of 8 bytes (the start of the token's SHA-256). */
function checkTokenId(tokenId: string): void {
  if (!/^[A-Za-z0-9+/]{11}=$/.test(tokenId)) throw badRequest('Invalid `token_id`');
}

/** https://zulip.com/api/register-push-device, in its feature level 468 form (register, or rotate the key or the token). */
function registerPushDevice(ctx: RouteContext): Record<string, never> {
  const { params } = ctx;
  const tokenKind = params.optStr('token_kind');
  const pushKey = params.optStr('push_key');
  const pushKeyId = params.optInt('push_key_id');
  const bouncerPublicKey = params.optStr('bouncer_public_key');
  const encrypted = params.optStr('encrypted_push_registration');
  const tokenId = params.optStr('token_id');
  if (!ctx.settings.pushNotificationService) {
    throw new ApiError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.');
  }
  const device = ownDevice(ctx, params.int('device_id'));
  if (tokenKind !== undefined && tokenKind !== 'fcm' && tokenKind !== 'apns') throw badRequest('Invalid token_kind');
  if (pushKeyId !== undefined && (pushKeyId < 0 || pushKeyId > 0xffff_ffff)) throw badRequest('push_key_id is not a valid uint32');
  const keyFields = pushKey !== undefined && pushKeyId !== undefined;
  const tokenFields = tokenKind !== undefined && bouncerPublicKey !== undefined && encrypted !== undefined && tokenId !== undefined;
  if (!keyFields && !tokenFields) {
    throw badRequest('Missing parameters: must provide either all push key fields, all token fields, or both.');
  }
  if (keyFields) checkPushKey(pushKey);
  if (tokenFields) checkTokenId(tokenId);
  if (!(keyFields && tokenFields) && device.push_key_id === undefined) {
    throw badRequest(`No push registration exists to rotate ${keyFields ? 'key' : 'token'} for.`);
  }
  if (keyFields) Object.assign(device, { push_key: pushKey, push_key_id: pushKeyId });
  if (tokenFields) Object.assign(device, { token_kind: tokenKind, token_id: tokenId });
  return {};
}

/** https://zulip.com/api/e2ee-test-notify: to the given device, or to all the user's registered ones. */
function e2eeTestNotify(ctx: RouteContext): Record<string, never> {
  // TODO(server-12): clientDevices (468); drop the older branch once every supported server has it.
  const deviceId = ctx.settings.featureLevel >= featureLevels.clientDevices ? ctx.params.optInt('device_id') : undefined;
  const registered = [...ctx.store.clientDevices.values()].filter(
    (d) => d.user_id === ctx.user.user_id && d.token_id !== undefined && (deviceId === undefined || d.device_id === deviceId),
  );
  if (registered.length === 0) throw new ApiError('NO_ACTIVE_PUSH_DEVICE', 'No active registered push device');
  return {};
}

/** https://zulip.com/api/test-notify: to the device with the given legacy token, or to all of them. */
function testNotify(ctx: RouteContext): Record<string, never> {
  const token = ctx.params.optStr('token');
  const mine = [...(ctx.store.pushTokens.get(ctx.user.user_id)?.values() ?? [])];
  if (token !== undefined && !mine.some((t) => t.token === token)) throw new ApiError('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');
  return {};
}

export const routes: Route[] = [
  { operation: ops.addApnsToken, handler: addToken('apns') },
  { operation: ops.removeApnsToken, handler: removeToken('apns') },
  { operation: ops.addFcmToken, handler: addToken('fcm') },
  { operation: ops.removeFcmToken, handler: removeToken('fcm') },
  { operation: ops.registerClientDevice, handler: registerClientDevice },
  { operation: ops.removeClientDevice, handler: removeClientDevice },
  { operation: ops.registerPushDevice, handler: registerPushDevice },
  { operation: ops.e2eeTestNotify, handler: e2eeTestNotify },
  { operation: ops.testNotify, handler: testNotify },
];
