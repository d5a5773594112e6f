/**
 * Channels and topics: `GET /streams` (https://zulip.com/api/get-streams), `GET /streams/{id}`
 * (https://zulip.com/api/get-stream-by-id), `PATCH /streams/{id}` (https://zulip.com/api/update-stream),
 * `DELETE /streams/{id}` (https://zulip.com/api/archive-stream) and
 * `GET /users/me/{stream_id}/topics` (https://zulip.com/api/get-stream-topics), plus the `stream`
 * and `default_streams` parts of the register state.
 *
 * Also the channel rules subscriptions and user topics share: the wire serializer, who can see or
 * administer a channel, channel-name and group-setting validation, and the `stream` events.
 */
import { randomBytes } from 'node:crypto';
import { featureLevels } from '../../zulip/feature-levels.js';
import type {
  ChannelPermissionSetting,
  Channel as WireChannel,
  GroupSettingValue as WireGroupSettingValue,
} from '../../zulip/model/channels.js';
import type { EmulatorSettings, Route, RouteContext, StateContext } from '../context.js';
import { badRequest, insufficientPermission, invalidChannelId } from '../errors.js';
import { groupSettingsEqual, parseGroupSettingValue } from '../group-settings.js';
import { checkNoNullBytes, type Params } from '../http.js';
import { renderDescription } from '../markdown.js';
import { CHANNEL_PERMISSION_SETTINGS, Role, type Channel, type GroupSettingValue, type Store, type User } from '../store.js';

// ---- serialization -----------------------------------------------------------------------------

const DAY = 86400;
/** Zulip marks a channel inactive when it is older than this and has had no message for as long. */
const RECENTLY_ACTIVE_DAYS = 180;
/** Weekly traffic is estimated from the messages of the last four weeks. */
const TRAFFIC_WINDOW_DAYS = 28;

interface ChannelStats {
  firstMessageId: number | null;
  lastTimestamp: number | null;
  recentMessages: number;
}

/** Deprecated stream_post_policy values derived from can_send_message_group's system group. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

/**
 * Serializes channels as `GET /streams` does. Message statistics (first_message_id, traffic,
 * recent activity) are computed in one pass over the messages, on first use.
 */
export class ChannelSerializer {
  private stats: Map<number, ChannelStats> | undefined;

  constructor(
    private readonly store: Store,
    private readonly nowSeconds: number,
  ) {}

  /** @param options.traffic false for newly created channels, whose traffic Zulip does not estimate. */
  channel(channel: Channel, options: { traffic?: boolean } = {}): WireChannel {
    const stats = this.statsOf(channel.stream_id);
    const postPolicy = streamPostPolicy(this.store, channel.can_send_message_group);
    return {
      stream_id: channel.stream_id,
      name: channel.name,
      is_archived: channel.is_archived,
      description: channel.description,
      rendered_description: channel.rendered_description,
      date_created: channel.date_created,
      creator_id: channel.creator_id,
      invite_only: channel.invite_only,
      is_web_public: channel.is_web_public,
      stream_post_policy: postPolicy,
      is_announcement_only: postPolicy === 2,
      message_retention_days: channel.message_retention_days,
      history_public_to_subscribers: channel.history_public_to_subscribers,
      first_message_id: stats.firstMessageId,
      is_recently_active: this.isRecentlyActive(channel, stats),
      can_add_subscribers_group: copyGroupSetting(channel.can_add_subscribers_group),
      can_remove_subscribers_group: copyGroupSetting(channel.can_remove_subscribers_group),
      can_administer_channel_group: copyGroupSetting(channel.can_administer_channel_group),
      can_send_message_group: copyGroupSetting(channel.can_send_message_group),
      can_subscribe_group: copyGroupSetting(channel.can_subscribe_group),
      stream_weekly_traffic: options.traffic === false ? null : this.weeklyTraffic(channel, stats),
    };
  }

