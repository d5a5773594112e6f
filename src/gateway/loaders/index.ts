/**
 * Per-request DataLoaders over Zulip's bulk endpoints. A new set is built for every request from
 * that request's connection (context.ts), so cached records never cross credentials
 * (dataloader README, "Creating a new DataLoader per request").
 *
 * Each batch function returns values aligned with its keys and an Error for each key the server
 * did not return, so one missing record fails one field and not the whole list.
 *
 * Cost: with the caller's live directory ready (directory/live.ts), `users`, `channels` and
 * `userGroups` cost no upstream call. Without it, `channels` and `userGroups` make one bulk call
 * each per request however many keys are loaded, and `users` picks by feature level and batch size
 * (users.ts): `GET /users?user_ids=` per batch, a few `GET /users/{id}`, or one `GET /users`.
 * `messages` makes one `GET /messages?message_ids=` per batch; the content loaders (content.ts) one
 * per page. `memo` holds the other per-request values (memo.ts).
 */
import DataLoader from 'dataloader';
import type { GraphQLError } from 'graphql';
import type { ZulipConnection } from '../../zulip/connection.js';
import { ZulipErrorCode } from '../../zulip/error-codes.js';
import { ZulipApiError } from '../../zulip/errors.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Channel } from '../../zulip/model/channels.js';
import type { Message } from '../../zulip/model/messages.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import { getStreamById, getStreams } from '../../zulip/routes/channels.js';
import { getMessages } from '../../zulip/routes/messages.js';
import { getUserGroups } from '../../zulip/routes/user-groups.js';
import type { Directory } from '../directory/directory.js';
import { notFoundError } from '../errors.js';
import { requireFeatureLevel, type FeatureLevelSource } from '../upstream/feature-level.js';
import { ContentLoaders, MESSAGES_PER_REQUEST } from './content.js';
import { RequestMemo } from './memo.js';
import { perRequestUsers } from './users.js';
import type { UpstreamServer } from '../upstream/server.js';

export { ContentLoaders, type ContentFormat } from './content.js';
export { RequestMemo, SharedValue, memoKey, type MemoKey } from './memo.js';

export interface Loaders {
  /** Users by user ID: the live directory, else per request (users.ts). */
  users: DataLoader<number, User>;
  /** Channels by channel ID, from one `GET /streams` covering every visible channel. */
  channels: DataLoader<number, Channel>;
  /** User groups by group ID, from one `GET /user_groups`. */
  userGroups: DataLoader<number, UserGroup>;
  /** Messages by message ID, batched into `GET /messages?message_ids=[...]` (feature level 300). */
  messages: DataLoader<number, Message>;
  /** Message content in the other format than a page was fetched in (content.ts). */
  content: ContentLoaders;
  /** Other values computed at most once per request (memo.ts). */
  memo: RequestMemo;
  /**
   * A user by ID as `users.load` gives it, but without a promise when the live directory has them
   * and this request has not loaded them otherwise: a page of messages then resolves its senders
   * and reactions synchronously, without a promise and a tick per sender (README, Performance).
   */
  user(id: number): User | Promise<User>;
  /** A channel by ID, the same way (`channels`). */
  channel(id: number): Channel | Promise<Channel>;
  /**
   * The caller's live directory when this request may answer from it (ready, not fenced by a
   * write), else undefined: for fields that answer from it with no call, or with one call without it.
   */
  directory(): Directory | undefined;
}

/** Error for a key the server did not return: the record does not exist or the caller cannot see it. */
export function notFound(what: string, id: number): GraphQLError {
  return notFoundError(`No ${what} with ID ${id} exists or is visible to you.`);
}

/** Aligns fetched records with the requested keys. */
function alignById<T>(keys: readonly number[], byId: Map<number, T>, what: string): (T | Error)[] {
  return keys.map((id) => byId.get(id) ?? notFound(what, id));
}

/** Records aligned with `keys` (undefined: not there or not visible) as loader values. */
function found<T>(keys: readonly number[], records: readonly (T | undefined | Error)[], what: string): (T | Error)[] {
  return keys.map((id, i) => records[i] ?? notFound(what, id));
}

/**
 * The directory's records, with the IDs it lacks asked per request: a record created a moment ago
 * may be referenced (by a message) before its creation event reached the directory.
 */
async function fromDirectory<T>(
  ids: readonly number[],
  known: readonly (T | undefined)[] | undefined,
  perRequest: (ids: readonly number[]) => Promise<readonly (T | undefined | Error)[]>,
): Promise<readonly (T | undefined | Error)[]> {
  if (!known) return perRequest(ids);
  const missing = ids.filter((_, i) => known[i] === undefined);
  if (missing.length === 0) return known;
  const fetched = await perRequest(missing);
  const byId = new Map(missing.map((id, i) => [id, fetched[i]]));
  return ids.map((id, i) => known[i] ?? byId.get(id));
}

function byIds<T>(keys: readonly number[], records: Map<number, T> | readonly (T | undefined)[]): (T | undefined)[] {
  return records instanceof Map ? keys.map((id) => records.get(id)) : [...records];
}

/** Runs `fetchAll` at most once per request (the first batch), then serves every batch from it. */
function once<T>(fetchAll: () => Promise<Map<number, T>>): () => Promise<Map<number, T>> {
  let all: Promise<Map<number, T>> | undefined;
  return () => (all ??= fetchAll());
}

/**
 * The loaders of one request (or of one event batch, see schema/events) as `connection`'s caller;
 * `server` is the gateway's shared state about the chat server (its feature level). They are built
 * at their first use: every GraphQL subscription has a context of its own for as long as it is open,
 * yet resolves its events with the loaders of each event batch (schema/events/stream.ts), so most
 * of those contexts never use theirs.
 */
