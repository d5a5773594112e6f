/** Channels as the API sends them (`GET /streams`): Zulip's serializer, with its message statistics. */
import type { Channel as WireChannel, GroupSettingValue as WireGroupSettingValue } from '../../../zulip/model/channels.js';
import type { EmulatorSettings } from '../../context.js';
import type { Channel, GroupSettingValue, Store } from '../../store.js';
import { featureLevels } from '../../../zulip/feature-levels.js';

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
    private readonly featureLevel = 0,
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
      // TODO(server-11): channelFolders (389); drop the older branch once every supported server has it.
      ...(this.featureLevel >= featureLevels.channelFolders ? { folder_id: channel.folder_id ?? null } : {}),
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

export function copyGroupSetting(value: GroupSettingValue): WireGroupSettingValue {
  return typeof value === 'number'
    ? value
    : { direct_members: [...value.direct_members], direct_subgroups: [...value.direct_subgroups] };
}

function streamPostPolicy(store: Store, canSend: GroupSettingValue): number {
  if (typeof canSend !== 'number') return 1;
  const group = store.groups.get(canSend);
  return (group?.is_system_group && POST_POLICY_BY_GROUP[group.name]) || 1;
}

export function serializer(ctx: { store: Store; nowSeconds(): number; settings?: EmulatorSettings }): ChannelSerializer {
  return new ChannelSerializer(ctx.store, ctx.nowSeconds(), ctx.settings?.featureLevel);
}