  private statsOf(streamId: number): ChannelStats {
    if (!this.stats) {
      this.stats = new Map();
      const since = this.nowSeconds - TRAFFIC_WINDOW_DAYS * DAY;
      for (const m of this.store.messages.values()) {
        if (m.type !== 'stream') continue;
        let s = this.stats.get(m.stream_id!);
        if (!s) this.stats.set(m.stream_id!, (s = { firstMessageId: m.id, lastTimestamp: null, recentMessages: 0 }));
        s.lastTimestamp = Math.max(s.lastTimestamp ?? m.timestamp, m.timestamp);
        if (m.timestamp >= since) s.recentMessages++;
      }
    }
    return this.stats.get(streamId) ?? { firstMessageId: null, lastTimestamp: null, recentMessages: 0 };
  }

  private isRecentlyActive(channel: Channel, stats: ChannelStats): boolean {
    const threshold = this.nowSeconds - RECENTLY_ACTIVE_DAYS * DAY;
    return channel.date_created >= threshold || (stats.lastTimestamp !== null && stats.lastTimestamp >= threshold);
  }

  /** Zulip's estimate: null for channels younger than a week, at least 1 when there was traffic. */
  private weeklyTraffic(channel: Channel, stats: ChannelStats): number | null {
    const ageDays = Math.floor((this.nowSeconds - channel.date_created) / DAY);
    let weekly: number;
    if (ageDays >= TRAFFIC_WINDOW_DAYS) weekly = Math.floor(stats.recentMessages / 4);
    else if (ageDays >= 7) weekly = Math.floor((stats.recentMessages * 7) / ageDays);
    else return null;
    if (weekly === 0 && stats.recentMessages > 0) weekly = 1;
    return roundToTwoSignificantDigits(weekly);
  }
}

function roundToTwoSignificantDigits(n: number): number {
  if (n < 100) return n;
  const magnitude = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / magnitude) * magnitude;
}

function copyGroupSetting(value: GroupSettingValue): WireGroupSettingValue {
  return typeof value === 'number'
    ? value
    : { direct_members: [...value.direct_members], direct_subgroups: [...value.direct_subgroups] };
}

function streamPostPolicy(store: Store, canSend: GroupSettingValue): number {
  if (typeof canSend !== 'number') return 1;
  const group = store.groups.get(canSend);
  return (group?.is_system_group && POST_POLICY_BY_GROUP[group.name]) || 1;
}

export function serializer(ctx: { store: Store; nowSeconds(): number }): ChannelSerializer {
  return new ChannelSerializer(ctx.store, ctx.nowSeconds());
}

// ---- access ------------------------------------------------------------------------------------

/** Active users who can see that the channel exists (the audience of its `stream` events). */
export function metadataAudience(store: Store, channel: Channel): number[] {
  const ids: number[] = [];
  for (const u of store.users.values()) {
    if (u.is_active && store.canAccessChannelMetadata(u, channel)) ids.push(u.user_id);
  }
  return ids;
}

/** Active non-guest users (who see organization-wide data such as the default channels). */
export function nonGuestUserIds(store: Store): number[] {
  return [...store.users.values()].filter((u) => u.is_active && !store.isGuest(u)).map((u) => u.user_id);
}

/**
 * Content access as Zulip's `user_has_content_access`: besides public (for non-guests),
 * web-public and subscribed, members of can_add_subscribers_group or can_subscribe_group may read
 * a private channel, since they may join it.
 */
export function hasContentAccess(store: Store, user: User, channel: Channel): boolean {
  if (store.canAccessChannelContent(user, channel)) return true;
  if (store.isGuest(user)) return false;
  return (
    store.userHasGroupSetting(user.user_id, channel.can_add_subscribers_group) ||
    store.userHasGroupSetting(user.user_id, channel.can_subscribe_group)
  );
}

/** Administrators administer every channel they can see; guests never administer one. */
export function canAdminister(store: Store, user: User, channel: Channel): boolean {
  return !store.isGuest(user) && store.canAdministerChannel(user, channel);
}

/** A channel the caller can see, or BAD_REQUEST "Invalid channel ID" (also for unknown IDs). */
export function accessChannel(ctx: RouteContext, streamId: number, need: 'metadata' | 'content'): Channel {
  const channel = ctx.store.channels.get(streamId);
  if (!channel) throw invalidChannelId();
  const ok =
    need === 'content'
      ? hasContentAccess(ctx.store, ctx.user, channel)
      : ctx.store.canAccessChannelMetadata(ctx.user, channel);
  if (!ok) throw invalidChannelId();
  return channel;
}

