/**
 * Wire types for personal topic preferences (https://zulip.com/api/update-user-topic), snake_case
 * as sent.
 */

/**
 * 0 none (inherit the channel's), 1 muted, 2 unmuted (feature level 170), 3 followed (feature
 * level 219). In an unmuted channel, unmuted behaves like none.
 */
export type VisibilityPolicy = 0 | 1 | 2 | 3;

/** The named values of {@link VisibilityPolicy}. */
export const VisibilityPolicies = { NONE: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

/** One (channel, topic) preference, as in the `user_topics` register state and `user_topic` events. */
export interface UserTopic {
  stream_id: number;
  topic_name: string;
  /** UNIX seconds of the last change. */
  last_updated: number;
  visibility_policy: VisibilityPolicy;
}
