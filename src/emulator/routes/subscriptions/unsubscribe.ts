/** `DELETE /users/me/subscriptions` (https://zulip.com/api/unsubscribe). */
import type { RouteContext } from '../../context.js';
import { badRequest, streamDoesNotExistByName } from '../../errors.js';
import type { Channel } from '../../store.js';
import { checkChannelName, metadataAudience, notifyAccessChange } from '../channels/index.js';
import { canRemoveSubscribers } from './permissions.js';
import { push, readPrincipals, readStringList, usableChannel } from './principals.js';

// ---- DELETE /users/me/subscriptions ---------------------------------------------------------------

/** The channels the `subscriptions` parameter names, each once; STREAM_DOES_NOT_EXIST for a name that is none. */
export function channelsToLeave(ctx: RouteContext): Channel[] {
  const channels: Channel[] = [];
  for (const name of readStringList(ctx, 'subscriptions').map((n) => n.trim())) {
    checkChannelName(ctx.settings, name);
    const channel = usableChannel(ctx, ctx.store.channelByName(name));
    if (!channel) throw streamDoesNotExistByName(name);
    if (!channels.includes(channel)) channels.push(channel);
  }
  return channels;
}

export function unsubscribeHandler(ctx: RouteContext) {
  const { store, user } = ctx;
  const channels = channelsToLeave(ctx);
  const principals = readPrincipals(ctx);
  const targets = principals ?? [user];
  // Removing oneself or one's own bot needs no permission; removing anyone else does.
  const removingOthers = targets.some((t) => t.user_id !== user.user_id && !(t.is_bot && t.bot_owner_id === user.user_id));
  if (removingOthers && channels.some((c) => !canRemoveSubscribers(store, user, c))) throw badRequest('Insufficient permission');

  const before = new Map(channels.map((c) => [c.stream_id, new Set(metadataAudience(store, c))]));
  const removed: string[] = [];
  const notRemoved: string[] = [];
  const removedByUser = new Map<number, Channel[]>();
  const altered = new Map<number, Set<number>>();
  for (const target of targets) {
    for (const channel of channels) {
      const sub = store.subscription(channel.stream_id, target.user_id);
      if (!sub) {
        notRemoved.push(channel.name);
        continue;
      }
      store.subscriptions.get(channel.stream_id)!.delete(target.user_id);
      let former = store.formerSubscriptions.get(channel.stream_id);
      if (!former) store.formerSubscriptions.set(channel.stream_id, (former = new Map()));
      former.set(target.user_id, sub);
      removed.push(channel.name);
      push(removedByUser, target.user_id, channel);
      let set = altered.get(channel.stream_id);
      if (!set) altered.set(channel.stream_id, (set = new Set()));
      set.add(target.user_id);
    }
  }
  for (const [userId, list] of removedByUser) {
    ctx.events.notify([userId], {
      type: 'subscription',
      op: 'remove',
      subscriptions: list.map((c) => ({ name: c.name, stream_id: c.stream_id })),
    });
  }
  for (const [streamId, users] of altered) {
    // Users who lost sight of a private channel get `stream` delete.
    const kept = notifyAccessChange(ctx, store.channels.get(streamId)!, before.get(streamId)!);
    const peers = kept.filter((id) => !users.has(id));
    ctx.events.notify(peers, { type: 'subscription', op: 'peer_remove', stream_ids: [streamId], user_ids: [...users].sort((a, b) => a - b) });
  }
  return { removed, not_removed: notRemoved };
}