/** Zulip's `access_stream_for_delete_or_update_requiring_metadata_access`. */
function accessChannelForUpdate(ctx: RouteContext, streamId: number): Channel {
  const channel = accessChannel(ctx, streamId, 'metadata');
  if (!canAdminister(ctx.store, ctx.user, channel)) {
    throw badRequest('You do not have permission to administer this channel.');
  }
  return channel;
}

// ---- validation shared with subscriptions -------------------------------------------------------

/** Zulip's check_stream_name on an already stripped name. */
export function checkChannelName(settings: EmulatorSettings, name: string): string {
  if (name.trim() === '') throw badRequest("Channel name can't be empty.");
  if ([...name].length > settings.maxStreamNameLength) {
    throw badRequest(`Channel name too long (limit: ${settings.maxStreamNameLength} characters).`);
  }
  const bad = [...name].findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in channel name, at position ${bad + 1}.`);
  return name;
}

export function checkDescription(settings: EmulatorSettings, name: string, description: string): string {
  checkNoNullBytes(name, description);
  if ([...description].length > settings.maxStreamDescriptionLength) {
    throw badRequest(`${name} is too long (limit: ${settings.maxStreamDescriptionLength} characters)`);
  }
  // Zulip keeps channel descriptions on one line.
  return description.replace(/\n/g, ' ');
}

/**
 * `message_retention_days`, declared `Json[str] | Json[int]` by Zulip (zerver/views/streams.py): the
 * raw value must be JSON, so `"unlimited"` / `"realm_default"` (JSON strings) or a positive integer;
 * a bare `unlimited` is not valid JSON. Returns null (inherit the organization's), -1 (unlimited) or
 * the number of days; undefined when the parameter is absent.
 */
export function readRetentionDays(params: Params): number | null | undefined {
  const value = params.optJson('message_retention_days');
  if (value === undefined) return undefined;
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  // Zulip's parse_message_retention_days: any other string, or a non-positive number, is refused.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw badRequest(`Bad value for 'message_retention_days': ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return value;
}

/** Which system groups a channel permission may not be set to (Zulip's GroupPermissionSetting). */
const DISALLOWED_SYSTEM_GROUPS: Record<ChannelPermissionSetting, readonly string[]> = {
  can_add_subscribers_group: ['role:internet', 'role:everyone'],
  can_remove_subscribers_group: ['role:internet'],
  can_administer_channel_group: ['role:internet', 'role:everyone'],
  can_send_message_group: ['role:internet'],
  can_subscribe_group: ['role:internet', 'role:everyone'],
};

/** A group-setting value for a channel permission, validated and normalized (group-settings.ts). */
export function parseChannelGroupSetting(store: Store, setting: ChannelPermissionSetting, raw: unknown): GroupSettingValue {
  return parseGroupSettingValue(store, setting, raw, { disallowed: DISALLOWED_SYSTEM_GROUPS[setting], eachSubgroup: false });
}

/** Web-public channels need the server setting, the organization setting and the creator's permission. */
export function checkCanMakeWebPublic(store: Store, user: User): void {
  const realm = store.realm.settings;
  if (!realm.web_public_streams_enabled || !realm.enable_spectator_access) {
    throw badRequest('Web-public channels are not enabled.');
  }
  if (!store.userHasGroupSetting(user.user_id, realm.can_create_web_public_channel_group)) {
    throw badRequest('Insufficient permission');
  }
}

// ---- events ------------------------------------------------------------------------------------

/** `stream` / `delete`: only IDs since feature level 343 (`streams` then carries only stream_id). */
export function streamDeleteEvent(settings: EmulatorSettings, channels: WireChannel[]): Record<string, unknown> & { type: string } {
  if (settings.featureLevel >= featureLevels.channelDeleteStreamIds) {
    return {
      type: 'stream',
      op: 'delete',
      streams: channels.map((c) => ({ stream_id: c.stream_id })),
      stream_ids: channels.map((c) => c.stream_id),
    };
  }
  return { type: 'stream', op: 'delete', streams: channels };
}

