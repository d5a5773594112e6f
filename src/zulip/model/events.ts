/**
 * Wire types of the event queue: `POST /register` (https://zulip.com/api/register-queue),
 * `GET /events` (https://zulip.com/api/get-events), snake_case as sent.
 *
 * An event is typed here only as a {@link RawEvent}: the one event parser is the gateway hub's
 * (src/gateway/events/model.ts), which checks the fields the gateway relies on and passes unknown
 * types and ops through, so a newer server never breaks a client
 * (https://zulip.com/api/real-time-events).
 */
import type { ModernPresence, LegacyPresence } from './presence.js';
import type { UserSettings } from './settings.js';

/** The capability flags of `client_capabilities` (https://zulip.com/api/register-queue#parameter-client_capabilities). */
export interface ClientCapabilities {
  /** Required key whenever the object is sent. */
  notification_settings_null: boolean;
  bulk_message_deletion?: boolean;
  user_avatar_url_field_optional?: boolean;
  stream_typing_notifications?: boolean;
  user_settings_object?: boolean;
  linkifier_url_template?: boolean;
  user_list_incomplete?: boolean;
  /** Newer capabilities are accepted as long as their values are booleans. */
  [capability: string]: boolean | undefined;
}

/** `POST /register` success body: the always-present keys, the ones this project reads, and the rest. */
export interface RegisterQueueResult {
  /** Null only for unauthenticated spectators. */
  queue_id: string | null;
  /** -1 when no event was folded into the returned state. Pass it to the first `GET /events`. */
  last_event_id: number;
  zulip_feature_level: number;
  zulip_version: string;
  zulip_merge_base?: string;

  // `realm` fetch type
  event_queue_longpoll_timeout_seconds?: number;
  max_message_length?: number;
  max_topic_length?: number;
  max_stream_name_length?: number;
  max_stream_description_length?: number;
  realm_empty_topic_display_name?: string;
  server_typing_started_wait_period_milliseconds?: number;
  server_typing_stopped_wait_period_milliseconds?: number;
  server_typing_started_expiry_period_milliseconds?: number;
  server_presence_ping_interval_seconds?: number;
  server_presence_offline_threshold_seconds?: number;

  // `message` fetch type
  max_message_id?: number;

  // `presence` fetch type
  /** Keyed by user ID (modern entries) with slim_presence, else by API email (legacy entries). */
  presences?: Record<string, ModernPresence | LegacyPresence>;
  server_timestamp?: number;
  /** Feature level 263. */
  presence_last_update_id?: number;

  // `user_settings` fetch type
  user_settings?: UserSettings;

  /** Every other state key, by fetch type. */
  [key: string]: unknown;
}

/** An event as it arrives: an increasing `id` (not necessarily consecutive) and a `type`. */
export interface RawEvent {
  id: number;
  type: string;
  [key: string]: unknown;
}

/** `GET /events` success body. */
export interface GetEventsResult {
  events: RawEvent[];
  /** Sometimes missing (zulip-flutter: "empirically sometimes missing"). */
  queue_id?: string;
}
