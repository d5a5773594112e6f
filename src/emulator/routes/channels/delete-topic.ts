/**
 * `POST /streams/{stream_id}/delete_topic` (https://zulip.com/api/delete-topic).
 *
 * As in Zulip (zerver/views/streams.py, delete_in_topic): organization administrators only
 * (`require_realm_admin`); the channel must be one the caller can read; the topic matches
 * case-insensitively and the organization's display name of the empty topic means the empty
 * topic (feature level 334); only the messages the caller can see are deleted (in a private
 * channel with protected history, those after they joined); the users' topic visibility
 * policies for the topic are dropped. One `delete_message` event per listener, with
 * `message_ids` for the `bulk_message_deletion` capability, else one event per message. The
 * emulator never times out, so `complete` is always true (absent before feature level 211).
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import { requireRealmAdmin } from '../../admin.js';
import type { RouteContext } from '../../context.js';
import type { Message } from '../../store.js';
import { messageListeners } from '../messages/access.js';
import { accessChannel } from './access.js';

/** Zulip 8.0 (211): the response carries `complete`. */
const DELETE_TOPIC_COMPLETE = 211;

export function deleteTopic(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'content');
  let topic = ctx.params.str('topic_name');
  // TODO(server-10): emptyTopicName (334); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel >= featureLevels.emptyTopicName && topic === ctx.store.realm.empty_topic_display_name) topic = '';
  const key = topic.toLowerCase();
  const doomed: Message[] = [];
  for (const id of ctx.store.channelMessageIds(channel.stream_id)) {
    const m = ctx.store.messages.get(id);
    if (m && m.topic.toLowerCase() === key && ctx.store.canSeeMessage(ctx.user, m)) doomed.push(m);
  }
  // Listeners are taken before the messages go: afterwards nobody can see them.
  const byListener = new Map<number, number[]>();
  for (const m of doomed) {
    for (const userId of messageListeners(ctx.store, m).add(ctx.user.user_id)) {
      const ids = byListener.get(userId);
      if (ids) ids.push(m.id);
      else byListener.set(userId, [m.id]);
    }
  }
  for (const m of doomed) ctx.store.messages.delete(m.id);
  for (const perUser of ctx.store.userTopics.values()) perUser.delete(ctx.store.userTopicKey(channel.stream_id, topic));

  const base = { type: 'delete_message', message_type: 'stream', stream_id: channel.stream_id, topic: doomed[0]?.topic ?? topic };
  for (const [userId, ids] of byListener) {
    ctx.events.notify([userId], (queue) => (queue.options.capabilities.bulk_message_deletion ? { ...base, message_ids: ids } : null));
    for (const id of ids) {
      ctx.events.notify([userId], (queue) => (queue.options.capabilities.bulk_message_deletion ? null : { ...base, message_id: id }));
    }
  }
  // TODO(server-8): DELETE_TOPIC_COMPLETE (211); drop the older branch once every supported server has it.
  return ctx.settings.featureLevel >= DELETE_TOPIC_COMPLETE ? { complete: true } : {};
}
