/**
 * The caller's unread counts for one request: from the credential's live directory (0 upstream
 * calls once it is loaded), else from a registration of their own.
 *
 * Zulip has no endpoint that counts unreads: `GET /messages` pages through messages (a caller with
 * thousands of unreads would need many pages, and still not know the muted topics), and only
 * `POST /register` sends `unread_msgs` (https://zulip.com/api/register-queue). So:
 * - with the live directory on, a request waits for the credential's queue to be registered (it
 *   is being registered anyway) and for the caller's own flag writes to be applied (read-your-
 *   writes), then reads the directory;
 * - with it off (or when the directory cannot load in time), the request registers a queue that
 *   fetches only the unread state, the subscriptions and the topic preferences, and deletes it at
 *   once; `GET /users/me` (in parallel) gives the caller's ID, which the register state has only
 *   with the whole user list (`realm_user`). Three upstream calls: the cheapest exact answer the
 *   API allows.
 */
import { GraphQLError } from 'graphql';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import { deleteQueue, registerQueue } from '../../zulip/routes/events.js';
import { getOwnUser } from '../../zulip/routes/users.js';
import type { UpstreamServer } from '../upstream/server.js';
import { snapshotUnreads } from '../directory/register.js';
import { Unreads, type UnreadsView } from '../directory/unreads.js';
import { GatewayErrorCode } from '../errors.js';

/** How long a request waits for its credential's directory before registering on its own. */
const SETTLE_TIMEOUT_MS = 10_000;

/** The register state the one-shot registration asks for (`unread_msgs` needs both message types). */
const ONE_SHOT_FETCH_TYPES = ['message', 'update_message_flags', 'user_topic', 'subscription'];

export async function loadUnreads(server: UpstreamServer, connection: ZulipConnection): Promise<UnreadsView> {
  if (!connection.credentials) {
    throw new GraphQLError('Unread counts need credentials.', { extensions: { code: GatewayErrorCode.unauthenticated } });
  }
  const directory = await server.directories?.settled(connection, SETTLE_TIMEOUT_MS);
  const view = directory?.unreads();
  if (view) return view;
  return oneShot(connection);
}

async function oneShot(connection: ZulipConnection): Promise<UnreadsView> {
  const [registered, self] = await Promise.allSettled([
    registerQueue(connection, {
      // A queue cannot be registered without event types; it lives only until deleted below.
      eventTypes: ['message'],
      fetchEventTypes: ONE_SHOT_FETCH_TYPES,
      // archived_channels: the subscriptions then include archived channels, whose unread
      // messages Zulip still counts (as the live directory, registered with it, does).
      clientCapabilities: { notification_settings_null: true, archived_channels: true },
    }),
    getOwnUser(connection),
  ]);
  if (registered.status === 'rejected') throw registered.reason;
  const result = registered.value;
  try {
    if (self.status === 'rejected') throw self.reason;
    const { unreads, userTopics, subscriptions } = snapshotUnreads({ ...result, user_id: self.value.user_id });
    const selfId = self.value.user_id;
    const byId = new Map<number, Subscription>(subscriptions.map((s) => [s.stream_id, s]));
    return new Unreads(unreads, userTopics, selfId).view((id) => byId.get(id));
  } finally {
    if (result.queue_id) await deleteQueue(connection, { queueId: result.queue_id }, { retry: false }).catch(() => undefined);
  }
}