/** The default channels as register and `default_streams` events carry them: IDs since feature level 330. */
export function defaultStreamsPayload(ctx: { store: Store; settings: EmulatorSettings; nowSeconds(): number }): number[] | WireChannel[] {
  const ids = [...ctx.store.defaultChannelIds].sort((a, b) => a - b);
  if (ctx.settings.featureLevel >= featureLevels.defaultChannelIds) return ids;
  const s = serializer(ctx);
  return ids.map((id) => {
    const { stream_weekly_traffic: _, ...rest } = s.channel(ctx.store.channels.get(id)!);
    return rest as WireChannel;
  });
}

/** Tells every non-guest the new list of default channels. */
export function notifyDefaultStreams(ctx: RouteContext): void {
  ctx.events.notify(nonGuestUserIds(ctx.store), { type: 'default_streams', default_streams: defaultStreamsPayload(ctx) });
}

/**
 * Sends `stream` create / delete to users who gained / lost sight of the channel since `before`
 * (a privacy change, a subscription), with `peer_add` so newcomers learn the subscribers.
 * Returns the users who could see it before and still can.
 */
export function notifyAccessChange(
  ctx: RouteContext,
  channel: Channel,
  before: Set<number>,
  /** Users who learn the subscribers otherwise (new subscribers get them in `subscription` add). */
  noPeerAdd: ReadonlySet<number> = new Set(),
): number[] {
  const after = new Set(metadataAudience(ctx.store, channel));
  const gained = [...after].filter((id) => !before.has(id));
  const lost = [...before].filter((id) => !after.has(id));
  const kept = [...after].filter((id) => before.has(id));
  const wire = serializer(ctx).channel(channel);
  if (gained.length > 0) {
    ctx.events.notify(gained, { type: 'stream', op: 'create', streams: [wire] });
    const subscribers = ctx.store
      .subscriberIds(channel.stream_id)
      .filter((id) => ctx.store.users.get(id)?.is_active)
      .sort((a, b) => a - b);
    const told = gained.filter((id) => !noPeerAdd.has(id));
    if (subscribers.length > 0 && told.length > 0) {
      ctx.events.notify(told, { type: 'subscription', op: 'peer_add', stream_ids: [channel.stream_id], user_ids: subscribers });
    }
  }
  if (lost.length > 0) ctx.events.notify(lost, streamDeleteEvent(ctx.settings, [wire]));
  return kept;
}

function streamUpdate(channel: Channel, property: string, value: unknown, extra: Record<string, unknown> = {}) {
  return { type: 'stream', op: 'update', stream_id: channel.stream_id, name: channel.name, property, value, ...extra };
}

// ---- GET /streams ------------------------------------------------------------------------------

function getStreams(ctx: RouteContext) {
  const { params, store, user } = ctx;
  const includePublic = params.bool('include_public', true);
  const includeWebPublic = params.bool('include_web_public', false);
  const includeSubscribed = params.bool('include_subscribed', true);
  // Flags newer than the configured feature level stay unread, so they are reported as unsupported.
  const level = ctx.settings.featureLevel;
  const excludeArchived = level >= featureLevels.archivedChannels ? params.bool('exclude_archived', true) : true;
  let includeAll = level >= featureLevels.includeAllChannels ? params.bool('include_all', false) : false;
  const includeAllActive = params.bool('include_all_active', false);
  const includeDefault = params.bool('include_default', false);
  const includeOwnerSubscribed = params.bool('include_owner_subscribed', false);
  const includeCanAccessContent = params.bool('include_can_access_content', false);
  if (includeAllActive) {
    // Deprecated alias of include_all that only administrators may use.
    if (!store.isAdmin(user)) throw badRequest('User not authorized for this query');
    includeAll = true;
  }
  const owner = user.is_bot && user.bot_owner_id !== null ? store.userById(user.bot_owner_id) : undefined;
  const selected = [...store.channels.values()].filter((c) => {
    if (excludeArchived && c.is_archived) return false;
    if (includeAll) return store.canAccessChannelMetadata(user, c);
    return (
      (includeSubscribed && store.isSubscribed(user.user_id, c.stream_id)) ||
      (includePublic && !store.isGuest(user) && !c.invite_only) ||
      (includeWebPublic && c.is_web_public) ||
      (includeOwnerSubscribed && owner !== undefined && store.isSubscribed(owner.user_id, c.stream_id)) ||
      (includeCanAccessContent && hasContentAccess(store, user, c))
    );
  });
  const s = serializer(ctx);
  const streams = selected
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => (includeDefault ? { ...s.channel(c), is_default: store.defaultChannelIds.has(c.stream_id) } : s.channel(c)));
  return { streams };
}

