/**
 * Mobile push registration: the deprecated token mutations `addApnsToken`, `removeApnsToken`,
 * `addFcmToken` and `removeFcmToken` (https://zulip.com/api/add-apns-token and the pages beside
 * it), kept for servers before end-to-end encrypted push (Zulip 11.0, feature level 406). A push
 * token identifies a device: the gateway never puts one in an error message or a log line.
 *
 * Client devices and end-to-end encrypted push: `registerClientDevice`, `removeClientDevice`,
 * `registerPushDevice`, `sendE2eeTestPushNotification` and the deprecated
 * `sendTestPushNotification` (https://zulip.com/api/register-client-device and neighbours). The
 * push key and the encrypted registration are secrets of the device, kept out of errors and logs
 * like the tokens.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
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
} from '../../zulip/routes/mobile.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';

/** Zulip's limit on a token's length. */
const MAX_TOKEN_LENGTH = 4096;

const DEPRECATED = 'Zulip deprecated token registration in 11.0 (feature level 406) for end-to-end encrypted push registration.';

/** Refuses an empty or over-long token, or an APNs token that is not hex, before any call (without echoing it). */
function checkToken(field: string, token: string, apns: boolean): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw badInput(`${field}: \`token\` must be 1 to ${MAX_TOKEN_LENGTH} characters.`, { argument: 'token' });
  if (apns && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) throw badInput(`${field}: \`token\` must be an APNs token in hex.`, { argument: 'token' });
}

const tokenArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], what: string) =>
  t.arg.string({ required: true, description: `The ${what} token the device got from its push service (a secret of the device).` });

