/**
 * `User.subscribedChannelIds` and `User.subscribedChannels` (feature level 440): the channels a
 * user is subscribed to, as far as the caller may see their subscribers
 * (https://zulip.com/api/get-user-channels). Both fields of one user share one upstream request.
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { Channel } from '../../../zulip/model/channels.js';
import type { User } from '../../../zulip/model/users.js';
import { getUserChannels } from '../../../zulip/routes/subscriptions.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { memoKey } from '../../loaders/index.js';
import { reaches } from '../../zulip-operations.js';
import { channelOrNull, ChannelRef } from '../channels/index.js';
import { UserRef } from '../users.js';

/** Per request: a user's subscribed channel IDs, asked at most once per user. */
const userChannelLists = memoKey<Map<number, Promise<number[]>>>('user channels');

function subscribedChannelIds(ctx: Context, user: User): Promise<number[]> {
  return ctx.loaders.memo.getFor(userChannelLists, user.user_id, async () => {
    await requireFeatureLevel(ctx, featureLevels.userChannels, 'A user\u2019s subscribed channels');
    return (await getUserChannels(ctx.connection, { userId: user.user_id })).subscribed_channel_ids;
  });
}

builder.objectFields(UserRef, (t) => ({
  subscribedChannelIds: t.field({
    extensions: reaches('get-user-channels'),
    type: ['Long'],
    description:
      'The IDs of the channels this user is subscribed to, among those whose subscribers the caller may see (all of them ' +
      'for an administrator). Feature level 440 (else UNSUPPORTED_BY_SERVER); one upstream request per user.',
    resolve: (user, _args, ctx) => subscribedChannelIds(ctx, user),
  }),
  subscribedChannels: t.field({
    extensions: reaches('get-user-channels'),
    type: [ChannelRef],
    description: 'The channels of `subscribedChannelIds`, loaded like `channel` (the same upstream request for the IDs).',
    resolve: async (user, _args, ctx): Promise<Channel[]> => {
      const channels = await Promise.all((await subscribedChannelIds(ctx, user)).map((id) => channelOrNull(ctx, id)));
      return channels.filter((c): c is Channel => c !== null);
    },
  }),
}));
