/**
 * The event queue endpoints: `POST /register` (https://zulip.com/api/register-queue),
 * `GET /events` (https://zulip.com/api/get-events) and `DELETE /events`
 * (https://zulip.com/api/delete-queue). Queue mechanics live in ../queues.ts; the initial state comes
 * from each resource module's `initialState`.
 */
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import { parseNarrow, type NarrowTerm } from '../narrow/index.js';
import type { QueueOptions } from '../queues.js';
import { lastMessageId } from '../factory.js';
import { stateModules } from './resources.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Operators a queue narrow accepts (https://zulip.com/api/register-queue#parameter-narrow). */
const QUEUE_NARROW_OPERATORS = new Set(['channel', 'topic', 'sender', 'is']);
const MAX_LIFESPAN_SECS = 7 * 86400;

function readStringList(ctx: RouteContext, name: string): string[] | null {
  const v = ctx.params.optJson(name);
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${name} is not a list of strings`);
  return v as string[];
}

function readCapabilities(ctx: RouteContext): Record<string, boolean> {
  const v = ctx.params.optJson('client_capabilities');
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'boolean')) {
    throw badRequest('client_capabilities is not a dict of booleans');
  }
  if (!('notification_settings_null' in v)) throw badRequest("client_capabilities key 'notification_settings_null' is missing");
  return v as Record<string, boolean>;
}

function readQueueNarrow(ctx: RouteContext): NarrowTerm[] {
  const raw = ctx.params.optJson('narrow');
  // Zulip's check_narrow_for_events names any unsupported operator, known to GET /messages or not.
  if (Array.isArray(raw)) {
    for (const term of raw) {
      const operator = Array.isArray(term) ? term[0] : (term as { operator?: unknown } | null)?.operator;
      if (typeof operator === 'string' && !QUEUE_NARROW_OPERATORS.has(operator) && operator !== 'stream') {
        throw badRequest(`Operator ${operator} not supported.`);
      }
    }
  }
  const narrow = parseNarrow(raw);
  for (const term of narrow) {
    if (!QUEUE_NARROW_OPERATORS.has(term.operator) || term.negated) {
      throw badRequest(`Operator ${term.operator} not supported.`);
    }
  }
  return narrow;
}

interface Registration {
  options: QueueOptions;
  fetchTypes: string[] | null;
  includeSubscribers: boolean;
}

function readRegistration(ctx: RouteContext): Registration {
  const eventTypes = readStringList(ctx, 'event_types');
  const fetchTypes = readStringList(ctx, 'fetch_event_types') ?? eventTypes;
  const allPublicStreams = ctx.params.bool('all_public_streams', false);
  if (allPublicStreams && ctx.store.isGuest(ctx.user)) throw badRequest('User not authorized for this query');
  const lifespan = ctx.params.optInt('queue_lifespan_secs') ?? 0;
  const lifespanMs = lifespan > 0 ? Math.min(lifespan, MAX_LIFESPAN_SECS) * 1000 : ctx.settings.queueIdleTimeoutMs;
  return {
    options: {
      eventTypes: eventTypes ? new Set(eventTypes) : null,
      narrow: readQueueNarrow(ctx),
      allPublicStreams,
      applyMarkdown: ctx.params.bool('apply_markdown', false),
      clientGravatar: ctx.params.bool('client_gravatar', true),
      slimPresence: ctx.params.bool('slim_presence', false),
      capabilities: readCapabilities(ctx),
      lifespanMs,
    },
    fetchTypes,
    includeSubscribers: ctx.params.bool('include_subscribers', false),
  };
}

/** Organization-wide state and limits (the `realm` fetch type). */
function realmState(ctx: StateContext): Record<string, unknown> {
  const { store, settings } = ctx;
  const r = store.realm.settings;
  return {
    realm_name: store.realm.name,
    realm_description: store.realm.description,
    realm_url: ctx.baseUrl,
    realm_uri: ctx.baseUrl,
    realm_date_created: store.realm.date_created,
    realm_empty_topic_display_name: store.realm.empty_topic_display_name,
    realm_allow_message_editing: r.allow_message_editing,
    realm_allow_edit_history: r.allow_edit_history,
    realm_message_content_edit_limit_seconds: r.message_content_edit_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: r.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: r.move_messages_between_streams_limit_seconds,
    realm_can_resolve_topics_group: r.can_resolve_topics_group,
    realm_can_move_messages_between_channels_group: r.can_move_messages_between_channels_group,
    realm_can_move_messages_between_topics_group: r.can_move_messages_between_topics_group,
    realm_can_mention_many_users_group: r.can_mention_many_users_group,
    realm_can_create_web_public_channel_group: r.can_create_web_public_channel_group,
    realm_can_access_all_users_group: r.can_access_all_users_group,
    realm_enable_spectator_access: r.enable_spectator_access,
    realm_message_retention_days: r.message_retention_days ?? -1,
    realm_moderation_request_channel_id: r.moderation_request_channel_id ?? -1,
    server_web_public_streams_enabled: r.web_public_streams_enabled,
    event_queue_longpoll_timeout_seconds: settings.eventQueueLongpollTimeoutSeconds,
    max_message_length: settings.maxMessageLength,
    max_topic_length: settings.maxTopicLength,
    max_stream_name_length: settings.maxStreamNameLength,
    max_stream_description_length: settings.maxStreamDescriptionLength,
    server_typing_started_wait_period_milliseconds: 30_000,
    server_typing_stopped_wait_period_milliseconds: 12_000,
    server_typing_started_expiry_period_milliseconds: 45_000,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: 200,
  };
}

/** The register-time state this module itself owns: realm settings and `max_message_id`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return {
    ...(ctx.wants('realm') ? realmState(ctx) : {}),
    ...(ctx.wants('message') ? { max_message_id: lastMessageId(ctx.store) } : {}),
  };
}

function register(ctx: RouteContext): Record<string, unknown> {
  const reg = readRegistration(ctx);
  const queue = ctx.events.register(ctx.user.user_id, reg.options);
  const state: StateContext = {
    user: ctx.user,
    store: ctx.store,
    settings: ctx.settings,
    baseUrl: ctx.baseUrl,
    wants: (type) => reg.fetchTypes === null || reg.fetchTypes.includes(type),
    options: {
      applyMarkdown: reg.options.applyMarkdown,
      clientGravatar: reg.options.clientGravatar,
      includeSubscribers: reg.includeSubscribers,
      slimPresence: reg.options.slimPresence,
      capabilities: reg.options.capabilities,
    },
    nowSeconds: ctx.nowSeconds,
  };
  const body: Record<string, unknown> = {
    queue_id: queue.id,
    last_event_id: -1,
    zulip_version: ctx.settings.version,
    zulip_feature_level: ctx.settings.featureLevel,
    zulip_merge_base: '',
  };
  Object.assign(body, initialState(state));
  for (const module of stateModules) Object.assign(body, module.initialState?.(state));
  return body;
}

export const routes: Route[] = [
  { operation: ops.registerQueue, handler: register },
  {
    operation: ops.getEvents,
    handler: async (ctx) => {
      const queueId = ctx.params.optStr('queue_id');
      const dontBlock = ctx.params.bool('dont_block', false);
      if (queueId === undefined) {
        // Legacy path: with dont_block, a GET without queue_id registers a queue from its parameters.
        // Zulip raises these two as plain JsonableErrors (BAD_REQUEST), not REQUEST_VARIABLE_MISSING.
        if (!dontBlock) throw badRequest("Missing 'queue_id' argument");
        const registered = register(ctx);
        return { events: [], queue_id: registered.queue_id };
      }
      const lastEventId = ctx.params.optInt('last_event_id');
      if (lastEventId === undefined) throw badRequest("Missing 'last_event_id' argument");
      const events = await ctx.events.get(queueId, ctx.user, lastEventId, dontBlock, ctx.signal);
      return { events, queue_id: queueId };
    },
  },
  {
    operation: ops.deleteQueue,
    handler: (ctx) => {
      ctx.events.delete(ctx.params.str('queue_id'), ctx.user);
      return {};
    },
  },
];
