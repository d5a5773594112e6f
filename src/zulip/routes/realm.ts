/**
 * Bindings for organization-wide administration that has no resource of its own: the defaults of
 * new users' settings and a preview of the Welcome Bot's custom message. Both need an organization
 * administrator.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/realm.js';

/** Answer of `POST /realm/test_welcome_bot_custom_message`. */
export interface TestWelcomeBotCustomMessageResult {
  /** The direct message the Welcome Bot sent the caller. */
  message_id: number;
}

/** Sends the caller the Welcome Bot's custom message (feature level 416). https://zulip.com/api/test-welcome-bot-custom-message */
export const testWelcomeBotCustomMessage = (
  connection: ZulipConnection,
  params: ops.TestWelcomeBotCustomMessageParams,
  call?: SendOptions,
): Promise<TestWelcomeBotCustomMessageResult> => ops.testWelcomeBotCustomMessage(connection, params, call);

/** Answer of `PATCH /realm/user_settings_defaults`. */
export interface UpdateRealmUserSettingsDefaultsResult {
  /** Parameters the server did not apply (unknown to it). */
  ignored_parameters_unsupported?: string[];
}

/** Changes the defaults of new users' settings (feature level 96). https://zulip.com/api/update-realm-user-settings-defaults */
export const updateRealmUserSettingsDefaults = (
  connection: ZulipConnection,
  params: ops.UpdateRealmUserSettingsDefaultsParams,
  call?: SendOptions,
): Promise<UpdateRealmUserSettingsDefaultsResult> => ops.updateRealmUserSettingsDefaults(connection, params, call);
