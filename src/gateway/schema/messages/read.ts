/**
 * Marking messages as read in bulk: `markAllAsRead`, `markChannelAsRead` and `markTopicAsRead`
 * (Zulip's deprecated mark-as-read endpoints, kept because every server has them). Each sends one
 * request; the server tells the caller's event queues with `update_message_flags` events, which
 * the live unread counts follow. https://zulip.com/api/mark-all-as-read,
 * https://zulip.com/api/mark-stream-as-read, https://zulip.com/api/mark-topic-as-read
 */
import { markAllAsRead, markStreamAsRead, markTopicAsRead } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { reaches } from '../../zulip-operations.js';
import { ChannelRef, loadChannel } from '../channels/index.js';

const MarkAllAsReadPayloadRef = builder.objectRef<{ complete: boolean }>('MarkAllAsReadPayload').implement({
  description: 'The outcome of marking all messages as read.',
  fields: (t) => ({
    complete: t.exposeBoolean('complete', {
      description: 'False when the server stopped after marking some of the messages (it works in batches): send the mutation again.',
    }),
  }),
});

interface MarkedChannel {
  channelId: number;
  topic?: string;
}

const MarkChannelAsReadPayloadRef = builder.objectRef<MarkedChannel>('MarkChannelAsReadPayload').implement({
  description: 'A channel whose messages were all marked as read.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel ID.', resolve: (p) => p.channelId }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel (null, with an error, if it can no longer be seen).',
      resolve: (p, _args, ctx) => loadChannel(ctx, p.channelId),
    }),
  }),
});

const MarkTopicAsReadPayloadRef = builder.objectRef<Required<MarkedChannel>>('MarkTopicAsReadPayload').implement({
  description: 'A topic whose messages were all marked as read.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The ID of the topic\u2019s channel.', resolve: (p) => p.channelId }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The topic\u2019s channel (null, with an error, if it can no longer be seen).',
      resolve: (p, _args, ctx) => loadChannel(ctx, p.channelId),
    }),
    topic: t.exposeString('topic', { description: 'The topic, as given.' }),
  }),
});

builder.mutationFields((t) => ({
  markAllAsRead: t.field({
    extensions: reaches('mark-all-as-read'),
    type: MarkAllAsReadPayloadRef,
    description: 'Marks every unread message of the caller as read. Repeat while the payload\u2019s `complete` is false.',
    resolve: async (_root, _args, ctx) => ({ complete: (await markAllAsRead(ctx.connection)).complete }),
  }),
  markChannelAsRead: t.field({
    extensions: reaches('mark-stream-as-read'),
    type: MarkChannelAsReadPayloadRef,
    description: 'Marks every unread message of a channel as read. A channel the caller cannot read fails with BAD_REQUEST ("Invalid channel ID").',
    args: { channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }) },
    resolve: async (_root, args, ctx) => {
      await markStreamAsRead(ctx.connection, { streamId: args.channelId });
      return { channelId: args.channelId };
    },
  }),
  markTopicAsRead: t.field({
    extensions: reaches('mark-topic-as-read'),
    type: MarkTopicAsReadPayloadRef,
    description:
      'Marks every unread message of a topic as read (topics match case-insensitively). A topic the caller has no ' +
      'message in fails with BAD_REQUEST ("No such topic \u2026"), a channel the caller cannot read with BAD_REQUEST ' +
      '("Invalid channel ID").',
    args: {
      channelId: t.arg({ type: 'Long', required: true, description: 'The topic\u2019s channel.' }),
      topic: t.arg.string({ required: true, description: 'The topic; "" (or the organization\u2019s display name for it) is the empty topic.' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.topic.includes('\u0000')) throw badInput('markTopicAsRead: `topic` must not contain a null byte.', { argument: 'topic' });
      await markTopicAsRead(ctx.connection, { streamId: args.channelId, topicName: args.topic });
      return { channelId: args.channelId, topic: args.topic };
    },
  }),
}));
