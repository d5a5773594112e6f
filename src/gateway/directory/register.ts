/**
 * What the directory needs from `POST /register` (https://zulip.com/api/register-queue), and the
 * loader that turns a register response into a {@link DirectorySnapshot}.
 *
 * The queue that feeds the directory is the credential's one hub queue: its registration must
 * include these fetch types, event types and payload options (the hub merges them into its own).
 */
import { MalformedResponseError } from '../../zulip/errors.js';
import type { Channel } from '../../zulip/model/channels.js';
import type { ClientCapabilities, RegisterQueueResult } from '../../zulip/model/events.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import type { UnreadMessagesSnapshot } from '../../zulip/model/messages.js';
import type { UserTopic } from '../../zulip/model/user-topics.js';
import type { RegisterQueueOptions } from '../../zulip/routes/events.js';
import { DIRECTORY_EVENT_TYPES } from '../events/types.js';

/**
 * Initial-state keys: users, channels, the caller's subscriptions, groups, realm limits; and the
 * unread messages (`unread_msgs` needs both `message` and `update_message_flags`) with the topic
 * preferences that mute them (`user_topic`).
 */
export const DIRECTORY_FETCH_EVENT_TYPES: readonly string[] = [
  'realm_user',
  'stream',
  'subscription',
  'realm_user_groups',
  'realm',
  'message',
  'update_message_flags',
  'user_topic',
];

// The event types that keep that state current are the event table's (`directory` and `unreads`,
// events/types.ts); `restart` tells the directory to reload.
export { DIRECTORY_EVENT_TYPES } from '../events/types.js';

/**
 * Payload shape that makes the state equal to what the per-request path (GET /users, GET /streams,
 * GET /users/me/subscriptions, GET /user_groups) returns:
 * - `user_list_incomplete`: users the caller cannot access are left out, not sent as placeholders;
 * - `archived_channels`: archived channels stay in the state (GET /streams?exclude_archived=false):
 *   in `streams` from feature level 378 (Zulip 11.0), and before that only in `subscriptions`,
 *   `unsubscribed` and `never_subscribed` (feature level 362 for the last), whose entries carry
 *   the channel's own fields (see {@link channelsOf});
 * - `notification_settings_null`: inherited notification settings are null, as over REST;
 * - no `include_deactivated_groups`: GET /user_groups leaves deactivated groups out by default.
 */
export const DIRECTORY_CLIENT_CAPABILITIES: ClientCapabilities = {
  notification_settings_null: true,
  user_list_incomplete: true,
  archived_channels: true,
};

/** The register options the directory depends on (avatar URLs as the loaders ask for them, no subscriber lists). */
export const DIRECTORY_REGISTER_OPTIONS: RegisterQueueOptions = {
  eventTypes: [...DIRECTORY_EVENT_TYPES],
  fetchEventTypes: [...DIRECTORY_FETCH_EVENT_TYPES],
  clientGravatar: false,
  includeSubscribers: false,
  clientCapabilities: DIRECTORY_CLIENT_CAPABILITIES,
};

/** Realm keys kept from the `realm` fetch type: the limits and names resolvers check against. */
const REALM_KEYS = [
  'max_message_length',
  'max_topic_length',
  'max_stream_name_length',
  'max_stream_description_length',
  'realm_empty_topic_display_name',
  'realm_name',
  'realm_can_access_all_users_group',
] as const;

/** The directory's part of one register response, validated. */
export interface DirectorySnapshot {
  lastEventId: number;
  featureLevel: number;
  selfId: number;
  /** Active and deactivated users (`realm_users` + `realm_non_active_users`), as GET /users lists them. */
  users: User[];
  /** Bots of the server's internal realm: not in GET /users, so not served as users. */
  crossRealmBots: User[];
  channels: Channel[];
  subscriptions: Subscription[];
  userGroups: UserGroup[];
  realm: Record<string, unknown>;
  /** `unread_msgs` (unreads.ts). */
  unreads: UnreadMessagesSnapshot;
  /** The caller's topic preferences (`user_topics`), which mute or unmute topics. */
  userTopics: UserTopic[];
}

