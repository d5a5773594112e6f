/** The `stream` and `default_streams` events, and who receives them. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { Channel as WireChannel } from '../../../zulip/model/channels.js';
import type { EmulatorSettings, RouteContext } from '../../context.js';
import type { Channel, Store } from '../../store.js';
import { metadataAudience, nonGuestUserIds } from './access.js';
import { serializer } from './wire.js';

// ---- events ------------------------------------------------------------------------------------

/** `stream` / `delete`: only IDs since feature level 343 (`streams` then carries only stream_id). */
export function streamDeleteEvent(settings: EmulatorSettings, channels: WireChannel[]): Record<string, unknown> & { type: string } {
  // TODO(server-10): channelDeleteStreamIds (343); drop the older branch once every supported server has it.
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
  // TODO(server-10): defaultChannelIds (330); drop the older branch once every supported server has it.
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

export function streamUpdate(channel: Channel, property: string, value: unknown, extra: Record<string, unknown> = {}) {
  return { type: 'stream', op: 'update', stream_id: channel.stream_id, name: channel.name, property, value, ...extra };
}
