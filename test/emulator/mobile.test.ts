/**
 * The emulator's deprecated push token endpoints, driven through the REST client: tokens kept per
 * user and kind, Zulip's validation errors, and removal of an unknown token refused, with no
 * token in any error message. Client devices and E2EE push: registration needs the push service,
 * key and token rotation, test notifications to registered devices only.
 */
import { describe, expect, it } from 'vitest';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import {
  addApnsToken,
  addFcmToken,
  e2eeTestNotify,
  registerClientDevice,
  registerPushDevice,
  removeApnsToken,
  removeClientDevice,
  removeFcmToken,
  testNotify,
} from '../../src/zulip/routes/mobile.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const APNS = 'c0ffee00';
const FCM = 'fcm-registration:token';

describe('push tokens (deprecated endpoints)', () => {
  it('adds and removes APNs and FCM tokens per user and kind', async () => {
    const { as, store, userId } = setupEmulator();
    await addApnsToken(as('hamlet'), { token: APNS, appid: 'org.zulip.Zulip' });
    await addFcmToken(as('hamlet'), { token: FCM });
    expect([...store.pushTokens.get(userId('hamlet'))!.values()]).toEqual([
      { kind: 'apns', token: APNS, appid: 'org.zulip.Zulip' },
      { kind: 'fcm', token: FCM },
    ]);
    // Another user, or the other kind, does not hold the token.
    expect((await caughtApiError(removeFcmToken(as('iago'), { token: FCM }))).message).toBe('Token does not exist');
    expect((await caughtApiError(removeApnsToken(as('hamlet'), { token: 'abcd' }))).message).toBe('Token does not exist');
    await removeApnsToken(as('hamlet'), { token: APNS });
    await removeFcmToken(as('hamlet'), { token: FCM });
    expect(store.pushTokens.get(userId('hamlet'))!.size).toBe(0);
  });

  it('refuses empty, over-long and non-hex APNs tokens and bad app IDs, never echoing the token', async () => {
    const { as } = setupEmulator();
    const cases = [
      [addFcmToken(as('hamlet'), { token: '' }), 'Empty or invalid length token'],
      [addFcmToken(as('hamlet'), { token: 'x'.repeat(4097) }), 'Empty or invalid length token'],
      [addApnsToken(as('hamlet'), { token: 'not-hex-secret', appid: 'org.zulip.Zulip' }), 'Invalid APNS token'],
      [addApnsToken(as('hamlet'), { token: APNS, appid: 'bad app id!' }), 'Invalid app ID'],
    ] as const;
    for (const [call, message] of cases) {
      const e = await caughtApiError(call);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
      expect(JSON.stringify(e.data ?? {})).not.toContain('not-hex-secret');
    }
  });
});

// A push key: the secretbox cryptosystem byte (0x31) and a 32-byte key, in base64.
const PUSH_KEY = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 7)]).toString('base64');
const TOKEN_FIELDS = { tokenKind: 'fcm', tokenId: 'hGsEWGmyyfI=', bouncerPublicKey: 'bouncer-key', encryptedPushRegistration: 'sealed-secret' } as const;

function setupPush(pushNotificationService = true) {
  return setupEmulator({ settings: { featureLevel: featureLevels.removeClientDevice, pushNotificationService } });
}

