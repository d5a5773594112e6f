/** The events of new subscriptions, shared by subscribing (subscribe.ts) and channel creation (channels/create.ts). */
import type { RouteContext } from '../../context.js';
import type { Channel, User } from '../../store.js';
import { notifyAccessChange } from '../channels/events.js';
import { serializer } from '../channels/wire.js';
import { serializeSubscription } from './wire.js';

/**
 * Events of a subscribe: `stream` create to users who could not see a channel before (all of them
 * for a new channel), `subscription` add to each new subscriber with its full subscription
 * objects, and `peer_add` to the others who can see the channel.
 */
export function notifySubscribed(
  ctx: RouteContext,
  subscribed: Map<User, Channel[]>,
  altered: Map<number, Set<number>>,
  before: Map<number, Set<number>>,
): void {
  const { store } = ctx;
  const kept = new Map<number, number[]>();
  for (const [streamId, users] of altered) {
    kept.set(streamId, notifyAccessChange(ctx, store.channels.get(streamId)!, before.get(streamId)!, users));
  }
  const s = serializer(ctx);
  for (const [user, channels] of subscribed) {
    const subscriptions = channels.map((c) =>
      serializeSubscription(s, store, user, c, store.subscription(c.stream_id, user.user_id)!, { includeSubscribers: true, nullSettings: true }),
    );
    ctx.events.notify([user.user_id], { type: 'subscription', op: 'add', subscriptions });
  }
  for (const [streamId, users] of altered) {
    const peers = kept.get(streamId)!.filter((id) => !users.has(id));
    ctx.events.notify(peers, { type: 'subscription', op: 'peer_add', stream_ids: [streamId], user_ids: [...users].sort((a, b) => a - b) });
  }
}