/** Keys of a register answer the directory cannot load without. */
const REQUIRED_KEYS = ['user_id', 'realm_users', 'realm_non_active_users', 'cross_realm_bots', 'streams', 'subscriptions', 'realm_user_groups'] as const;

/** The keys the directory needs that a register answer lacks (empty: it has them all). */
export function missingDirectoryKeys(result: RegisterQueueResult): string[] {
  return REQUIRED_KEYS.filter((key) => result[key] === undefined);
}

function list<T>(result: RegisterQueueResult, key: string): T[] {
  const value = result[key];
  if (!Array.isArray(value)) throw new MalformedResponseError('register-queue', 200);
  return value as T[];
}

/**
 * Reads the directory's state from a register response made with {@link DIRECTORY_REGISTER_OPTIONS}.
 * Throws `MalformedResponseError` when a fetched key is missing: a half-loaded directory is never trusted.
 */
export function snapshotFromRegister(result: RegisterQueueResult): DirectorySnapshot {
  const realm: Record<string, unknown> = {};
  for (const key of REALM_KEYS) if (key in result) realm[key] = result[key];
  return {
    ...snapshotUnreads(result),
    lastEventId: result.last_event_id,
    featureLevel: result.zulip_feature_level,
    users: [...list<User>(result, 'realm_users'), ...list<User>(result, 'realm_non_active_users')],
    crossRealmBots: list<User>(result, 'cross_realm_bots'),
    channels: channelsOf(result),
    userGroups: list<UserGroup>(result, 'realm_user_groups'),
    realm,
  };
}

/**
 * The unread state of a register response (fetch types `message`, `update_message_flags`,
 * `user_topic` and `subscription`), validated as `snapshotFromRegister` does.
 */
export function snapshotUnreads(result: RegisterQueueResult): Pick<DirectorySnapshot, 'unreads' | 'userTopics' | 'selfId' | 'subscriptions'> {
  const selfId = result.user_id;
  if (typeof selfId !== 'number') throw new MalformedResponseError('register-queue', 200);
  return {
    selfId,
    unreads: unreadsOf(result),
    userTopics: list<UserTopic>(result, 'user_topics'),
    subscriptions: list<Subscription>(result, 'subscriptions'),
  };
}

/** The personal keys of a subscription entry; the rest are the channel's own fields. */
const PERSONAL_KEYS: readonly string[] = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'email_notifications',
  'push_notifications',
  'audible_notifications',
  'wildcard_mentions_notify',
  'subscribers',
  'partial_subscribers',
  'subscriber_count',
];

/**
 * `streams`, plus the archived channels a server before feature level 378 leaves out of it even
 * with the `archived_channels` capability (https://zulip.com/api/register-queue, `streams`,
 * "Changes"), though it lists them in the subscription lists. Without them, every lookup of an
 * archived channel would go upstream (`GET /streams/{id}`) however warm the directory.
 */
function channelsOf(result: RegisterQueueResult): Channel[] {
  const streams = list<Channel>(result, 'streams');
  const known = new Set(streams.map((c) => c.stream_id));
  const archived: Channel[] = [];
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
    const entries = result[key];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as Record<string, unknown>[]) {
      if (entry.is_archived !== true || known.has(entry.stream_id as number)) continue;
      known.add(entry.stream_id as number);
      const channel: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(entry)) if (!PERSONAL_KEYS.includes(k)) channel[k] = v;
      // An archived channel is never a default channel (archiving removes it from the defaults).
      channel.is_default = false;
      archived.push(channel as unknown as Channel);
    }
  }
  return [...streams, ...archived];
}

function unreadsOf(result: RegisterQueueResult): UnreadMessagesSnapshot {
  const value = result.unread_msgs as UnreadMessagesSnapshot | undefined;
  if (typeof value !== 'object' || value === null || !['pms', 'streams', 'huddles', 'mentions'].every((k) => Array.isArray(value[k as keyof UnreadMessagesSnapshot]))) {
    throw new MalformedResponseError('register-queue', 200);
  }
  return value;
}