// ---- PATCH /streams/{stream_id} -----------------------------------------------------------------

interface GroupChange {
  setting: ChannelPermissionSetting;
  value: GroupSettingValue;
}

/** Settings whose change needs content access (for a private channel: being subscribed, or able to join). */
const NEED_CONTENT_ACCESS: ReadonlySet<ChannelPermissionSetting> = new Set(['can_add_subscribers_group', 'can_subscribe_group']);

function readGroupUpdate(ctx: RouteContext, channel: Channel, setting: ChannelPermissionSetting): GroupChange | undefined {
  const raw = ctx.params.optJson<unknown>(setting);
  if (raw === undefined) return undefined;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('new' in raw)) {
    throw badRequest(`${setting} must be an object with "new" and optionally "old"`);
  }
  const update = raw as { new: unknown; old?: unknown };
  const next = parseChannelGroupSetting(ctx.store, setting, update.new);
  if (update.old !== undefined && update.old !== null) {
    const expected = parseChannelGroupSetting(ctx.store, setting, update.old);
    if (!groupSettingsEqual(expected, channel[setting])) throw badRequest("'old' value does not match the expected value.");
  }
  return { setting, value: next };
}

function updateStream(ctx: RouteContext) {
  const { params, store, user, settings } = ctx;
  const channel = accessChannelForUpdate(ctx, ctx.pathInt('stream_id'));
  if (channel.is_archived && settings.featureLevel < featureLevels.archivedChannelEdits) throw invalidChannelId();

  // The parameters are parsed before anything changes (typed_endpoint); the rest follows Zulip's
  // update_stream_backend (zerver/views/streams.py) step by step: each change is checked, then
  // applied, and no transaction spans them, so a refusal leaves the earlier steps applied.
  const rawDescription = params.optStr('description');
  const description = rawDescription === undefined ? undefined : checkDescription(settings, 'description', rawDescription);
  const rawName = params.optStr('new_name');
  const isPrivate = params.optBool('is_private');
  const isWebPublic = params.optBool('is_web_public');
  const historyParam = params.optBool('history_public_to_subscribers');
  const isDefault = params.optBool('is_default_stream');
  // Before feature level 136, history_public_to_subscribers alone was silently ignored.
  const historyIgnored = settings.featureLevel < featureLevels.channelHistoryAlone && isPrivate === undefined && isWebPublic === undefined;
  const historyPublic = historyIgnored ? undefined : historyParam;
  const retention = readRetentionDays(params);
  const groupChanges = CHANNEL_PERMISSION_SETTINGS.map((s) => readGroupUpdate(ctx, channel, s)).filter(
    (c): c is GroupChange => c !== undefined && !groupSettingsEqual(c.value, channel[c.setting]),
  );

  const wasDefault = store.defaultChannelIds.has(channel.stream_id);
  const proposedPrivate = isPrivate ?? channel.invite_only;
  const proposedWebPublic = isWebPublic ?? channel.is_web_public;
  const proposedDefault = isDefault ?? wasDefault;
  const proposedHistory = historyPublic ?? (isPrivate !== undefined ? !isPrivate : channel.history_public_to_subscribers);
  if (proposedWebPublic && (!proposedHistory || proposedPrivate)) throw badRequest('Invalid parameters');
  if (!proposedPrivate && !proposedHistory) throw badRequest('Invalid parameters');
  if (proposedPrivate && proposedDefault) throw badRequest('A default channel cannot be private.');
  if (!proposedPrivate && channel.is_moderation_request_channel) throw badRequest('Moderation request channel must be private.');
  const contentAccess = hasContentAccess(store, user, channel);
  if (isPrivate !== undefined && !contentAccess) throw badRequest('Channel content access is required.');
  if (isWebPublic) checkCanMakeWebPublic(store, user);

  // Apply, with the events Zulip sends for each change.
  if (isPrivate !== undefined || isWebPublic !== undefined || historyPublic !== undefined) {
    const before = new Set(metadataAudience(store, channel));
    channel.invite_only = proposedPrivate;
    channel.is_web_public = proposedWebPublic;
    channel.history_public_to_subscribers = proposedHistory;
    const kept = notifyAccessChange(ctx, channel, before);
    ctx.events.notify(
      kept,
      streamUpdate(channel, 'invite_only', channel.invite_only, {
        history_public_to_subscribers: channel.history_public_to_subscribers,
        is_web_public: channel.is_web_public,
      }),
    );
  }
  if (isDefault !== undefined && !store.isAdmin(user)) throw badRequest('You do not have permission to change default channels.');
  if (isDefault !== undefined && isDefault !== wasDefault) {
    if (isDefault) store.defaultChannelIds.add(channel.stream_id);
    else store.defaultChannelIds.delete(channel.stream_id);
    notifyDefaultStreams(ctx);
  }
  if (retention !== undefined) {
    if (user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
    channel.message_retention_days = retention;
    ctx.events.notify(metadataAudience(store, channel), streamUpdate(channel, 'message_retention_days', retention));
  }
  if (description !== undefined) {
    channel.description = description;
    channel.rendered_description = renderDescription(description);
    ctx.events.notify(
      metadataAudience(store, channel),
      streamUpdate(channel, 'description', description, { rendered_description: channel.rendered_description }),
    );
  }
  if (rawName !== undefined) {
    const newName = rawName.trim();
    if (newName === channel.name) throw badRequest('Channel already has that name.');
    checkChannelName(settings, newName);
    const other = store.channelByName(newName);
    if (other && other.stream_id !== channel.stream_id) throw badRequest('Channel name already in use.');
    const event = streamUpdate(channel, 'name', newName); // `name` is still the old one
    channel.name = newName;
    ctx.events.notify(metadataAudience(store, channel), event);
  }
  for (const change of groupChanges) {
    if (NEED_CONTENT_ACCESS.has(change.setting) && !contentAccess) throw badRequest('Channel content access is required.');
    // Administration rights move with can_administer_channel_group, so the audience is taken before and after.
    const before = new Set(metadataAudience(store, channel));
    channel[change.setting] = change.value;
    const kept = notifyAccessChange(ctx, channel, before);
    ctx.events.notify(kept, streamUpdate(channel, change.setting, copyGroupSetting(change.value)));
  }
  return {};
}

// ---- DELETE /streams/{stream_id} ----------------------------------------------------------------

function archiveStream(ctx: RouteContext) {
  const channel = accessChannelForUpdate(ctx, ctx.pathInt('stream_id'));
  if (channel.is_archived) throw badRequest('Channel is already deactivated');
  const audience = metadataAudience(ctx.store, channel);
  const wire = serializer(ctx).channel(channel);
  channel.is_archived = true;
  if (ctx.store.defaultChannelIds.delete(channel.stream_id)) notifyDefaultStreams(ctx);
  // Before feature level 378 every user who could see the channel gets a delete event, whatever
  // their archived_channels capability (subscriptions are kept).
  ctx.events.notify(audience, streamDeleteEvent(ctx.settings, [{ ...wire, is_archived: true }]));
  return {};
}

// ---- GET /users/me/{stream_id}/topics -----------------------------------------------------------

function getStreamTopics(ctx: RouteContext) {
  const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'content');
  const allowEmpty = ctx.settings.featureLevel >= featureLevels.emptyTopicName ? ctx.params.bool('allow_empty_topic_name', false) : false;
  // Topics are case-insensitive; an entry is named after its newest message.
  const byKey = new Map<string, { name: string; max_id: number }>();
  for (const m of ctx.store.messages.values()) {
    if (m.type !== 'stream' || m.stream_id !== channel.stream_id) continue;
    if (!ctx.store.canSeeMessage(ctx.user, m)) continue;
    const key = m.topic.toLowerCase();
    const entry = byKey.get(key);
    if (!entry || m.id > entry.max_id) byKey.set(key, { name: m.topic, max_id: m.id });
  }
  const displayName = ctx.store.realm.empty_topic_display_name;
  const topics = [...byKey.values()]
    .sort((a, b) => b.max_id - a.max_id)
    .map((t) => (t.name === '' && !allowEmpty ? { ...t, name: displayName } : t));
  return { topics };
}