builder.mutationFields((t) => ({
  addApnsToken: t.boolean({
    extensions: reaches('add-apns-token'),
    deprecationReason: DEPRECATED,
    description: 'Registers the caller\u2019s iOS device for push notifications (always true). Server refusals are BAD_REQUEST ("Invalid app ID").',
    args: {
      token: tokenArg(t, 'APNs'),
      appId: t.arg.string({ required: true, description: 'The ID of the Zulip app asking (e.g. `org.zulip.Zulip`).' }),
    },
    resolve: async (_root, args, ctx) => {
      checkToken('addApnsToken', args.token, true);
      if (args.appId.trim() === '') throw badInput('addApnsToken: `appId` must not be blank.', { argument: 'appId' });
      await addApnsToken(ctx.connection, { token: args.token, appid: args.appId });
      return true;
    },
  }),
  removeApnsToken: t.boolean({
    extensions: reaches('remove-apns-token'),
    deprecationReason: DEPRECATED,
    description: 'Stops push notifications to an iOS device (always true). An unknown token fails with BAD_REQUEST ("Token does not exist").',
    args: { token: tokenArg(t, 'APNs') },
    resolve: async (_root, args, ctx) => {
      checkToken('removeApnsToken', args.token, true);
      await removeApnsToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
  addFcmToken: t.boolean({
    extensions: reaches('add-fcm-token'),
    deprecationReason: DEPRECATED,
    description: 'Registers the caller\u2019s Android device for push notifications (always true).',
    args: { token: tokenArg(t, 'FCM registration') },
    resolve: async (_root, args, ctx) => {
      checkToken('addFcmToken', args.token, false);
      await addFcmToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
  removeFcmToken: t.boolean({
    extensions: reaches('remove-fcm-token'),
    deprecationReason: DEPRECATED,
    description: 'Stops push notifications to an Android device (always true). An unknown token fails with BAD_REQUEST ("Token does not exist").',
    args: { token: tokenArg(t, 'FCM registration') },
    resolve: async (_root, args, ctx) => {
      checkToken('removeFcmToken', args.token, false);
      await removeFcmToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
}));

/**
 * A logged-in device. Not a `Node`: Zulip has no endpoint that reads a device back, so a global
 * id could not be loaded again.
 */
const ClientDeviceRef = builder.objectRef<{ device_id: number }>('ClientDevice').implement({
  description: 'A logged-in (mobile) device, as registered for end-to-end encrypted push notifications. https://zulip.com/api/register-client-device',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The device ID (Zulip\u2019s own ID, as its REST API gives it).', resolve: (d) => d.device_id }),
  }),
});

const PushTokenKindEnum = builder.enumType('PushTokenKind', {
  description: 'The service that issued a device\u2019s push token.',
  values: {
    FCM: { value: 'fcm', description: 'Firebase Cloud Messaging (Android).' },
    APNS: { value: 'apns', description: 'Apple Push Notification service (iOS).' },
  } as const,
});

const UINT32_MAX = 0xffff_ffff;

interface PushDeviceArgs {
  pushKey?: string | null;
  pushKeyId?: number | null;
  tokenKind?: 'fcm' | 'apns' | null;
  tokenId?: string | null;
  bouncerPublicKey?: string | null;
  encryptedPushRegistration?: string | null;
}

/** Zulip takes all the key fields, all the token fields, or both: anything else is refused here (naming no value). */
function checkPushDeviceArgs(args: PushDeviceArgs): void {
  const key = [args.pushKey, args.pushKeyId];
  const token = [args.tokenKind, args.tokenId, args.bouncerPublicKey, args.encryptedPushRegistration];
  const complete = (group: unknown[]) => group.every((v) => v != null);
  const partial = (group: unknown[]) => group.some((v) => v != null) && !complete(group);
  if (partial(key) || partial(token) || !(complete(key) || complete(token))) {
    throw badInput('registerPushDevice: give all of `pushKey` and `pushKeyId`, all of `tokenKind`, `tokenId`, `bouncerPublicKey` and `encryptedPushRegistration`, or both groups.');
  }
  if (args.pushKeyId != null && (args.pushKeyId < 0 || args.pushKeyId > UINT32_MAX)) {
    throw badInput('registerPushDevice: `pushKeyId` must be an unsigned 32-bit integer.', { argument: 'pushKeyId' });
  }
}

builder.mutationFields((t) => ({
  registerClientDevice: t.field({
    extensions: reaches('register-client-device'),
    type: ClientDeviceRef,
    description: 'Registers the logged-in device, the first step before registering it for end-to-end encrypted push. Feature level 468.',
    resolve: async (_root, _args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.clientDevices, 'Registering a client device');
      return registerClientDevice(ctx.connection);
    },
  }),
  removeClientDevice: t.field({
    extensions: reaches('remove-client-device'),
    type: ClientDeviceRef,
    description: 'Removes a device of the caller\u2019s (when the user logs out on it) and answers it. Another user\u2019s or an unknown device fails with BAD_REQUEST. Feature level 470.',
    args: { deviceId: t.arg({ type: 'Long', required: true, description: 'The device, as registerClientDevice answered it.' }) },
    resolve: async (_root, args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.removeClientDevice, 'Removing a client device');
      await removeClientDevice(ctx.connection, { deviceId: args.deviceId });
      return { device_id: args.deviceId };
    },
  }),
  registerPushDevice: t.field({
    extensions: reaches('register-push-device'),
    type: ClientDeviceRef,
    description:
      'Registers a device for end-to-end encrypted push notifications (the push key and the token fields), or rotates its ' +
      'push key (only the key fields) or its token (only the token fields); the server completes the registration with ' +
      'the push notification service in the background. A server without that service fails with ' +
      'PUSH_SERVICE_NOT_CONFIGURED. Feature level 468 (the endpoint\u2019s current form; 406 had other parameters).',
    args: {
      deviceId: t.arg({ type: 'Long', required: true, description: 'The device, as registerClientDevice answered it.' }),
      pushKey: t.arg.string({ required: false, description: 'The key the server encrypts notifications with, in base64: a cryptosystem byte and the key (a secret of the device).' }),
      pushKeyId: t.arg({ type: 'Long', required: false, description: 'The client\u2019s unsigned 32-bit ID for `pushKey`, sent along with each notification.' }),
      tokenKind: t.arg({ type: PushTokenKindEnum, required: false, description: 'Which service issued the device\u2019s token.' }),
      tokenId: t.arg.string({ required: false, description: 'The base64 of the first 8 bytes of the token\u2019s SHA-256.' }),
      bouncerPublicKey: t.arg.string({ required: false, description: 'Which of the push service\u2019s public keys encrypted the registration, in base64.' }),
      encryptedPushRegistration: t.arg.string({ required: false, description: 'The registration (token, kind, timestamp, iOS app ID) encrypted for the push service, in base64 (a secret of the device).' }),
    },
    resolve: async (_root, args, ctx) => {
      checkPushDeviceArgs(args);
      await requireFeatureLevel(ctx, featureLevels.clientDevices, 'Registering an end-to-end encrypted push device');
      await registerPushDevice(ctx.connection, {
        deviceId: args.deviceId,
        pushKey: args.pushKey ?? undefined,
        pushKeyId: args.pushKeyId ?? undefined,
        tokenKind: args.tokenKind ?? undefined,
        tokenId: args.tokenId ?? undefined,
        bouncerPublicKey: args.bouncerPublicKey ?? undefined,
        encryptedPushRegistration: args.encryptedPushRegistration ?? undefined,
      });
      return { device_id: args.deviceId };
    },
  }),
  sendE2eeTestPushNotification: t.boolean({
    extensions: reaches('e2ee-test-notify'),
    description:
      'Sends an end-to-end encrypted test notification to one of the caller\u2019s devices, or to all of them (always true). ' +
      'No registered device fails with NO_ACTIVE_PUSH_DEVICE. Feature level 420 (`deviceId`: 468).',
    args: { deviceId: t.arg({ type: 'Long', required: false, description: 'The device to notify (a client should give its own); all of them when omitted.' }) },
    resolve: async (_root, args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.e2eeTestNotify, 'End-to-end encrypted test notifications');
      if (args.deviceId != null) await requireFeatureLevel(ctx, featureLevels.clientDevices, 'A test notification to one device');
      await e2eeTestNotify(ctx.connection, { deviceId: args.deviceId ?? undefined });
      return true;
    },
  }),
  sendTestPushNotification: t.boolean({
    extensions: reaches('test-notify'),
    deprecationReason: 'Zulip deprecated it in 11.0 (feature level 420): use `sendE2eeTestPushNotification`.',
    description:
      'Sends a test notification to the device registered with a (legacy) token, or to all of them (always true). An ' +
      'unknown token fails with INVALID_PUSH_DEVICE_TOKEN. Feature level 217.',
    args: { token: t.arg.string({ required: false, description: 'The device\u2019s push token (a secret of the device); all devices when omitted.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.token != null) checkToken('sendTestPushNotification', args.token, false);
      await requireFeatureLevel(ctx, featureLevels.testNotify, 'Test notifications');
      await testNotify(ctx.connection, { token: args.token ?? undefined });
      return true;
    },
  }),
}));
