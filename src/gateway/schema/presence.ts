/**
 * Presence: the `Presence` type, the `presences` / `presence(userId)` queries and the
 * `reportPresence` mutation. https://zulip.com/api/update-presence, https://zulip.com/api/get-presence
 * Also the per-client (legacy) format as Zulip's read endpoints give it: `realmPresence`
 * (https://zulip.com/api/get-presence) and `userPresence` (https://zulip.com/api/get-user-presence).
 *
 * Everything uses the modern format (active and idle timestamps per user ID). Reading it without
 * reporting the caller's own presence is only possible through the `presence` initial state of
 * `POST /register`, read with {@link fetchInitialState} (register, then delete the queue).
 * `status` is derived like Zulip's clients do, with the server's offline threshold
 * (`server_presence_offline_threshold_seconds` of the register `realm` state), fetched once per
 * gateway (kept on its `UpstreamServer`) and only when a `status` field is asked for.
 */
import type { ModernPresence, LegacyPresence, PresenceStatus } from '../../zulip/model/presence.js';
import { isModernPresence } from '../../zulip/model/presence.js';
import { getPresence, getUserPresence, updatePresence } from '../../zulip/routes/presence.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { memoKey } from '../loaders/index.js';
import { fetchInitialState } from './settings.js';
import { UserRef } from './users.js';
import { reaches } from '../zulip-operations.js';

/** The documented fallback for servers that do not send the threshold (before feature level 164). */
const DEFAULT_OFFLINE_THRESHOLD_SECONDS = 140;

/** One user's presence as the server sent it, with the server time it is relative to. */
interface PresenceEntry {
  user_id: number;
  active_timestamp: number;
  idle_timestamp: number;
  server_timestamp: number;
}

/**
 * Wire entries → presence entries. The gateway always asks for the modern format (slim_presence),
 * which every supported server honours; a legacy entry (keyed by email) is skipped.
 */
function toEntries(presences: Record<string, ModernPresence | LegacyPresence> | undefined, serverTimestamp: number): PresenceEntry[] {
  const entries: PresenceEntry[] = [];
  for (const [key, value] of Object.entries(presences ?? {})) {
    if (!isModernPresence(value) || !/^\d+$/.test(key)) continue;
    entries.push({ user_id: Number(key), active_timestamp: value.active_timestamp, idle_timestamp: value.idle_timestamp, server_timestamp: serverTimestamp });
  }
  return entries.sort((a, b) => a.user_id - b.user_id);
}

// ---- the offline threshold ---------------------------------------------------------------------------

// Once per gateway: a server-wide setting, the same for every caller (though fetched with the
// first caller's credentials, as `POST /register` needs some). A failure is dropped so that the
// next request retries.
function offlineThreshold(ctx: Context): Promise<number> {
  return ctx.server.presenceOfflineThreshold.get(() =>
    fetchInitialState(ctx, { fetchEventTypes: ['realm'] }).then(
      (state) => state.server_presence_offline_threshold_seconds ?? DEFAULT_OFFLINE_THRESHOLD_SECONDS,
    ),
  );
}

// ---- types -------------------------------------------------------------------------------------------

export const PresenceStatusEnum = builder.enumType('PresenceStatus', {
  description: 'What a client reports about its user.',
  values: {
    ACTIVE: { value: 'active', description: 'The user interacted with the app recently.' },
    IDLE: { value: 'idle', description: 'The app is open but the user has not interacted with it recently.' },
  } as const,
});

const PresenceStateEnum = builder.enumType('PresenceState', {
  description: 'Whether a user is online, derived from their presence timestamps and the server\u2019s offline threshold.',
  values: {
    ACTIVE: { description: 'Reported active within the offline threshold.' },
    IDLE: { description: 'Connected within the offline threshold, but not active.' },
    OFFLINE: { description: 'Not heard from within the offline threshold.' },
  } as const,
});

const PresenceRef = builder.objectRef<PresenceEntry>('Presence');

PresenceRef.implement({
  description: 'A user\u2019s presence: when they were last active and last connected. https://zulip.com/api/get-presence',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user ID.', resolve: (p) => p.user_id }),
    user: t.field({ type: UserRef, description: 'The user.', resolve: (p, _args, ctx) => ctx.loaders.user(p.user_id) }),
    activeTimestamp: t.field({
      type: 'Long',
      description: 'When the user was last active, in UNIX seconds (the date joined if never).',
      resolve: (p) => p.active_timestamp,
    }),
    idleTimestamp: t.field({
      type: 'Long',
      description: 'When the user was last connected (active or idle), in UNIX seconds.',
      resolve: (p) => p.idle_timestamp,
    }),
    status: t.field({
      type: PresenceStateEnum,
      description:
        'ACTIVE, IDLE or OFFLINE at the server time of the answer, using the server\u2019s offline threshold ' +
        '(the first time per server this costs two upstream requests).',
      resolve: async (p, _args, ctx) => {
        const threshold = await offlineThreshold(ctx);
        if (p.server_timestamp - p.active_timestamp < threshold) return 'ACTIVE' as const;
        if (p.server_timestamp - p.idle_timestamp < threshold) return 'IDLE' as const;
        return 'OFFLINE' as const;
      },
    }),
  }),
});

