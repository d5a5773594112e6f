/**
 * Directory fixtures: a directory fed by a real queue of the emulator, registered through
 * src/zulip/routes/events.ts with the directory's register options, and pumped with `GET /events`.
 */
import { type DirectoryRegistry, DIRECTORY_REGISTER_OPTIONS, type Directory } from '../../../src/gateway/directory/index.js';
import type { ZulipConnection } from '../../../src/zulip/connection.js';
import type { Channel } from '../../../src/zulip/model/channels.js';
import { getStreams } from '../../../src/zulip/routes/channels.js';
import { getEvents, registerQueue } from '../../../src/zulip/routes/events.js';
import { getSubscriptions } from '../../../src/zulip/routes/subscriptions.js';
import { getUserGroups } from '../../../src/zulip/routes/user-groups.js';
import { getUsers } from '../../../src/zulip/routes/users.js';

export interface Fed {
  directory: Directory;
  connection: ZulipConnection;
  queueId: string;
  /** Applies what the queue holds now; returns the events. */
  pump(): Promise<{ id: number; type: string }[]>;
  /** Registers a new queue and loads its state (after a lost queue). */
  reload(): Promise<void>;
}

/** Opens `key`'s directory in `registry` and feeds it from a queue of `connection`. */
export async function feed(registry: DirectoryRegistry, key: string, connection: ZulipConnection): Promise<Fed> {
  const directory = registry.open(key);
  const fed: Fed = {
    directory,
    connection,
    queueId: '',
    async pump() {
      const { events } = await getEvents(connection, { queueId: fed.queueId, lastEventId: directory.lastEventId, dontBlock: true });
      directory.applyAll(events);
      return events;
    },
    async reload() {
      const result = await registerQueue(connection, DIRECTORY_REGISTER_OPTIONS);
      fed.queueId = result.queue_id!;
      directory.loadRegisterResponse(result);
    },
  };
  await fed.reload();
  return fed;
}

const byIdOf = <T>(id: (x: T) => number) => (list: readonly T[]) => [...list].sort((a, b) => id(a) - id(b));
const channelsById = byIdOf<Channel>((c) => c.stream_id);

/**
 * What the per-request path (the loaders' bulk endpoints) returns for this connection.
 * @param groups false for guests: GET /user_groups refuses them, though register sends them the groups
 */
export async function perRequest(connection: ZulipConnection, groups = true) {
  const [{ members }, { streams }, { subscriptions }, userGroups] = await Promise.all([
    getUsers(connection, { clientGravatar: false, includeCustomProfileFields: true }),
    getStreams(connection, { includeAll: true, includePublic: true, includeSubscribed: true, includeWebPublic: true, excludeArchived: false }),
    getSubscriptions(connection),
    groups ? getUserGroups(connection).then((r) => r.user_groups) : undefined,
  ]);
  return { users: members, channels: channelsById(streams), subscriptions, ...(groups && { userGroups }) };
}

/** The same four lists from the directory (undefined when it is not ready). */
export function fromDirectory(directory: Directory, groups = true) {
  const channels = directory.allChannels();
  return {
    ...(groups && { userGroups: directory.allUserGroups() }),
    users: directory.allUsers(),
    channels: channels && channelsById(channels),
    // GET /users/me/subscriptions leaves archived channels out.
    subscriptions: directory.subscriptions()?.filter((s) => !s.is_archived),
  };
}
