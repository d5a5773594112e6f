/**
 * Bindings for mobile push notification registration. The token endpoints are deprecated since
 * Zulip 11.0 (feature level 406) in favour of end-to-end encrypted push registration. A push
 * token identifies a device: callers keep it out of logs and error messages.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/mobile.js';

/** Registers an APNs (iOS) device token. Deprecated. https://zulip.com/api/add-apns-token */
export const addApnsToken = (connection: ZulipConnection, params: ops.AddApnsTokenParams, call?: SendOptions): Promise<object> =>
  ops.addApnsToken(connection, params, call);

/** Removes an APNs device token. Deprecated. https://zulip.com/api/remove-apns-token */
export const removeApnsToken = (connection: ZulipConnection, params: ops.RemoveApnsTokenParams, call?: SendOptions): Promise<object> =>
  ops.removeApnsToken(connection, params, call);

/** Registers an FCM (Android) registration token. Deprecated. https://zulip.com/api/add-fcm-token */
export const addFcmToken = (connection: ZulipConnection, params: ops.AddFcmTokenParams, call?: SendOptions): Promise<object> =>
  ops.addFcmToken(connection, params, call);

/** Removes an FCM registration token. Deprecated. https://zulip.com/api/remove-fcm-token */
export const removeFcmToken = (connection: ZulipConnection, params: ops.RemoveFcmTokenParams, call?: SendOptions): Promise<object> =>
  ops.removeFcmToken(connection, params, call);

// End-to-end encrypted push. The push key and the encrypted
// registration are secrets of the device, like the tokens above.

/** Answer of `POST /register_client_device`. */
export interface RegisterClientDeviceResult {
  /** The ID of the newly registered device. */
  device_id: number;
}

/** Registers the logged-in device (feature level 468). https://zulip.com/api/register-client-device */
export const registerClientDevice = (connection: ZulipConnection, call?: SendOptions): Promise<RegisterClientDeviceResult> =>
  ops.registerClientDevice(connection, {}, call);

/** Removes a device registered with registerClientDevice (feature level 470). https://zulip.com/api/remove-client-device */
export const removeClientDevice = (connection: ZulipConnection, params: ops.RemoveClientDeviceParams, call?: SendOptions): Promise<object> =>
  ops.removeClientDevice(connection, params, call);

/** Registers a device for E2EE push, or rotates its key or token (feature level 406). https://zulip.com/api/register-push-device */
export const registerPushDevice = (connection: ZulipConnection, params: ops.RegisterPushDeviceParams, call?: SendOptions): Promise<object> =>
  ops.registerPushDevice(connection, params, call);

/** Sends an E2EE test notification to one or all of the user's devices (feature level 420). https://zulip.com/api/e2ee-test-notify */
export const e2eeTestNotify = (connection: ZulipConnection, params: ops.E2eeTestNotifyParams, call?: SendOptions): Promise<object> =>
  ops.e2eeTestNotify(connection, params, call);

/** Sends a test notification to one or all legacy-registered devices (feature level 217). Deprecated. https://zulip.com/api/test-notify */
export const testNotify = (connection: ZulipConnection, params: ops.TestNotifyParams, call?: SendOptions): Promise<object> =>
  ops.testNotify(connection, params, call);
