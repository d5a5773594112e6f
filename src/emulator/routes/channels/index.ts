/**
 * Channels and topics: `GET /streams` (https://zulip.com/api/get-streams), `GET /streams/{id}`
 * (https://zulip.com/api/get-stream-by-id), `PATCH /streams/{id}` (https://zulip.com/api/update-stream),
 * `DELETE /streams/{id}` (https://zulip.com/api/archive-stream) and
 * `GET /users/me/{stream_id}/topics` (https://zulip.com/api/get-stream-topics), `POST
 * /streams/{id}/delete_topic` (https://zulip.com/api/delete-topic), `POST /channels/create`
 * (https://zulip.com/api/create-channel) and the channel folders (folders.ts), plus the `stream`,
 * `default_streams` and `channel_folders` parts of the register state.
 *
 * Also the channel rules subscriptions and user topics share: the wire serializer, who can see or
 * administer a channel, channel-name and group-setting validation, and the `stream` events.
 */
import type { Route, StateContext } from '../../context.js';
import { accessChannel } from './access.js';
import { createChannel } from './create.js';
import { deleteTopic } from './delete-topic.js';
import { folderRoutes, folderState } from './folders.js';
import { initialState as channelState } from './state.js';
import { getStreamEmailAddress, getStreamId, getStreams, getStreamTopics } from './read.js';
import { archiveStream, updateStream } from './update.js';
import { serializer } from './wire.js';
import { zulipOperations as ops } from '../../../zulip/generated/operations.js';

export { accessChannel, canAdminister, hasContentAccess, metadataAudience, nonGuestUserIds } from './access.js';
export { defaultStreamsPayload, notifyAccessChange, notifyDefaultStreams, streamDeleteEvent } from './events.js';
export {
  checkCanMakeWebPublic,
  checkChannelName,
  checkDescription,
  parseChannelGroupSetting,
  readRetentionDays,
} from './rules.js';
export { visibleChannels } from './state.js';
export { ChannelSerializer, serializer } from './wire.js';
export { checkNewChannelOptions, newChannel, readNewChannelOptions, type CreateOptions, type NewChannelRequest } from './create.js';

export const routes: Route[] = [
  { operation: ops.getStreams, handler: getStreams },
  {
    operation: ops.getStreamById,
    handler: (ctx) => ({ stream: serializer(ctx).channel(accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata')) }),
  },
  { operation: ops.updateStream, handler: updateStream },
  { operation: ops.archiveStream, handler: archiveStream },
  { operation: ops.getStreamTopics, handler: getStreamTopics },
  { operation: ops.getStreamId, handler: getStreamId },
  { operation: ops.getStreamEmailAddress, handler: getStreamEmailAddress },
  // Channels and subscriptions.
  { operation: ops.deleteTopic, handler: deleteTopic },
  { operation: ops.createChannel, handler: createChannel },
  ...folderRoutes,
];

/** The `stream`, `default_streams` and `channel_folders` parts of the register state. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return { ...channelState(ctx), ...folderState(ctx) };
}
