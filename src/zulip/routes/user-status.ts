/**
 * Bindings for user status (https://zulip.com/api/update-status and neighbours), over the
 * generated operation table.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as userStatus from '../generated/user-status.js';
import type { GetUserStatusParams, UpdateStatusForUserParams, UpdateStatusParams } from '../generated/user-status.js';
import type { GetUserStatusResult } from '../model/user-status.js';

/**
 * A user's status; `{}` when none is set. An unknown user fails with BAD_REQUEST "No such user".
 * New in feature level 262.
 * https://zulip.com/api/get-user-status
 */
export const getUserStatus = (c: ZulipConnection, p: GetUserStatusParams, call?: SendOptions): Promise<GetUserStatusResult> =>
  userStatus.getUserStatus(c, p, call);

/**
 * Changes the caller's status: at least one of the values; `statusText` at most 60 characters;
 * an empty `emojiName` clears the emoji.
 * https://zulip.com/api/update-status
 */
export const updateStatus = (c: ZulipConnection, p: UpdateStatusParams, call?: SendOptions): Promise<object> =>
  userStatus.updateStatus(c, p, call);

/**
 * Changes another user's status (administrators; feature level 407, administrator bots from 473),
 * with the same rules as {@link updateStatus}. https://zulip.com/api/update-status-for-user
 */
export const updateStatusForUser = (c: ZulipConnection, p: UpdateStatusForUserParams, call?: SendOptions): Promise<object> =>
  userStatus.updateStatusForUser(c, p, call);
