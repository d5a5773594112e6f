/**
 * Wire types for presence (https://zulip.com/api/update-presence, https://zulip.com/api/get-presence,
 * https://zulip.com/api/get-user-presence), snake_case as sent.
 *
 * Presence comes in two formats. The modern one (slim_presence, or any request carrying
 * last_update_id) is keyed by user ID and holds two timestamps; the legacy one is keyed by API email
 * and holds an `aggregated` entry plus one entry per client (always `website` since feature level 178).
 */

/** What a client reports: the user interacted recently (`active`) or only has the app open (`idle`). */
export type PresenceStatus = 'active' | 'idle';

/** Modern entry, keyed by user ID (as text). */
export interface ModernPresence {
  /** UNIX seconds of the last report with status `active`. */
  active_timestamp: number;
  /** UNIX seconds of the last report of any status (the user was connected then). */
  idle_timestamp: number;
}

/** Legacy per-client entry. `pushable` is absent in the `aggregated` entry and always false since FL 178. */
interface LegacyClientPresence {
  client: string;
  status: PresenceStatus;
  timestamp: number;
  pushable?: boolean;
}

/** Legacy entry, keyed by API email: `aggregated` plus one key per client name. */
export type LegacyPresence = Record<string, LegacyClientPresence>;

/** `POST /users/me/presence` success body. */
export interface UpdatePresenceResult {
  /**
   * The newest presence update included (pass it as `last_update_id` next time); -1 when the
   * client sent no `last_update_id` and no data came back. Feature level 263.
   */
  presence_last_update_id?: number;
  /** Absent with ping_only. UNIX seconds with a fraction. */
  server_timestamp?: number;
  /** Absent with ping_only. Modern format (keyed by user ID) or legacy (keyed by API email). */
  presences?: Record<string, ModernPresence | LegacyPresence>;
  /** Legacy (mirroring realms only); clients ignore it. */
  zephyr_mirror_active?: boolean;
  /** The same legacy flag under the name https://zulip.com/api/get-presence uses; clients ignore it. */
  mirror_active?: boolean;
}

/** `GET /realm/presence` success body (always the legacy format). */
export interface GetPresenceResult {
  server_timestamp: number;
  presences: Record<string, LegacyPresence>;
}

/** One entry of `GET /users/{user_id_or_email}/presence`: the legacy entry without client and pushable. */
export interface UserPresenceEntry {
  /** `offline` only appears in `aggregated`, when the user was last seen beyond the offline threshold. */
  status: PresenceStatus | 'offline';
  timestamp: number;
}

/** `GET /users/{user_id_or_email}/presence` success body. */
export interface GetUserPresenceResult {
  /** Legacy: `aggregated` and `website`; with slim_presence (newer servers): the modern entry. */
  presence: Record<string, UserPresenceEntry> | ModernPresence;
}

/** Whether an entry of `presences` is in the modern format. */
export function isModernPresence(entry: ModernPresence | LegacyPresence): entry is ModernPresence {
  return typeof (entry as ModernPresence).active_timestamp === 'number';
}
