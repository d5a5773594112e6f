/**
 * Presence: `POST /users/me/presence` (https://zulip.com/api/update-presence), `GET /realm/presence`
 * (https://zulip.com/api/get-presence), `GET /users/{user_id_or_email}/presence`
 * (https://zulip.com/api/get-user-presence), the `presence` event and the `presence` register state.
 *
 * The model is Zulip's (zerver/actions/presence.py, zerver/lib/presence.py): one record per user with
 * the last time it reported `active` and the last time it reported anything (`idle_timestamp`, the
 * last connection), and a realm-wide `last_update_id` sequence that lets clients fetch only changes.
 * Users who turned presence_enabled off are neither updated nor listed.
 */
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { PresenceRecord, Store, User } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's OFFLINE_THRESHOLD_SECS (also advertised as server_presence_offline_threshold_seconds). */
export const OFFLINE_THRESHOLD_SECS = 200;
/** PRESENCE_PING_INTERVAL_SECS. */
const PING_INTERVAL_SECS = 60;
/** PRESENCE_UPDATE_MIN_FREQ_SECONDS: reports closer together than this do not move the timestamps. */
const UPDATE_MIN_FREQ_SECS = 55;
/** PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS: how the legacy format decides active vs idle. */
const LEGACY_ACTIVE_OFFSET_SECS = 70;
/** A user whose last `active` is older than this and who reports `active` "came back online". */
const NEWLY_ONLINE_SECS = OFFLINE_THRESHOLD_SECS - PING_INTERVAL_SECS - 10;
const DEFAULT_HISTORY_DAYS = 14;

// ---- access --------------------------------------------------------------------------------------

/**
 * Whether `viewer` can access `target` (feature level 228): everyone in can_access_all_users_group
 * can; others (restricted guests) only themselves and the users they share a channel or a direct
 * message with.
 */
export function canAccessUser(store: Store, viewer: User, target: User): boolean {
  if (viewer.user_id === target.user_id) return true;
  if (store.userHasGroupSetting(viewer.user_id, store.realm.settings.can_access_all_users_group)) return true;
  for (const streamId of store.subscribedChannelIds(viewer.user_id)) {
    if (store.isSubscribed(target.user_id, streamId)) return true;
  }
  for (const m of store.messages.values()) {
    if (m.type === 'private' && m.dm_user_ids!.includes(viewer.user_id) && m.dm_user_ids!.includes(target.user_id)) return true;
  }
  return false;
}

/** Active users who can access `target`: the audience of events about that user. */
export function usersWhoCanAccess(store: Store, target: User): number[] {
  return [...store.users.values()].filter((u) => u.is_active && canAccessUser(store, u, target)).map((u) => u.user_id);
}

// ---- formats -------------------------------------------------------------------------------------

function presenceEnabled(user: User): boolean {
  return user.presence_enabled !== false && user.settings.presence_enabled !== false;
}

function modernEntry(record: PresenceRecord) {
  return { active_timestamp: record.active_timestamp, idle_timestamp: record.idle_timestamp };
}

/** Zulip's format_legacy_presence_dict. */
function legacyClientEntry(record: PresenceRecord) {
  const active = record.active_timestamp + LEGACY_ACTIVE_OFFSET_SECS >= record.idle_timestamp;
  return {
    client: 'website',
    status: active ? ('active' as const) : ('idle' as const),
    timestamp: active ? record.active_timestamp : record.idle_timestamp,
    pushable: false,
  };
}

function legacyEntry(record: PresenceRecord) {
  const website = legacyClientEntry(record);
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}

interface PresenceQuery {
  slim: boolean;
  /** Only records updated after this id (null: no filter). */
  lastUpdateId: number | null;
  historyLimitDays: number | null;
}

/**
 * The `presences` dict and the matching `presence_last_update_id`, as the requester may see them
 * (Zulip's get_presence_dict_by_realm).
 */
export function realmPresences(
  store: Store,
  requester: User,
  nowSeconds: number,
  query: PresenceQuery,
): { presences: Record<string, unknown>; lastUpdateId: number } {
  const since = nowSeconds - (query.historyLimitDays ?? DEFAULT_HISTORY_DAYS) * 86400;
  const presences: Record<string, unknown> = {};
  let newest: number | null = null;
  if (query.historyLimitDays !== 0) {
    for (const [userId, record] of store.presence) {
      const user = store.users.get(userId);
      if (!user || !user.is_active || user.is_bot || !presenceEnabled(user)) continue;
      if (query.lastUpdateId !== null && record.last_update_id <= query.lastUpdateId) continue;
      // Once the client holds data (last_update_id > 0), the history window no longer applies.
      if ((query.lastUpdateId === null || query.lastUpdateId <= 0) && record.idle_timestamp < since) continue;
      if (!canAccessUser(store, requester, user)) continue;
      if (query.slim) presences[String(userId)] = modernEntry(record);
      else presences[user.email] = legacyEntry(record);
      newest = Math.max(newest ?? record.last_update_id, record.last_update_id);
    }
  }
  return { presences, lastUpdateId: newest ?? query.lastUpdateId ?? -1 };
}

// ---- updates -------------------------------------------------------------------------------------

/**
 * Records a report (Zulip's do_update_user_presence) and, when the user is new or came back online,
 * sends the `presence` event to everyone who can access them.
 */
