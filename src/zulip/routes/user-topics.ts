/** Bindings for personal topic preferences. */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import type { VisibilityPolicy } from '../model/user-topics.js';
import * as ops from '../generated/user-topics.js';

export interface UpdateUserTopicOptions {
  streamId: number;
  /** The topic; `(no topic)` and the organization's empty-topic display name mean the empty topic. */
  topic: string;
  /** 0 none, 1 muted, 2 unmuted, 3 followed (feature level 219). */
  visibilityPolicy: VisibilityPolicy;
}

/**
 * Sets the caller's visibility policy for one topic; succeeds even if the topic has no messages.
 * New in feature level 170.
 * https://zulip.com/api/update-user-topic
 */
export function updateUserTopic(
  connection: ZulipConnection,
  options: UpdateUserTopicOptions,
  call: SendOptions = {},
): Promise<SendResult<Record<string, never>>> {
  return ops.updateUserTopic(connection, options, call);
}

/**
 * The deprecated way to mute (`op: 'add'`) or unmute (`op: 'remove'`) a topic, for servers before
 * feature level 170 (which have no `POST /user_topics`). Refuses to mute a muted topic ("Topic
 * already muted") or unmute one that is not muted ("Topic is not muted").
 * https://zulip.com/api/mute-topic
 */
export const muteTopic = (connection: ZulipConnection, params: ops.MuteTopicParams, call?: SendOptions): Promise<object> =>
  ops.muteTopic(connection, params, call);
