/**
 * Default channels, the channels new users are subscribed to: the `addDefaultChannel` and
 * `removeDefaultChannel` mutations (organization administrators). Whether a channel is one shows on
 * `Channel.isDefault` when listed with `channels(includeDefault: true)`.
 * https://zulip.com/api/add-default-stream
 */
import type { Channel } from '../../zulip/model/channels.js';
import { addDefaultStream, removeDefaultStream } from '../../zulip/routes/default-channels.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { ChannelRef, loadChannel } from './channels/index.js';
import { reaches } from '../zulip-operations.js';

interface DefaultChannelChange {
  channelId: number;
  isDefault: boolean;
}

const DefaultChannelPayloadRef = builder.objectRef<DefaultChannelChange>('DefaultChannelPayload').implement({
  description: 'A channel added to or removed from the default channels.',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', description: 'The channel\u2019s ID.', resolve: (p) => p.channelId }),
    isDefault: t.boolean({ description: 'Whether the channel is now a default channel.', resolve: (p) => p.isDefault }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      description: 'The channel, through the request\u2019s loader (its own isDefault is null: see the payload\u2019s).',
      resolve: (p, _args, ctx): Channel | Promise<Channel> | null => loadChannel(ctx, p.channelId),
    }),
  }),
});

function channelIdArg(id: number): number {
  if (!Number.isSafeInteger(id) || id <= 0) throw badInput('channelId must be a positive channel ID.', { argument: 'channelId' });
  return id;
}

builder.mutationFields((t) => ({
  addDefaultChannel: t.field({
    extensions: reaches('add-default-stream'),
    type: DefaultChannelPayloadRef,
    description:
      'Makes a channel a default channel, one new users join (organization administrators; else BAD_REQUEST). ' +
      'A private channel is refused with BAD_REQUEST ("Private channels cannot be made default."); an unknown, ' +
      'archived or invisible channel with BAD_REQUEST ("Invalid channel ID"). Adding one again changes nothing.',
    args: { channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }) },
    resolve: async (_root, args, ctx) => {
      const channelId = channelIdArg(args.channelId);
      await addDefaultStream(ctx.connection, { streamId: channelId });
      return { channelId, isDefault: true };
    },
  }),
  removeDefaultChannel: t.field({
    extensions: reaches('remove-default-stream'),
    type: DefaultChannelPayloadRef,
    description:
      'Removes a channel from the default channels (organization administrators; else BAD_REQUEST). An unknown, ' +
      'archived or invisible channel is BAD_REQUEST ("Invalid channel ID").',
    args: { channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }) },
    resolve: async (_root, args, ctx) => {
      const channelId = channelIdArg(args.channelId);
      await removeDefaultStream(ctx.connection, { streamId: channelId });
      return { channelId, isDefault: false };
    },
  }),
}));
