/** Bindings for presence: reporting the caller's own and reading everyone's. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type {
  GetPresenceResult,
  GetUserPresenceResult,
  PresenceStatus,
  UpdatePresenceResult,
} from '../model/presence.js';
import * as ops from '../generated/presence.js';

export interface UpdatePresenceOptions {
  /** What the caller is doing. */
  status: PresenceStatus;
  /** Report only; the response then carries no presence data. @default false (server side) */
  pingOnly?: boolean;
  /**
   * -1 on the first call, then the previous `presence_last_update_id`: only changes since then come
   * back, in the modern format. Feature level 263.
   * @default none (the whole recent history, format per slimPresence)
   */
  lastUpdateId?: number;
  /** How many days of history to return; ignored when lastUpdateId > 0. Feature level 288. @default 14 (server side) */
  historyLimitDays?: number;
  /** Deprecated: the modern format keyed by user ID. @default false (server side) */
  slimPresence?: boolean;
  /** Whether the user interacted since the last report (feeds activity statistics). @default false (server side) */
  newUserInput?: boolean;
}

/**
 * Reports the caller's presence and returns everyone's.
 * https://zulip.com/api/update-presence
 */
export function updatePresence(
  connection: ZulipConnection,
  options: UpdatePresenceOptions,
  call: SendOptions = {},
): Promise<UpdatePresenceResult> {
  return ops.updatePresence(connection, options, call);
}

/**
 * Presence of every user in the organization (legacy format, keyed by API email).
 * https://zulip.com/api/get-presence
 */
export function getPresence(connection: ZulipConnection, call: SendOptions = {}): Promise<GetPresenceResult> {
  return ops.getPresence(connection, {}, call);
}

export interface GetUserPresenceOptions {
  /** User ID (feature level 43) or API email. */
  userIdOrEmail: number | string;
  /**
   * Modern format. Zulip's get_presence_backend reads no parameter (it reports this one in
   * `ignored_parameters_unsupported`, as the emulator does). @default false
   */
  slimPresence?: boolean;
}

/**
 * Presence of one user.
 * https://zulip.com/api/get-user-presence
 */
export function getUserPresence(
  connection: ZulipConnection,
  options: GetUserPresenceOptions,
  call: SendOptions = {},
): Promise<GetUserPresenceResult> {
  return ops.getUserPresence(connection, { ...options, userIdOrEmail: String(options.userIdOrEmail) }, call);
}