describe('client devices and E2EE push', () => {
  it('registers and removes a client device, only the owner\u2019s', async () => {
    const { as, store, userId } = setupPush();
    const { device_id } = await registerClientDevice(as('hamlet'));
    expect(store.clientDevices.get(device_id)).toEqual({ device_id, user_id: userId('hamlet') });
    const other = await caughtApiError(removeClientDevice(as('iago'), { deviceId: device_id }));
    expect([other.code, other.message]).toEqual(['BAD_REQUEST', 'Invalid `device_id`']);
    await removeClientDevice(as('hamlet'), { deviceId: device_id });
    expect(store.clientDevices.has(device_id)).toBe(false);
    expect((await caughtApiError(removeClientDevice(as('hamlet'), { deviceId: device_id }))).message).toBe('Invalid `device_id`');
  });

  it('answers PUSH_SERVICE_NOT_CONFIGURED without a push service, and NO_ACTIVE_PUSH_DEVICE to a test then', async () => {
    const { as } = setupPush(false);
    const { device_id } = await registerClientDevice(as('hamlet'));
    const e = await caughtApiError(registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 1, ...TOKEN_FIELDS }));
    expect([e.code, e.message]).toEqual(['PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.']);
    expect(JSON.stringify(e)).not.toContain(PUSH_KEY);
    const none = await caughtApiError(e2eeTestNotify(as('hamlet'), {}));
    expect([none.code, none.message]).toEqual(['NO_ACTIVE_PUSH_DEVICE', 'No active registered push device']);
  });

  it('registers a push device, rotates its key and token, and notifies it', async () => {
    const { as, store } = setupPush();
    const { device_id } = await registerClientDevice(as('hamlet'));
    const rotateFirst = await caughtApiError(registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 1 }));
    expect(rotateFirst.message).toBe('No push registration exists to rotate key for.');
    await registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 1, ...TOKEN_FIELDS });
    expect(store.clientDevices.get(device_id)).toMatchObject({ push_key_id: 1, token_kind: 'fcm', token_id: TOKEN_FIELDS.tokenId });
    await registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 2 });
    await registerPushDevice(as('hamlet'), { deviceId: device_id, ...TOKEN_FIELDS, tokenKind: 'apns', tokenId: 'AAAAAAAAAAA=' });
    expect(store.clientDevices.get(device_id)).toMatchObject({ push_key_id: 2, token_kind: 'apns', token_id: 'AAAAAAAAAAA=' });
    await e2eeTestNotify(as('hamlet'), { deviceId: device_id });
    await e2eeTestNotify(as('hamlet'), {});
    expect((await caughtApiError(e2eeTestNotify(as('iago'), {}))).code).toBe('NO_ACTIVE_PUSH_DEVICE');
    expect((await caughtApiError(e2eeTestNotify(as('hamlet'), { deviceId: device_id + 1 }))).code).toBe('NO_ACTIVE_PUSH_DEVICE');
  });

  it('refuses partial fields, a bad key or token ID and another user\u2019s device, never echoing a secret', async () => {
    const { as } = setupPush();
    const { device_id } = await registerClientDevice(as('hamlet'));
    const cases = [
      [registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY }), 'Missing parameters: must provide either all push key fields, all token fields, or both.'],
      [registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: 'bm90LWEta2V5LXNlY3JldA==', pushKeyId: 1, ...TOKEN_FIELDS }), 'Invalid `push_key`'],
      [registerPushDevice(as('hamlet'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 1, ...TOKEN_FIELDS, tokenId: 'short' }), 'Invalid `token_id`'],
      [registerPushDevice(as('iago'), { deviceId: device_id, pushKey: PUSH_KEY, pushKeyId: 1, ...TOKEN_FIELDS }), 'Invalid `device_id`'],
    ] as const;
    for (const [call, message] of cases) {
      const e = await caughtApiError(call);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
      expect(JSON.stringify(e)).not.toMatch(/sealed-secret|bm90LWEta2V5LXNlY3JldA|BwcH/);
    }
  });

  it('sends a legacy test notification to a registered token only, and is 404 below each feature level', async () => {
    const { as } = setupPush();
    await addFcmToken(as('hamlet'), { token: FCM });
    await testNotify(as('hamlet'), { token: FCM });
    await testNotify(as('hamlet'), {});
    const e = await caughtApiError(testNotify(as('iago'), { token: FCM }));
    expect([e.code, e.message]).toEqual(['INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized']);
    const old = setupEmulator({ settings: { featureLevel: featureLevels.clientDevices - 1, pushNotificationService: true } });
    expect((await caughtApiError(registerClientDevice(old.as('hamlet')))).httpStatus).toBe(404);
    const older = setupEmulator({ settings: { featureLevel: featureLevels.testNotify - 1 } });
    expect((await caughtApiError(testNotify(older.as('hamlet'), {}))).httpStatus).toBe(404);
  });
});
