/**
 * The deprecated push token mutations end to end: GraphQL → gateway → REST → emulator. One
 * upstream call each, marked deprecated in the schema, Zulip's errors with their codes, bad input
 * refused before any call, and the token never in an error. Client devices and E2EE push: one
 * call each, Zulip's codes kept, incomplete input refused before any call, the feature-level gates.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { setupHarness } from '../../helpers/harness.js';

const HAMLET = { as: demoUser('hamlet').email };

function harness() {
  const h = setupHarness();
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  const tokens = () => [...(h.emulator.store.pushTokens.get(h.userId('hamlet'))?.values() ?? [])];
  return { h, calls, tokens };
}

describe('push token mutations (deprecated)', () => {
  it('adds and removes tokens in one call each', async () => {
    const { h, calls, tokens } = harness();
    const add = await h.gql('mutation { addApnsToken(token: "c0ffee", appId: "org.zulip.Zulip") addFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(add.errors).toBeUndefined();
    expect(add.data).toEqual({ addApnsToken: true, addFcmToken: true });
    expect(tokens()).toEqual([
      { kind: 'apns', token: 'c0ffee', appid: 'org.zulip.Zulip' },
      { kind: 'fcm', token: 'fcm-secret' },
    ]);
    expect(calls().sort()).toEqual(['POST users/me/android_gcm_reg_id', 'POST users/me/apns_device_token']);
    h.resetUpstreamRequests();
    const remove = await h.gql('mutation { removeApnsToken(token: "c0ffee") removeFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(remove.data).toEqual({ removeApnsToken: true, removeFcmToken: true });
    expect(tokens()).toEqual([]);
    expect(calls().sort()).toEqual(['DELETE users/me/android_gcm_reg_id', 'DELETE users/me/apns_device_token']);
  });

  it('maps "Token does not exist" to BAD_REQUEST without the token, and refuses bad input before any call', async () => {
    const { h, calls } = harness();
    const { errors } = await h.gql('mutation { removeFcmToken(token: "fcm-secret") }', {}, HAMLET);
    expect(errors?.[0]).toMatchObject({ message: 'Token does not exist', extensions: { code: 'BAD_REQUEST', route: 'remove-fcm-token' } });
    expect(JSON.stringify(errors)).not.toContain('fcm-secret');
    h.resetUpstreamRequests();
    for (const mutation of ['addFcmToken(token: "")', 'addApnsToken(token: "secret-not-hex", appId: "org.zulip.Zulip")', 'addApnsToken(token: "c0ffee", appId: " ")']) {
      const bad = await h.gql(`mutation { ${mutation} }`, {}, HAMLET);
      expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(bad.errors)).not.toContain('secret-not-hex');
    }
    expect(calls()).toEqual([]);
  });

  it('marks the fields deprecated in the schema', async () => {
    const { h } = harness();
    const { data } = await h.gql<{ __type: { fields: { name: string; isDeprecated: boolean }[] } }>(
      '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated } } }',
      {},
      HAMLET,
    );
    const deprecated = data!.__type.fields.filter((f) => /Token$/.test(f.name) && f.isDeprecated).map((f) => f.name).sort();
    expect(deprecated).toEqual(['addApnsToken', 'addFcmToken', 'removeApnsToken', 'removeFcmToken']);
  });
});

const PUSH_KEY = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 9)]).toString('base64');
const REGISTER = `mutation ($d: Long!, $k: String) {
  registerPushDevice(deviceId: $d, pushKey: $k, pushKeyId: 7, tokenKind: FCM, tokenId: "hGsEWGmyyfI=", bouncerPublicKey: "bpk", encryptedPushRegistration: "sealed-secret") { zulipId }
}`;

function pushHarness(featureLevel: number = featureLevels.removeClientDevice, pushNotificationService = true) {
  const h = setupHarness({ emulatorSettings: { featureLevel, pushNotificationService } });
  return { h, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

describe('client devices and end-to-end encrypted push', () => {
  it('registers a device, its push registration, notifies it and removes it, one upstream call each', async () => {
    const { h, calls } = pushHarness();
    const device = await h.gql<{ registerClientDevice: { zulipId: number } }>('mutation { registerClientDevice { zulipId } }', {}, HAMLET);
    expect(device.errors).toBeUndefined();
    const deviceId = device.data!.registerClientDevice.zulipId;
    expect(calls()).toEqual(['GET server_settings', 'POST register_client_device']);
    h.resetUpstreamRequests();
    const registered = await h.gql(REGISTER, { d: deviceId, k: PUSH_KEY }, HAMLET);
    expect(registered).toMatchObject({ data: { registerPushDevice: { zulipId: deviceId } } });
    expect(h.emulator.store.clientDevices.get(deviceId)).toMatchObject({ push_key: PUSH_KEY, push_key_id: 7, token_kind: 'fcm' });
    const notified = await h.gql('mutation ($d: Long) { sendE2eeTestPushNotification(deviceId: $d) }', { d: deviceId }, HAMLET);
    expect(notified.data).toEqual({ sendE2eeTestPushNotification: true });
    const removed = await h.gql('mutation ($d: Long!) { removeClientDevice(deviceId: $d) { zulipId } }', { d: deviceId }, HAMLET);
    expect(removed.data).toEqual({ removeClientDevice: { zulipId: deviceId } });
    expect(h.emulator.store.clientDevices.has(deviceId)).toBe(false);
    expect(calls()).toEqual(['POST mobile_push/register', 'POST mobile_push/e2ee/test_notification', 'POST remove_client_device']);
  });

  it('keeps Zulip\u2019s codes (PUSH_SERVICE_NOT_CONFIGURED, NO_ACTIVE_PUSH_DEVICE, BAD_REQUEST) without a secret in them', async () => {
    const { h } = pushHarness(featureLevels.removeClientDevice, false);
    const deviceId = (await h.gql<{ registerClientDevice: { zulipId: number } }>('mutation { registerClientDevice { zulipId } }', {}, HAMLET)).data!.registerClientDevice.zulipId;
    const refused = await h.gql(REGISTER, { d: deviceId, k: PUSH_KEY }, HAMLET);
    expect(refused.errors?.[0]).toMatchObject({
      message: 'Server is not configured to use push notification service.',
      extensions: { code: 'PUSH_SERVICE_NOT_CONFIGURED', route: 'register-push-device' },
    });
    expect(JSON.stringify(refused)).not.toMatch(/sealed-secret|CQkJ/);
    const none = await h.gql('mutation { sendE2eeTestPushNotification }', {}, HAMLET);
    expect(none.errors?.[0]).toMatchObject({ message: 'No active registered push device', extensions: { code: 'NO_ACTIVE_PUSH_DEVICE' } });
    const foreign = await h.gql('mutation ($d: Long!) { removeClientDevice(deviceId: $d) { zulipId } }', { d: deviceId }, { as: demoUser('iago').email });
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', route: 'remove-client-device' });
  });

  it('refuses incomplete field groups and a push key ID beyond 32 bits before any call', async () => {
    const { h, calls } = pushHarness();
    await h.gql('{ serverSettings { realmName } }', {}, HAMLET);
    h.resetUpstreamRequests();
    for (const args of ['pushKey: "k"', 'pushKey: "k", pushKeyId: 1, tokenKind: FCM', 'tokenId: "t"', '', 'pushKey: "k", pushKeyId: 4294967296']) {
      const { errors } = await h.gql(`mutation { registerPushDevice(deviceId: 1${args ? `, ${args}` : ''}) { zulipId } }`, {}, HAMLET);
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(calls()).toEqual([]);
  });

  it('sends a legacy test notification (deprecated for sendE2eeTestPushNotification), INVALID_PUSH_DEVICE_TOKEN for an unknown token', async () => {
    const { h, calls } = pushHarness();
    await h.gql('mutation { addFcmToken(token: "fcm-secret") }', {}, HAMLET);
    h.resetUpstreamRequests();
    const sent = await h.gql('mutation { mine: sendTestPushNotification(token: "fcm-secret") all: sendTestPushNotification }', {}, HAMLET);
    expect(sent).toMatchObject({ data: { mine: true, all: true } });
    // The feature level is read once (addFcmToken needs none).
    expect(calls()).toEqual(['GET server_settings', 'POST mobile_push/test_notification', 'POST mobile_push/test_notification']);
    const unknown = await h.gql('mutation { sendTestPushNotification(token: "other-secret") }', {}, HAMLET);
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Device not recognized', extensions: { code: 'INVALID_PUSH_DEVICE_TOKEN' } });
    expect(JSON.stringify(unknown)).not.toContain('other-secret');
    const { data } = await h.gql<{ __type: { fields: { name: string; deprecationReason: string | null }[] } }>(
      '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name deprecationReason } } }',
      {},
      HAMLET,
    );
    expect(data!.__type.fields.find((f) => f.name === 'sendTestPushNotification')?.deprecationReason).toMatch(/sendE2eeTestPushNotification/);
  });

  it('answers UNSUPPORTED_BY_SERVER below each field\u2019s feature level, before calling its endpoint', async () => {
    const cases: [string, number, number][] = [
      ['mutation { registerClientDevice { zulipId } }', featureLevels.clientDevices, featureLevels.clientDevices - 1],
      ['mutation { removeClientDevice(deviceId: 1) { zulipId } }', featureLevels.removeClientDevice, featureLevels.removeClientDevice - 1],
      [`mutation { registerPushDevice(deviceId: 1, pushKey: "${PUSH_KEY}", pushKeyId: 1) { zulipId } }`, featureLevels.clientDevices, featureLevels.clientDevices - 1],
      ['mutation { sendE2eeTestPushNotification }', featureLevels.e2eeTestNotify, featureLevels.e2eeTestNotify - 1],
      ['mutation { sendE2eeTestPushNotification(deviceId: 1) }', featureLevels.clientDevices, featureLevels.clientDevices - 1],
      ['mutation { sendTestPushNotification }', featureLevels.testNotify, featureLevels.testNotify - 1],
    ];
    for (const [query, required, level] of cases) {
      const { h, calls } = pushHarness(level);
      const { errors } = await h.gql(query, {}, HAMLET);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: required, featureLevel: level });
      expect(calls()).toEqual(['GET server_settings']);
    }
  });
});