export function createLoaders(connection: ZulipConnection, server: UpstreamServer): Loaders {
  return new LazyLoaders(connection, server);
}

class LazyLoaders implements Loaders {
  private built: Loaders | undefined;

  constructor(
    private readonly connection: ZulipConnection,
    private readonly server: UpstreamServer,
  ) {}

  private get all(): Loaders {
    return (this.built ??= buildLoaders(this.connection, this.server));
  }

  get users() {
    return this.all.users;
  }
  get channels() {
    return this.all.channels;
  }
  get userGroups() {
    return this.all.userGroups;
  }
  get messages() {
    return this.all.messages;
  }
  get content() {
    return this.all.content;
  }
  get memo() {
    return this.all.memo;
  }
  user(id: number) {
    return this.all.user(id);
  }
  channel(id: number) {
    return this.all.channel(id);
  }
  directory() {
    return this.all.directory();
  }
}

function buildLoaders(connection: ZulipConnection, server: UpstreamServer): Loaders {
  const levels: FeatureLevelSource = { anonymousConnection: connection, server };
  // The caller's live directory, asked at the first lookup (not before: a request that looks
  // nothing up starts no queue) and kept for the request: whether a request uses it does not change
  // halfway because the load finished meanwhile. A mutation fences it before anything resolves
  // (plugins/directory-writes.ts); the object reads its current data (or none, once dropped) each time.
  // Undefined (off, anonymous, still loading when first asked, fenced by a write): per request.
  let asked = false;
  let current: Directory | undefined;
  const directory = (): Directory | undefined => {
    if (!asked) [asked, current] = [true, server.directories?.forRequest(connection)?.ifReady()];
    return current;
  };
  const usersPerRequest = perRequestUsers(connection, server, server.userIdsBatchThreshold);
  const allChannels = once(async () => {
    // include_all covers every channel with metadata access (feature level 356); the other flags
    // cover older servers, which report include_all in ignored_parameters_unsupported.
    const { streams } = await getStreams(connection, {
      includeAll: true,
      includePublic: true,
      includeSubscribed: true,
      includeWebPublic: true,
      excludeArchived: false,
    });
    return new Map(streams.map((channel) => [channel.stream_id, channel]));
  });
  const allUserGroups = once(async () => {
    const { user_groups } = await getUserGroups(connection);
    return new Map(user_groups.map((group) => [group.id, group]));
  });

  // Loader caches that `user`/`channel` can consult: one version of a record per request.
  const userCache = new Map<number, Promise<User>>();
  const channelCache = new Map<number, Promise<Channel>>();
  const users = new DataLoader<number, User>(
    async (ids) => found(ids, await fromDirectory(ids, directory()?.usersById(ids), usersPerRequest), 'user'),
    { cacheMap: userCache },
  );
  const channels = new DataLoader<number, Channel>(
    async (ids) => {
      const known = directory()?.channelsById(ids);
      return loadChannels(connection, ids, known ? byIds(ids, known) : await allChannels(), known && directory());
    },
    { cacheMap: channelCache },
  );

  return {
    users,
    channels,
    user: (id) => now(userCache, users, id, () => directory()?.userById(id)),
    channel: (id) => now(channelCache, channels, id, () => directory()?.channelById(id)),
    directory,
    userGroups: new DataLoader(async (ids) => {
      const groupsPerRequest = async (missing: readonly number[]) => byIds(missing, await allUserGroups());
      return found(ids, await fromDirectory(ids, directory()?.userGroupsById(ids), groupsPerRequest), 'user group');
    }),
    messages: new DataLoader((ids) => loadMessages(connection, levels, ids), { maxBatchSize: MESSAGES_PER_REQUEST }),
    content: new ContentLoaders(connection, levels),
    memo: new RequestMemo(),
  };
}

/** The directory's record when this request has not loaded `id` through `loader` yet (then it is primed), else the loader's. */
function now<T>(cache: Map<number, Promise<T>>, loader: DataLoader<number, T>, id: number, read: () => T | undefined): T | Promise<T> {
  if (!cache.has(id)) {
    const record = read();
    if (record !== undefined) {
      loader.prime(id, record);
      return record;
    }
  }
  return loader.load(id);
}

/**
 * Channels missing from the bulk list (e.g. a private channel the caller was removed from, whose
 * old messages they can still see) are asked for one by one; they are rare. The live directory
 * (when `listed` came from it) remembers the ones the server refused, until its channels change.
 */
async function loadChannels(
  connection: ZulipConnection,
  ids: readonly number[],
  listed: Map<number, Channel> | readonly (Channel | undefined)[],
  directory?: Directory,
): Promise<(Channel | Error)[]> {
  return Promise.all(
    ids.map(async (id, i) => {
      const channel = listed instanceof Map ? listed.get(id) : listed[i];
      if (channel) return channel;
      if (directory?.isMissingChannel(id)) return notFound('channel', id);
      try {
        return (await getStreamById(connection, id)).stream;
      } catch (error) {
        // BAD_REQUEST is how the server says "invalid channel ID"; anything else is a real failure.
        if (!(error instanceof ZulipApiError && error.code === ZulipErrorCode.badRequest)) return toError(error);
        directory?.noteMissingChannel(id);
        return notFound('channel', id);
      }
    }),
  );
}

async function loadMessages(
  connection: ZulipConnection,
  levels: FeatureLevelSource,
  ids: readonly number[],
): Promise<(Message | Error)[]> {
  await requireFeatureLevel(levels, featureLevels.messageIds, 'Loading messages by ID');
  const { messages } = await getMessages(connection, {
    messageIds: [...ids],
    narrow: [],
    clientGravatar: false,
    applyMarkdown: true,
  });
  return alignById(ids, new Map(messages.map((message) => [message.id, message])), 'message');
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
