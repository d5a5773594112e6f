/**
 * Bindings for mobile push notification registration. The token endpoints are deprecated since
 * Zulip 11.0 (feature level 406) in favour of end-to-end encrypted push registration. A push
 * token identifies a device: callers keep it out of logs and error messages.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/mobile.js';
import { callOperation } from '../operation.js';

/** Registers an APNs (iOS) device token. Deprecated. https://zulip.com/api/add-apns-token */
export const addApnsToken = (connection: ZulipConnection, params: ops.AddApnsTokenParams, call?: SendOptions): Promise<object> =>
  callOperation(connection, ops.addApnsToken, params, call);

/** Removes an APNs device token. Deprecated. https://zulip.com/api/remove-apns-token */
export const removeApnsToken = (connection: ZulipConnection, params: ops.RemoveApnsTokenParams, call?: SendOptions): Promise<object> =>
  callOperation(connection, ops.removeApnsToken, params, call);

/** Registers an FCM (Android) registration token. Deprecated. https://zulip.com/api/add-fcm-token */
export const addFcmToken = (connection: ZulipConnection, params: ops.AddFcmTokenParams, call?: SendOptions): Promise<object> =>
  callOperation(connection, ops.addFcmToken, params, call);

/** Removes an FCM registration token. Deprecated. https://zulip.com/api/remove-fcm-token */
export const removeFcmToken = (connection: ZulipConnection, params: ops.RemoveFcmTokenParams, call?: SendOptions): Promise<object> =>
  callOperation(connection, ops.removeFcmToken, params, call);
