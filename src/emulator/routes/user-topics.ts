/**
 * Personal topic preferences: `POST /user_topics` (https://zulip.com/api/update-user-topic) and the
 * `user_topic` register state and events (https://zulip.com/api/get-events#user_topic), with the legacy `muted_topics`
 * form for clients that did not ask for `user_topic`, and the deprecated `PATCH
 * /users/me/subscriptions/muted_topics` (https://zulip.com/api/mute-topic) that servers before
 * feature level 170 offer instead.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { UserTopic as WireUserTopic, VisibilityPolicy } from '../../zulip/model/user-topics.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest, invalidChannelId } from '../errors.js';
import { checkNoNullBytes } from '../http.js';
import type { Queue } from '../queues.js';
import type { Store, UserTopic } from '../store.js';
import { accessChannel } from './channels/index.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

function serialize(entry: UserTopic): WireUserTopic {
  return {
    stream_id: entry.stream_id,
    topic_name: entry.topic_name,
    last_updated: entry.last_updated,
    visibility_policy: entry.visibility_policy,
  };
}

/** The user's preferences, oldest change first. */
export function userTopicsOf(store: Store, userId: number): WireUserTopic[] {
  return [...(store.userTopics.get(userId)?.values() ?? [])].sort((a, b) => a.last_updated - b.last_updated).map(serialize);
}

/** The deprecated `muted_topics` list: `[channel name, topic, timestamp]` per muted topic. */
function mutedTopics(store: Store, userId: number): [string, string, number][] {
  return userTopicsOf(store, userId)
    .filter((t) => t.visibility_policy === 1 && store.channels.has(t.stream_id))
    .map((t) => [store.channels.get(t.stream_id)!.name, t.topic_name, t.last_updated]);
}

function updateUserTopic(ctx: RouteContext) {
  const { params, settings } = ctx;
  const streamId = params.int('stream_id');
  const topic = checkNoNullBytes('topic', params.str('topic'));
  // TODO(server-8): followedTopics (219); drop the older branch once every supported server has it.
  const allowed: readonly number[] = settings.featureLevel >= featureLevels.followedTopics ? [0, 1, 2, 3] : [0, 1, 2];
  const policy = params.int('visibility_policy') as VisibilityPolicy;
  if (!allowed.includes(policy)) throw badRequest('Invalid visibility_policy');
  return setPolicy(ctx, streamId, topic, policy);
}

/**
 * The deprecated `PATCH /users/me/subscriptions/muted_topics` (https://zulip.com/api/mute-topic):
 * `op` add mutes, remove clears the policy; the channel by `stream_id` or by name (`stream`),
 * exactly one of them. Unlike `POST /user_topics` it refuses to mute a muted topic ("Topic already
 * muted") or to unmute one that is not muted ("Topic is not muted").
 */
function muteTopic(ctx: RouteContext) {
  const { params, store, user } = ctx;
  const streamId = params.optInt('stream_id');
  const streamName = params.optStr('stream');
  if ((streamId === undefined) === (streamName === undefined)) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
  const topic = checkNoNullBytes('topic', params.str('topic'));
  const op = params.str('op');
  if (op !== 'add' && op !== 'remove') throw badRequest('Invalid op');
  const channel = streamId !== undefined ? store.channels.get(streamId) : [...store.channels.values()].find((c) => c.name === streamName);
  if (!channel) throw streamId !== undefined ? invalidChannelId() : badRequest(`Invalid channel name '${streamName}'`);
  if (streamName !== undefined && !store.canAccessChannelContent(user, channel)) throw badRequest(`Invalid channel name '${streamName}'`);
  const current = store.userTopics.get(user.user_id)?.get(store.userTopicKey(channel.stream_id, topic))?.visibility_policy ?? 0;
  if (op === 'add' && current === 1) throw badRequest('Topic already muted');
  if (op === 'remove' && current !== 1) throw badRequest('Topic is not muted');
  return setPolicy(ctx, channel.stream_id, topic, op === 'add' ? 1 : 0);
}

/** Stores a visibility policy (0 removes it) and sends `user_topic` and the legacy `muted_topics` events. */
function setPolicy(ctx: RouteContext, streamId: number, given: string, policy: VisibilityPolicy) {
  const { store, settings, user } = ctx;
  let topic = given;
  if ([...topic].length > settings.maxTopicLength) {
    throw badRequest(`topic is too long (limit: ${settings.maxTopicLength} characters)`);
  }
  // `(no topic)` and the organization's display name for it both mean the empty topic.
  if (topic === '(no topic)' || topic === store.realm.empty_topic_display_name) topic = '';
  // Removing a preference only needs the channel to exist (access may have been lost since).
  if (policy === 0) {
    if (!store.channels.has(streamId)) throw invalidChannelId();
  } else {
    accessChannel(ctx, streamId, 'content');
  }

  let perUser = store.userTopics.get(user.user_id);
  if (!perUser) store.userTopics.set(user.user_id, (perUser = new Map()));
  const key = store.userTopicKey(streamId, topic);
  const existing = perUser.get(key);
  const entry: UserTopic = {
    stream_id: streamId,
    topic_name: existing?.topic_name ?? topic,
    visibility_policy: policy,
    last_updated: ctx.nowSeconds(),
  };
  if (policy === 0) perUser.delete(key);
  else perUser.set(key, entry);

  ctx.events.notify([user.user_id], { type: 'user_topic', ...serialize(entry) });
  // Zulip suppresses the legacy event for queues that asked for user_topic explicitly.
  ctx.events.notify([user.user_id], (queue: Queue) =>
    queue.options.eventTypes?.has('user_topic') ? null : { type: 'muted_topics', muted_topics: mutedTopics(store, user.user_id) },
  );
  return {};
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (ctx.wants('user_topic')) state.user_topics = userTopicsOf(ctx.store, ctx.user.user_id);
  if (ctx.wants('muted_topics')) state.muted_topics = mutedTopics(ctx.store, ctx.user.user_id);
  return state;
}

export const routes: Route[] = [
  { operation: ops.updateUserTopic, handler: updateUserTopic },
  { operation: ops.muteTopic, handler: muteTopic },
];