// ---- GET /get_stream_id, GET /streams/{stream_id}/email_address ----------------------------------

function getStreamId(ctx: RouteContext) {
  const name = ctx.params.str('stream');
  const channel = ctx.store.channelByName(name);
  if (!channel || !hasContentAccess(ctx.store, ctx.user, channel)) throw badRequest(`Invalid channel name '${name}'`);
  return { stream_id: channel.stream_id };
}

/**
 * Zulip's address is `<name>.<token>.show-sender@<gateway host>`, one token per channel, creator and
 * sender; no sender (or the email gateway bot) is keyed `gateway`. A `sender_id` other than the
 * caller must be a bot the caller owns or, for administrators, any bot (Zulip's access_bot_by_id).
 */
function getStreamEmailAddress(ctx: RouteContext) {
  const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'content');
  const senderId = ctx.settings.featureLevel >= featureLevels.channelEmailSender ? ctx.params.optInt('sender_id') : undefined;
  let sender = 'gateway';
  if (senderId !== undefined && senderId !== ctx.user.user_id) {
    const bot = ctx.store.users.get(senderId);
    if (!bot?.is_bot) throw badRequest('No such bot');
    if (!ctx.store.isAdmin(ctx.user) && bot.bot_owner_id !== ctx.user.user_id) throw insufficientPermission();
    sender = String(bot.user_id);
  } else if (senderId !== undefined) {
    sender = String(senderId);
  }
  const key = `${channel.stream_id}:${ctx.user.user_id}:${sender}`;
  let token = ctx.store.channelEmailTokens.get(key);
  if (!token) ctx.store.channelEmailTokens.set(key, (token = randomBytes(16).toString('hex')));
  const name = channel.name.replace(/[^\p{L}\p{N}_]+/gu, '-').replace(/^-+|-+$/g, '');
  return { email: `${name}.${token}.show-sender@${new URL(ctx.baseUrl).hostname}` };
}

