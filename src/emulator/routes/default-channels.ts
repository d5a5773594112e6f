/**
 * Default channels: `POST` and `DELETE /default_streams` (https://zulip.com/api/add-default-stream,
 * https://zulip.com/api/remove-default-stream), with the `default_streams` event. The list lives in
 * `Store.defaultChannelIds`; its register state and the `is_default_stream` paths are in channels.ts
 * and subscriptions.ts.
 *
 * As in Zulip (zerver/views/streams.py): both need an organization administrator; the channel must
 * exist, be active and be visible to the caller (else "Invalid channel ID"); a private channel cannot
 * be made default; adding a default channel again changes nothing and sends no event.
 */
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest, invalidChannelId } from '../errors.js';
import type { Channel } from '../store.js';
import { accessChannel, notifyDefaultStreams } from './channels/index.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

function requireAdministrator(ctx: RouteContext): void {
  if (!ctx.store.isAdmin(ctx.user)) throw new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
}

/** Zulip's access_stream_by_id with its default `require_active`. */
function activeChannel(ctx: RouteContext): Channel {
  const channel = accessChannel(ctx, ctx.params.int('stream_id'), 'metadata');
  if (channel.is_archived) throw invalidChannelId();
  return channel;
}

/** https://zulip.com/api/add-default-stream */
function add(ctx: RouteContext): Record<string, unknown> {
  requireAdministrator(ctx);
  const channel = activeChannel(ctx);
  if (channel.invite_only) throw badRequest('Private channels cannot be made default.');
  if (!ctx.store.defaultChannelIds.has(channel.stream_id)) {
    ctx.store.defaultChannelIds.add(channel.stream_id);
    notifyDefaultStreams(ctx);
  }
  return {};
}

/** https://zulip.com/api/remove-default-stream */
function remove(ctx: RouteContext): Record<string, unknown> {
  requireAdministrator(ctx);
  const channel = activeChannel(ctx);
  ctx.store.defaultChannelIds.delete(channel.stream_id);
  notifyDefaultStreams(ctx);
  return {};
}

export const routes: Route[] = [
  { operation: ops.addDefaultStream, handler: add },
  { operation: ops.removeDefaultStream, handler: remove },
];