function recordPresence(ctx: RouteContext, user: User, status: 'active' | 'idle'): void {
  const { store } = ctx;
  const now = ctx.nowSeconds();
  const existing = store.presence.get(user.user_id);
  const sinceActive = existing ? now - existing.active_timestamp : Infinity;
  const becameOnline = status === 'active' && sinceActive > NEWLY_ONLINE_SECS;
  let record: PresenceRecord;
  let changed = false;
  if (!existing) {
    // Never reported `active`: Zulip keeps null and shows the date joined instead.
    const joined = Math.floor(Date.parse(user.date_joined) / 1000);
    record = { active_timestamp: status === 'active' ? now : joined, idle_timestamp: now, last_update_id: 0, clients: {} };
    store.presence.set(user.user_id, record);
    changed = true;
  } else {
    record = existing;
    if (now - record.idle_timestamp > UPDATE_MIN_FREQ_SECS) {
      record.idle_timestamp = now;
      changed = true;
    }
    if (status === 'active' && sinceActive > UPDATE_MIN_FREQ_SECS) {
      record.active_timestamp = now;
      if (now > record.idle_timestamp) record.idle_timestamp = now;
      changed = true;
    }
  }
  record.clients = { website: { status, timestamp: now } };
  if (changed) record.last_update_id = ++store.presenceLastUpdateId;
  if (!existing || becameOnline) {
    const serverTimestamp = ctx.clock.now() / 1000;
    const client = legacyClientEntry(record);
    ctx.events.notify(usersWhoCanAccess(store, user), (queue) => ({
      type: 'presence',
      user_id: user.user_id,
      ...(queue.options.slimPresence ? {} : { email: user.email }),
      server_timestamp: serverTimestamp,
      presence: { [client.client]: client },
    }));
  }
}

function requireHuman(user: User): void {
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

function updatePresence(ctx: RouteContext): Record<string, unknown> {
  const { params } = ctx;
  requireHuman(ctx.user);
  const status = params.str('status');
  const pingOnly = params.bool('ping_only', false);
  const lastUpdateId = params.optInt('last_update_id') ?? null;
  const historyLimitDays = params.optInt('history_limit_days') ?? null;
  // A last_update_id means the client speaks the modern protocol.
  const slim = params.bool('slim_presence', false) || lastUpdateId !== null;
  params.bool('new_user_input', false);
  if (status !== 'active' && status !== 'idle') throw badRequest(`Invalid status: ${status}`);
  if (presenceEnabled(ctx.user)) recordPresence(ctx, ctx.user, status);
  // A ping returns no presence data, but still its `presence_last_update_id`: the API spec
  // (https://zulip.com/api/update-presence) makes it -1 when no id was sent and no data returned,
  // and never less than the id sent. Anything else gets get_presence_response's three keys
  // (zerver/lib/presence.py); the zephyr_mirror_active flag of mirroring realms is gone from
  // current servers.
  if (pingOnly) return { presence_last_update_id: lastUpdateId ?? -1 };
  const result = realmPresences(ctx.store, ctx.user, ctx.nowSeconds(), { slim, lastUpdateId, historyLimitDays });
  return {
    presence_last_update_id: result.lastUpdateId,
    server_timestamp: ctx.clock.now() / 1000,
    presences: result.presences,
  };
}

function getRealmPresence(ctx: RouteContext): Record<string, unknown> {
  const { presences } = realmPresences(ctx.store, ctx.user, ctx.nowSeconds(), {
    slim: false,
    lastUpdateId: null,
    historyLimitDays: null,
  });
  return { server_timestamp: ctx.clock.now() / 1000, presences };
}

function getUserPresence(ctx: RouteContext): Record<string, unknown> {
  const { store } = ctx;
  const key = ctx.path.user_id_or_email ?? '';
  const target = /^\d+$/.test(key) ? store.users.get(Number(key)) : store.userByEmail(key);
  if (!target || !target.is_active) throw badRequest('No such user');
  if (target.bot_type !== null) throw badRequest('Presence is not supported for bot users.');
  if (!canAccessUser(store, ctx.user, target)) throw badRequest('Insufficient permission');
  const record = store.presence.get(target.user_id);
  if (!record || !presenceEnabled(target)) throw badRequest(`No presence data for ${key}`);
  const { website } = legacyEntry(record);
  const entry = { status: website.status, timestamp: website.timestamp };
  const offline = ctx.nowSeconds() - entry.timestamp > OFFLINE_THRESHOLD_SECS;
  return { presence: { website: entry, aggregated: { ...entry, status: offline ? 'offline' : entry.status } } };
}

/** The `presence` fetch type: presences in the queue's format, server_timestamp, presence_last_update_id. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  if (!ctx.wants('presence')) return {};
  const { presences, lastUpdateId } = realmPresences(ctx.store, ctx.user, ctx.nowSeconds(), {
    slim: ctx.options.slimPresence,
    lastUpdateId: null,
    historyLimitDays: null,
  });
  return { presences, server_timestamp: ctx.nowSeconds(), presence_last_update_id: lastUpdateId };
}

export const routes: Route[] = [
  { operation: ops.updatePresence, handler: updatePresence },
  { operation: ops.getPresence, handler: getRealmPresence },
  { operation: ops.getUserPresence, handler: getUserPresence },
];
