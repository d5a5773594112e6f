/**
 * The `createChannel` (feature level 417) and `deleteTopic` mutations.
 * https://zulip.com/api/create-channel, https://zulip.com/api/delete-topic
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import { createChannel, deleteTopic } from '../../../zulip/routes/channels.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { reaches } from '../../zulip-operations.js';
import { ChannelRef } from './index.js';
import { MessageRetentionInput, toWireRetention } from './update.js';
import { channelGroupArgs, channelGroupSettings, type ChannelGroupArgs } from './group-args.js';

/** The payload of `deleteTopic`: the topic, its channel, and whether every message went. */
interface DeleteTopicResult {
  channelId: number;
  topicName: string;
  complete: boolean;
}

const DeleteTopicPayloadRef = builder.objectRef<DeleteTopicResult>('DeleteTopicPayload').implement({
  description: 'A topic whose messages were deleted.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel of the topic.', resolve: (p) => p.channelId }),
    channel: t.field({ type: ChannelRef, description: 'The channel of the topic.', resolve: (p, _args, ctx) => ctx.loaders.channel(p.channelId) }),
    topicName: t.exposeString('topicName', { description: 'The topic name as given.' }),
    complete: t.exposeBoolean('complete', {
      description: 'False when the server stopped before deleting every message (it deletes in batches): call again.',
    }),
  }),
});

builder.mutationFields((t) => ({
  createChannel: t.field({
    extensions: reaches('create-channel'),
    type: ChannelRef,
    description:
      'Creates a channel and subscribes the users given (feature level 417). A name in use fails with ' +
      'CHANNEL_ALREADY_EXISTS; guests may not create channels (BAD_REQUEST). Returns the new channel.',
    args: {
      name: t.arg.string({ required: true, description: 'The channel name (not blank).' }),
      description: t.arg.string({ required: false, description: 'The description, as Markdown.' }),
      subscriberIds: t.arg({ type: ['Long'], required: true, description: 'Users to subscribe, by ID (may be empty).' }),
      announce: t.arg.boolean({ required: false, description: 'Have the notification bot announce the channel (default false).' }),
      isPrivate: t.arg.boolean({ required: false, description: 'Create it private (default false).' }),
      isWebPublic: t.arg.boolean({ required: false, description: 'Create it web-public (default false).' }),
      isDefault: t.arg.boolean({ required: false, description: 'Make it a default channel for new users (administrators; default false).' }),
      historyPublicToSubscribers: t.arg.boolean({ required: false, description: 'For a private channel: whether new subscribers see older messages.' }),
      messageRetentionDays: t.arg({ type: MessageRetentionInput, required: false, description: 'How long messages are kept (organization owners only).' }),
      folderId: t.arg({ type: 'Long', required: false, description: 'The channel folder to put it in.' }),
      ...channelGroupArgs(t, 'the new channel'),
    },
    resolve: async (_root, args, ctx) => {
      const a = args as typeof args & ChannelGroupArgs;
      if (a.name.trim() === '') throw badInput('createChannel: `name` must not be blank.', { argument: 'name' });
      await requireFeatureLevel(ctx, featureLevels.createChannel, 'Creating a channel');
      const groups = await channelGroupSettings(ctx, a);
      const { id } = await createChannel(ctx.connection, {
        name: a.name,
        description: a.description ?? undefined,
        subscribers: a.subscriberIds,
        announce: a.announce ?? undefined,
        inviteOnly: a.isPrivate ?? undefined,
        isWebPublic: a.isWebPublic ?? undefined,
        isDefaultStream: a.isDefault ?? undefined,
        historyPublicToSubscribers: a.historyPublicToSubscribers ?? undefined,
        messageRetentionDays: a.messageRetentionDays ? toWireRetention(a.messageRetentionDays) : undefined,
        folderId: a.folderId ?? undefined,
        ...groups,
      });
      return ctx.loaders.channel(id);
    },
  }),
  deleteTopic: t.field({
    extensions: reaches('delete-topic'),
    type: DeleteTopicPayloadRef,
    description:
      'Deletes every message of a topic that the caller can see (organization administrators: UNAUTHORIZED_PRINCIPAL ' +
      'otherwise). The server deletes in batches: when `complete` is false, call again.',
    args: {
      channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }),
      topicName: t.arg.string({ required: true, description: 'The topic ("" is the empty topic, from feature level 334).' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.topicName === '') await requireFeatureLevel(ctx, featureLevels.emptyTopicName, 'The empty topic');
      const result = await deleteTopic(ctx.connection, { streamId: args.channelId, topicName: args.topicName });
      // Before feature level 211 a success response meant the whole topic was deleted.
      return { channelId: args.channelId, topicName: args.topicName, complete: result.complete ?? true };
    },
  }),
}));
