/** Bindings for the caller's personal settings. Reading them goes through `registerQueue` (events.ts). */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as ops from '../generated/settings.js';

/**
 * Parameters of `PATCH /settings`, in camelCase; each is sent as its snake_case wire name only when
 * set. Every one is optional; the server reports the unchanged and unsupported ones in
 * `ignored_parameters_unsupported`.
 */
export type UpdateSettingsOptions = ops.UpdateSettingsParams;

/**
 * Changes the caller's settings (and name, email, password). Every value is validated before any is
 * applied.
 * https://zulip.com/api/update-settings
 */
export function updateSettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return ops.updateSettings(connection, options, call);
}

/**
 * Deprecated alias of {@link updateSettings} (before feature level 80: display settings).
 * https://zulip.com/api/update-settings
 */
export function updateDisplaySettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return ops.updateDisplaySettings(connection, options, call);
}

/**
 * Deprecated alias of {@link updateSettings} (before feature level 80: notification settings).
 * https://zulip.com/api/update-settings
 */
export function updateNotificationSettings(
  connection: ZulipConnection,
  options: UpdateSettingsOptions,
  call: SendOptions = {},
): Promise<SendResult<object>> {
  return ops.updateNotificationSettings(connection, options, call);
}
