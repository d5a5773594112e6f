/** Bindings for server-wide settings. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/server-settings.js';
import type { ServerSettings } from '../model/server-settings.js';

/**
 * Global settings of the server and its organization; needs no credentials.
 * https://zulip.com/api/get-server-settings
 */
export function getServerSettings(connection: ZulipConnection, call: SendOptions = {}): Promise<ServerSettings> {
  return ops.getServerSettings(connection, {}, call);
}
