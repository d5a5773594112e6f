/**
 * The deprecated mark-as-read endpoints: `POST /mark_all_as_read`
 * (https://zulip.com/api/mark-all-as-read), `POST /mark_stream_as_read` and
 * `POST /mark_topic_as_read`, with the `update_message_flags` events Zulip sends for them
 * (zerver/actions/message_flags.py): `all: true` and no message IDs for everything, the IDs
 * marked for a channel or topic (the event is sent even when there were none).
 *
 * As in zerver/views/message_flags.py: the channel must be accessible ("Invalid channel ID"), and a
 * non-empty topic the user has no message in is "No such topic '<topic>'". The emulator never times
 * out between batches, so `complete` is always true.
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { accessChannel } from '../channels/index.js';
import { notifyFlags } from './flags.js';

/** https://zulip.com/api/mark-all-as-read */
export function markAllAsRead(ctx: RouteContext): Record<string, unknown> {
  const uid = ctx.user.user_id;
  ctx.store.flags.get(uid)?.get('unread')?.clear();
  ctx.events.notify([uid], { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [], all: true });
  return { complete: true };
}

/** Marks the user's unread messages of a channel (of one topic, case-insensitively, when given) as read. */
function markChannelRead(ctx: RouteContext, streamId: number, topic?: string): void {
  const { store, user } = ctx;
  const lower = topic?.toLowerCase();
  const ids = store.channelMessageIds(streamId).filter((id) => {
    const m = store.messages.get(id);
    return m !== undefined && m.stream_id === streamId && (lower === undefined || m.topic.toLowerCase() === lower);
  });
  const changed = ids.filter((id) => store.setFlag(user.user_id, id, 'read', true));
  notifyFlags(ctx, user.user_id, 'add', 'read', changed);
}

/** https://zulip.com/api/mark-stream-as-read */
export function markStreamAsRead(ctx: RouteContext): Record<string, unknown> {
  const channel = accessChannel(ctx, ctx.params.int('stream_id'), 'content');
  markChannelRead(ctx, channel.stream_id);
  return {};
}

/** https://zulip.com/api/mark-topic-as-read */
export function markTopicAsRead(ctx: RouteContext): Record<string, unknown> {
  const streamId = ctx.params.int('stream_id');
  const raw = ctx.params.str('topic_name');
  const channel = accessChannel(ctx, streamId, 'content');
  // The organization's display name of the empty topic stands for the empty topic.
  const topic = raw === ctx.store.realm.empty_topic_display_name ? '' : raw;
  if (topic !== '') {
    const lower = topic.toLowerCase();
    const exists = ctx.store.channelMessageIds(channel.stream_id).some((id) => {
      const m = ctx.store.messages.get(id);
      return m !== undefined && m.topic.toLowerCase() === lower && ctx.store.receivedMessage(ctx.user.user_id, m);
    });
    if (!exists) throw badRequest(`No such topic '${topic}'`);
  }
  markChannelRead(ctx, channel.stream_id, topic);
  return {};
}
