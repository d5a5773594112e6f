/**
 * Personal topic preferences: the `VisibilityPolicy` enum and the `setTopicVisibility` mutation
 * (`POST /user_topics`, or the deprecated mute-topic endpoint on servers before feature level 170).
 * https://zulip.com/api/update-user-topic
 */
import type { VisibilityPolicy } from '../../zulip/model/user-topics.js';
import { muteTopic, updateUserTopic } from '../../zulip/routes/user-topics.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import { getFeatureLevel, requireFeatureLevel } from '../upstream/feature-level.js';
import { ChannelRef, channelOrNull } from './channels/index.js';
import { reaches } from '../zulip-operations.js';

export const VisibilityPolicyEnum = builder.enumType('VisibilityPolicy', {
  description: "The caller's visibility policy for a topic. https://zulip.com/help/mute-a-topic",
  values: {
    NONE: { value: 0, description: "No policy: the topic follows its channel's muting." },
    MUTED: { value: 1, description: 'Muted: hidden from unread counts and the combined feed.' },
    UNMUTED: { value: 2, description: 'Unmuted in a muted channel; in an unmuted channel it behaves like NONE.' },
    FOLLOWED: { value: 3, description: 'Followed: notifications as configured for followed topics (feature level 219).' },
  } as const,
});

interface TopicVisibility {
  stream_id: number;
  topic: string;
  policy: VisibilityPolicy;
}

const TopicVisibilityRef = builder.objectRef<TopicVisibility>('TopicVisibility').implement({
  description: "The caller's visibility policy for one topic of a channel.",
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel.', resolve: (v) => v.stream_id }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel; null when the caller cannot see it.',
      resolve: (v, _args, ctx) => channelOrNull(ctx, v.stream_id),
    }),
    topic: t.exposeString('topic', { description: 'The topic, as given.' }),
    policy: t.field({ type: VisibilityPolicyEnum, description: 'The policy now in effect.', resolve: (v) => v.policy }),
  }),
});

builder.mutationField('setTopicVisibility', (t) =>
  t.field({
    extensions: reaches('update-user-topic', 'mute-topic'),
    type: TopicVisibilityRef,
    description:
      'Mutes, unmutes, follows a topic, or removes the policy (NONE); works for topics without messages too. ' +
      '`(no topic)` and the empty-topic display name mean the empty topic. Feature level 170 (FOLLOWED: 219); below ' +
      'it, MUTED and NONE go through the legacy mute-topic endpoint, which refuses to mute a muted topic or to clear ' +
      'a topic that is not muted (BAD_REQUEST), and UNMUTED is UNSUPPORTED_BY_SERVER.',
    args: {
      channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }),
      topic: t.arg.string({ required: true, description: 'The topic.' }),
      policy: t.arg({ type: VisibilityPolicyEnum, required: true, description: 'The new policy.' }),
    },
    resolve: async (_root, args, ctx) => {
      const policy = args.policy as VisibilityPolicy;
      const followed = policy === 3;
      // Servers before feature level 170 can only mute and unmute, through the legacy endpoint.
      if ((policy === 0 || policy === 1) && (await getFeatureLevel(ctx)) < featureLevels.userTopics) {
        await muteTopic(ctx.connection, { streamId: args.channelId, topic: args.topic, op: policy === 1 ? 'add' : 'remove' });
        return { stream_id: args.channelId, topic: args.topic, policy };
      }
      await requireFeatureLevel(
        ctx,
        followed ? featureLevels.followedTopics : featureLevels.userTopics,
        followed ? 'Following a topic' : 'Setting a topic visibility policy',
      );
      await updateUserTopic(ctx.connection, { streamId: args.channelId, topic: args.topic, visibilityPolicy: policy });
      return { stream_id: args.channelId, topic: args.topic, policy };
    },
  }),
);