// ---- queries -----------------------------------------------------------------------------------------

const everyonesPresence = memoKey<PresenceEntry[]>('presences');

/** Everyone's presence, from the register state, once per request. */
function loadPresences(ctx: Context): Promise<PresenceEntry[]> {
  return ctx.loaders.memo.get(everyonesPresence, () =>
    fetchInitialState(ctx, { fetchEventTypes: ['presence'], slimPresence: true }).then((state) =>
      toEntries(state.presences, state.server_timestamp ?? Date.now() / 1000),
    ),
  );
}

builder.queryField('presences', (t) =>
  t.field({
    extensions: reaches('register-queue'),
    type: [PresenceRef],
    nullable: true,
    description:
      'Presence of every user seen in the last two weeks whom the caller can access and who shares their ' +
      'presence, in user ID order. Does not report the caller\u2019s own presence (see reportPresence).',
    resolve: (_root, _args, ctx) => loadPresences(ctx),
  }),
);

builder.queryField('presence', (t) =>
  t.field({
    extensions: reaches('register-queue'),
    type: PresenceRef,
    nullable: true,
    description: 'One user\u2019s presence; null when the server has no recent presence for them.',
    args: { userId: t.arg({ type: 'Long', required: true, description: 'The user ID.' }) },
    resolve: async (_root, args, ctx) => (await loadPresences(ctx)).find((p) => p.user_id === args.userId) ?? null,
  }),
);

// ---- reportPresence ----------------------------------------------------------------------------------

/** The answer to a presence report (always the modern format). */
interface PresenceReport {
  presence_last_update_id: number | null;
  server_timestamp: number | null;
  presences: PresenceEntry[];
}

const PresenceReportRef = builder.objectRef<PresenceReport>('PresenceReport').implement({
  description: 'What the server answers to a presence report.',
  fields: (t) => ({
    presenceLastUpdateId: t.field({
      type: 'Long',
      nullable: true,
      description:
        'Pass it as lastUpdateId next time to get only what changed; -1 when no lastUpdateId was sent and no ' +
        'data came back (a ping included); null from servers that leave it out (before feature level 263).',
      resolve: (r) => r.presence_last_update_id,
    }),
    serverTimestamp: t.float({
      nullable: true,
      description: 'Server time of the answer, in UNIX seconds; null with pingOnly.',
      resolve: (r) => r.server_timestamp,
    }),
    presences: t.field({
      type: [PresenceRef],
      description: 'Presence of the users seen (or, with lastUpdateId, changed) in the window; empty with pingOnly.',
      resolve: (r) => r.presences,
    }),
  }),
});

