/**
 * Bindings for muting users (feature level 48), over the generated operation table. Both answer
 * with an empty success; the new list reaches clients as a `muted_users` event.
 * https://zulip.com/api/mute-user
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as mutedUsers from '../generated/muted-users.js';
import type { MuteUserParams, UnmuteUserParams } from '../generated/muted-users.js';

/**
 * Mutes a user for the caller. Fails with BAD_REQUEST "Cannot mute self", "No such user" (unknown
 * or inaccessible) or "User already muted".
 * https://zulip.com/api/mute-user
 */
export const muteUser = (c: ZulipConnection, p: MuteUserParams, call?: SendOptions): Promise<object> =>
  mutedUsers.muteUser(c, p, call);

/**
 * Unmutes a user. Fails with BAD_REQUEST "No such user" or "User is not muted".
 * https://zulip.com/api/unmute-user
 */
export const unmuteUser = (c: ZulipConnection, p: UnmuteUserParams, call?: SendOptions): Promise<object> =>
  mutedUsers.unmuteUser(c, p, call);
