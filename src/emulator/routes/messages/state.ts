/** The `unread_msgs` and `starred_messages` parts of the register state (https://zulip.com/api/register-queue). */
import type { StateContext } from '../../context.js';
import type { Message, Store, User } from '../../store.js';
import { displayTopic } from './wire.js';

// ---- register state --------------------------------------------------------------------------------

export function isMutedFor(store: Store, userId: number, m: Message): boolean {
  if (m.type !== 'stream') return false;
  const policy = store.userTopics.get(userId)?.get(store.userTopicKey(m.stream_id!, m.topic))?.visibility_policy;
  if (policy === 1) return true;
  if (policy === 2 || policy === 3) return false;
  return store.subscription(m.stream_id!, userId)?.is_muted === true;
}

/** The `unread_msgs` register object (https://zulip.com/api/register-queue, unread_msgs). */
export function unreadMessages(store: Store, user: User, allowEmptyTopicName: boolean): Record<string, unknown> {
  const uid = user.user_id;
  const unread = [...(store.flags.get(uid)?.get('unread') ?? [])].sort((a, b) => a - b);
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  let count = 0;
  for (const id of unread) {
    const m = store.messages.get(id);
    if (!m || !store.receivedMessage(uid, m)) continue;
    const muted = isMutedFor(store, uid, m);
    if (m.type === 'stream') {
      const key = `${m.stream_id}\u0000${m.topic}`;
      let entry = streams.get(key);
      if (!entry) streams.set(key, (entry = { stream_id: m.stream_id!, topic: displayTopic(store, m.topic, allowEmptyTopicName), unread_message_ids: [] }));
      entry.unread_message_ids.push(id);
    } else if (m.dm_user_ids!.length <= 2) {
      const other = m.dm_user_ids!.find((u) => u !== uid) ?? uid;
      pms.set(other, [...(pms.get(other) ?? []), id]);
    } else {
      const key = m.dm_user_ids!.join(',');
      huddles.set(key, [...(huddles.get(key) ?? []), id]);
    }
    if (!muted) count++;
    const direct = store.hasFlag(uid, id, 'mentioned') || store.hasFlag(uid, id, 'group_mentioned');
    const wildcard = store.hasFlag(uid, id, 'stream_wildcard_mentioned') || store.hasFlag(uid, id, 'topic_wildcard_mentioned');
    if (direct || (wildcard && !muted)) mentions.push(id);
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: false,
  };
}

/** Starred messages the user can still read, ascending. */
export function starredMessageIds(store: Store, user: User): number[] {
  const starred = store.flags.get(user.user_id)?.get('starred') ?? new Set<number>();
  return [...starred]
    .filter((id) => {
      const m = store.messages.get(id);
      return m !== undefined && store.canSeeMessage(user, m);
    })
    .sort((a, b) => a - b);
}

/** `unread_msgs` (fetch types `message` and `update_message_flags`) and `starred_messages`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (ctx.wants('message') && ctx.wants('update_message_flags')) {
    state.unread_msgs = unreadMessages(ctx.store, ctx.user, ctx.options.capabilities.empty_topic_name === true);
  }
  if (ctx.wants('starred_messages')) state.starred_messages = starredMessageIds(ctx.store, ctx.user);
  return state;
}