// ---- register ------------------------------------------------------------------------------------

/** Channels the user can see, as the `streams` register key lists them (archived ones only from FL 378). */
export function visibleChannels(state: { store: Store; user: User; settings: EmulatorSettings; options: StateContext['options'] }): Channel[] {
  const archived = state.settings.featureLevel >= featureLevels.archivedChannelEvents && state.options.capabilities.archived_channels === true;
  return [...state.store.channels.values()]
    .filter((c) => (archived || !c.is_archived) && state.store.canAccessChannelMetadata(state.user, c))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (ctx.wants('stream')) {
    const s = serializer(ctx);
    state.streams = visibleChannels(ctx).map((c) => s.channel(c));
  }
  if (ctx.wants('default_streams')) {
    // Guests do not learn the default channels.
    state.realm_default_streams = ctx.store.isGuest(ctx.user) ? [] : defaultStreamsPayload(ctx);
  }
  return state;
}

export const routes: Route[] = [
  { method: 'GET', path: '/streams', handler: getStreams },
  {
    method: 'GET',
    path: '/streams/:stream_id',
    handler: (ctx) => ({ stream: serializer(ctx).channel(accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata')) }),
  },
  { method: 'PATCH', path: '/streams/:stream_id', handler: updateStream },
  { method: 'DELETE', path: '/streams/:stream_id', handler: archiveStream },
  { method: 'GET', path: '/users/me/:stream_id/topics', handler: getStreamTopics },
  { method: 'GET', path: '/get_stream_id', handler: getStreamId },
  { method: 'GET', path: '/streams/:stream_id/email_address', handler: getStreamEmailAddress },
];