builder.mutationField('reportPresence', (t) =>
  t.field({
    extensions: reaches('update-presence'),
    type: PresenceReportRef,
    description:
      'Reports the caller\u2019s presence (clients do so about once a minute) and returns everyone\u2019s. ' +
      `lastUpdateId needs feature level ${featureLevels.presenceLastUpdateId} (UNSUPPORTED_BY_SERVER below).`,
    args: {
      status: t.arg({ type: PresenceStatusEnum, required: true, description: 'What the caller is doing.' }),
      pingOnly: t.arg.boolean({ required: false, description: 'Report only; return no presence data.' }),
      lastUpdateId: t.arg({
        type: 'Long',
        required: false,
        description: '-1 the first time, then the previous presenceLastUpdateId: only changes come back.',
      }),
      historyLimitDays: t.arg.int({
        required: false,
        description: 'Days of history to return (server default 14); ignored when lastUpdateId > 0.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.lastUpdateId != null) {
        await requireFeatureLevel(ctx, featureLevels.presenceLastUpdateId, 'Incremental presence (lastUpdateId)');
      }
      const result = await updatePresence(ctx.connection, {
        status: args.status as PresenceStatus,
        slimPresence: true,
        ...(args.pingOnly != null && { pingOnly: args.pingOnly }),
        ...(args.lastUpdateId != null && { lastUpdateId: args.lastUpdateId }),
        ...(args.historyLimitDays != null && { historyLimitDays: args.historyLimitDays }),
      });
      const serverTimestamp = result.server_timestamp ?? null;
      return {
        presence_last_update_id: result.presence_last_update_id ?? null,
        server_timestamp: serverTimestamp,
        presences: toEntries(result.presences, serverTimestamp ?? Date.now() / 1000),
      };
    },
  }),
);

// ---- per-client presence (get-presence, get-user-presence) --------------------------------------------

/** One client's (or the aggregated) report, as the legacy format gives it. */
interface ClientPresenceShape {
  client: string;
  status: string;
  timestamp: number;
  pushable?: boolean;
}

/** A user's legacy entry: `aggregated` plus one key per client; the user as far as the request named them. */
interface PresenceByClientShape {
  email: string | null;
  userId: number | null;
  entries: Record<string, { status: string; timestamp: number; client?: string; pushable?: boolean }>;
}

const ClientPresenceRef = builder.objectRef<ClientPresenceShape>('ClientPresence').implement({
  description: 'What one client of a user last reported (or the summary over all of them).',
  fields: (t) => ({
    client: t.exposeString('client', { description: 'The client’s name (`website`, `ZulipMobile`...); `aggregated` for the summary.' }),
    status: t.exposeString('status', { description: '`active` or `idle`; the summary of `userPresence` may say `offline`.' }),
    timestamp: t.field({ type: 'Long', description: 'When it was reported, in UNIX seconds.', resolve: (c) => c.timestamp }),
    pushable: t.boolean({ nullable: true, description: 'Whether the client took push notifications (always false since feature level 178); null for the summary.', resolve: (c) => c.pushable ?? null }),
  }),
});

const toClients = (entry: PresenceByClientShape['entries']): ClientPresenceShape[] =>
  Object.entries(entry)
    .filter(([name]) => name !== 'aggregated')
    .map(([name, c]) => ({ client: c.client ?? name, status: c.status, timestamp: c.timestamp, ...(c.pushable !== undefined && { pushable: c.pushable }) }));

const PresenceByClientRef = builder.objectRef<PresenceByClientShape>('PresenceByClient').implement({
  description: 'A user’s presence per client, in the format of Zulip’s read endpoints (for timestamps per user ID, see `presences`).',
  fields: (t) => ({
    email: t.string({ nullable: true, description: 'The user’s API email (null when the user was asked for by ID).', resolve: (p) => p.email }),
    userId: t.field({ type: 'Long', nullable: true, description: 'The user ID (null when the server gave only the email).', resolve: (p) => p.userId }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'The user, when the ID is known; null otherwise or if the caller cannot see them.',
      resolve: (p, _args, ctx) => (p.userId == null ? null : ctx.loaders.user(p.userId)),
    }),
    aggregated: t.field({
      type: ClientPresenceRef,
      nullable: true,
      description: 'The summary over the user’s clients.',
      resolve: (p) => {
        const a = p.entries.aggregated;
        return a ? { client: a.client ?? 'aggregated', status: a.status, timestamp: a.timestamp } : null;
      },
    }),
    clients: t.field({ type: [ClientPresenceRef], description: 'One entry per client that reported.', resolve: (p) => toClients(p.entries) }),
  }),
});

const RealmPresenceRef = builder.objectRef<{ serverTimestamp: number; presences: PresenceByClientShape[] }>('RealmPresence').implement({
  description: 'Everyone’s presence per client, as `GET /realm/presence` gives it.',
  fields: (t) => ({
    serverTimestamp: t.float({ description: 'Server time of the answer, in UNIX seconds.', resolve: (r) => r.serverTimestamp }),
    presences: t.field({ type: [PresenceByClientRef], description: 'One entry per user, by API email.', resolve: (r) => r.presences }),
  }),
});

builder.queryFields((t) => ({
  realmPresence: t.field({
    extensions: reaches('get-presence'),
    type: RealmPresenceRef,
    description:
      'Everyone’s presence per client, by API email, without reporting the caller’s own (one upstream call). ' +
      'The modern per-user form is `presences`.',
    resolve: async (_root, _args, ctx) => {
      const result = await getPresence(ctx.connection);
      const presences = Object.entries(result.presences)
        .map(([email, entries]) => ({ email, userId: null, entries }))
        .sort((a, b) => a.email.localeCompare(b.email));
      return { serverTimestamp: result.server_timestamp, presences };
    },
  }),
  userPresence: t.field({
    extensions: reaches('get-user-presence'),
    type: PresenceByClientRef,
    description:
      'One user’s presence per client (one upstream call). Give `userId` (feature level 43) or `email`. Fails ' +
      'with BAD_REQUEST: "No such user", "No presence data for ...", "Presence is not supported for bot users.".',
    args: {
      userId: t.arg({ type: 'Long', required: false, description: 'The user, by ID.' }),
      email: t.arg.string({ required: false, description: 'The user, by API email.' }),
    },
    resolve: async (_root, args, ctx) => {
      if ((args.userId == null) === (args.email == null)) throw badInput('userPresence: give exactly one of `userId` or `email`.');
      if (args.userId != null && args.userId <= 0) throw badInput('userPresence: `userId` must be a positive user ID.', { argument: 'userId' });
      if (args.email != null && args.email.trim() === '') throw badInput('userPresence: `email` must not be blank.', { argument: 'email' });
      if (args.userId != null) await requireFeatureLevel(ctx, featureLevels.presenceByUserId, 'Presence by user ID');
      const { presence } = await getUserPresence(ctx.connection, { userIdOrEmail: args.userId ?? args.email! });
      // The gateway never asks for slim_presence here, so the entry is the legacy one.
      const entries = presence as PresenceByClientShape['entries'];
      return { email: args.email ?? null, userId: args.userId ?? null, entries };
    },
  }),
}));
