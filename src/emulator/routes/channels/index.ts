/**
 * Channels and topics: `GET /streams` (https://zulip.com/api/get-streams), `GET /streams/{id}`
 * (https://zulip.com/api/get-stream-by-id), `PATCH /streams/{id}` (https://zulip.com/api/update-stream),
 * `DELETE /streams/{id}` (https://zulip.com/api/archive-stream) and
 * `GET /users/me/{stream_id}/topics` (https://zulip.com/api/get-stream-topics), plus the `stream`
 * and `default_streams` parts of the register state.
 *
 * Also the channel rules subscriptions and user topics share: the wire serializer, who can see or
 * administer a channel, channel-name and group-setting validation, and the `stream` events.
 */
import type { Route } from '../../context.js';
import { accessChannel } from './access.js';
import { getStreamEmailAddress, getStreamId, getStreams, getStreamTopics } from './read.js';
import { archiveStream, updateStream } from './update.js';
import { serializer } from './wire.js';

export { accessChannel, canAdminister, hasContentAccess, metadataAudience, nonGuestUserIds } from './access.js';
export { defaultStreamsPayload, notifyAccessChange, notifyDefaultStreams, streamDeleteEvent } from './events.js';
export {
  checkCanMakeWebPublic,
  checkChannelName,
  checkDescription,
  parseChannelGroupSetting,
  readRetentionDays,
} from './rules.js';
export { initialState, visibleChannels } from './state.js';
export { ChannelSerializer, serializer } from './wire.js';

export const routes: Route[] = [
  { method: 'GET', path: '/streams', handler: getStreams },
  {
    method: 'GET',
    path: '/streams/:stream_id',
    handler: (ctx) => ({ stream: serializer(ctx).channel(accessChannel(ctx, ctx.pathInt('stream_id'), 'metadata')) }),
  },
  { method: 'PATCH', path: '/streams/:stream_id', handler: updateStream },
  { method: 'DELETE', path: '/streams/:stream_id', handler: archiveStream },
  { method: 'GET', path: '/users/me/:stream_id/topics', handler: getStreamTopics },
  { method: 'GET', path: '/get_stream_id', handler: getStreamId },
  { method: 'GET', path: '/streams/:stream_id/email_address', handler: getStreamEmailAddress },
];
