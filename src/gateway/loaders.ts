/**
 * Per-request DataLoaders over Zulip's bulk endpoints. A new set is built for every request from
 * that request's connection (context.ts), so cached records never cross credentials
 * (dataloader README, "Creating a new DataLoader per request").
 *
 * Each batch function returns values aligned with its keys and an Error for each key the server
 * did not return, so one missing record fails one field and not the whole list.
 *
 * Cost: within one request `users`, `channels` and `userGroups` make one bulk call each however
 * many keys are loaded; `messages` makes one `GET /messages?message_ids=` per batch.
 */
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { ZulipConnection } from '../zulip/connection.js';
import { ZulipApiError } from '../zulip/errors.js';
import type { Channel } from '../zulip/model/channels.js';
import type { Message } from '../zulip/model/messages.js';
import type { UserGroup } from '../zulip/model/user-groups.js';
import type { User } from '../zulip/model/users.js';
import { getStreamById, getStreams } from '../zulip/routes/channels.js';
import { getMessages } from '../zulip/routes/messages.js';
import { getUserGroups } from '../zulip/routes/user-groups.js';
import { getUsers } from '../zulip/routes/users.js';
import { requireFeatureLevel } from './feature-level.js';

export interface Loaders {
  /** Users by user ID, from one `GET /users`. */
  users: DataLoader<number, User>;
  /** Channels by channel ID, from one `GET /streams` covering every visible channel. */
  channels: DataLoader<number, Channel>;
  /** User groups by group ID, from one `GET /user_groups`. */
  userGroups: DataLoader<number, UserGroup>;
  /** Messages by message ID, batched into `GET /messages?message_ids=[...]` (feature level 300). */
  messages: DataLoader<number, Message>;
}

/** Zulip recommends at most 1000 messages per request (api-spec.md, Limits). */
const MESSAGES_PER_REQUEST = 1000;

/** Error for a key the server did not return: the record does not exist or the caller cannot see it. */
export function notFound(what: string, id: number): GraphQLError {
  return new GraphQLError(`No ${what} with ID ${id} exists or is visible to you.`, {
    extensions: { code: 'NOT_FOUND' },
  });
}

/** Aligns fetched records with the requested keys. */
function alignById<T>(keys: readonly number[], byId: Map<number, T>, what: string): (T | Error)[] {
  return keys.map((id) => byId.get(id) ?? notFound(what, id));
}

/** Runs `fetchAll` at most once per request (the first batch), then serves every batch from it. */
function once<T>(fetchAll: () => Promise<Map<number, T>>): () => Promise<Map<number, T>> {
  let all: Promise<Map<number, T>> | undefined;
  return () => (all ??= fetchAll());
}

export function createLoaders(connection: ZulipConnection): Loaders {
  const allUsers = once(async () => {
    // client_gravatar=false: the gateway hands out avatar URLs, it does not compute gravatars.
    const { members } = await getUsers(connection, { clientGravatar: false });
    return new Map(members.map((user) => [user.user_id, user]));
  });
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

  return {
    users: new DataLoader(async (ids) => alignById(ids, await allUsers(), 'user')),
    channels: new DataLoader(async (ids) => loadChannels(connection, ids, await allChannels())),
    userGroups: new DataLoader(async (ids) => alignById(ids, await allUserGroups(), 'user group')),
    messages: new DataLoader((ids) => loadMessages(connection, ids), { maxBatchSize: MESSAGES_PER_REQUEST }),
  };
}

/**
 * Channels missing from the bulk list (e.g. a private channel the caller was removed from, whose
 * old messages they can still see) are asked for one by one; they are rare.
 */
async function loadChannels(
  connection: ZulipConnection,
  ids: readonly number[],
  listed: Map<number, Channel>,
): Promise<(Channel | Error)[]> {
  return Promise.all(
    ids.map(async (id) => {
      const channel = listed.get(id);
      if (channel) return channel;
      try {
        return (await getStreamById(connection, id)).stream;
      } catch (error) {
        // BAD_REQUEST is how the server says "invalid channel ID"; anything else is a real failure.
        return error instanceof ZulipApiError && error.code === 'BAD_REQUEST' ? notFound('channel', id) : toError(error);
      }
    }),
  );
}

async function loadMessages(connection: ZulipConnection, ids: readonly number[]): Promise<(Message | Error)[]> {
  await requireFeatureLevel({ anonymousConnection: connection }, 300, 'Loading messages by ID');
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
