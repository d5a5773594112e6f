/**
 * Bindings for the organization's default channels, the channels new users are subscribed to
 * (Zulip's `default_streams`); both need an organization administrator. The list itself comes
 * with the register state (`realm_default_streams`) or `GET /streams?include_default=true`.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/channels.js';

/**
 * Makes a channel a default channel; a private one is refused ("Private channels cannot be made default.").
 * https://zulip.com/api/add-default-stream
 */
export const addDefaultStream = (connection: ZulipConnection, params: ops.AddDefaultStreamParams, call?: SendOptions): Promise<object> =>
  ops.addDefaultStream(connection, params, call);

/** https://zulip.com/api/remove-default-stream */
export const removeDefaultStream = (connection: ZulipConnection, params: ops.RemoveDefaultStreamParams, call?: SendOptions): Promise<object> =>
  ops.removeDefaultStream(connection, params, call);
