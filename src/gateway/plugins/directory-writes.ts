/**
 * Read-your-writes for the live directory: a mutation that changes what the directory holds fences
 * the caller's directory from the moment it starts. While fenced, the caller's lookups take the
 * per-request path (which sees the write); the fence lifts when the queue delivers an event of the
 * kind the write causes (newer than what the directory held when the write began), or
 * `writeFenceMs` after the write finished when no such event comes (a write that changed nothing
 * sends none). A write never waits: it only makes the writer's reads slower for a moment.
 *
 * The message cache (directory/messages/cache.ts) is fenced the same way by the writes that change
 * the messages it holds ({@link MESSAGE_WRITES}).
 */
import { Kind, type DefinitionNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { LiveDirectories } from '../directory/live.js';

/** Mutation fields whose upstream write changes the directory, and the event types that write causes. */
export const DIRECTORY_WRITES: Readonly<Record<string, readonly string[]>> = {
  updateUser: ['realm_user'],
  deactivateUser: ['realm_user'],
  // The own full name is a setting (realm_user update); other settings send no directory event.
  updateSettings: ['realm_user'],
  updateChannel: ['stream'],
  archiveChannel: ['stream'],
  subscribe: ['subscription'],
  unsubscribe: ['subscription'],
  updateSubscriptionSettings: ['subscription'],
  createUserGroup: ['user_group'],
  updateUserGroup: ['user_group'],
  updateUserGroupMembers: ['user_group'],
  // Unread counts (unreads.ts): marking read or unread, muting topics.
  updateMessageFlags: ['update_message_flags'],
  updateMessageFlagsForNarrow: ['update_message_flags'],
  setTopicVisibility: ['user_topic'],
  // Accounts and groups: a user created, reactivated or deactivated, a profile or group changed.
  createUser: ['realm_user'],
  reactivateUser: ['realm_user'],
  deactivateOwnUser: ['realm_user'],
  updateProfileData: ['realm_user'],
  removeProfileData: ['realm_user'],
  deactivateUserGroup: ['user_group'],
  // Joining and leaving several channels in one call.
  updateSubscriptions: ['subscription'],
};

/**
 * Mutation fields whose upstream write changes messages the message cache may hold, and the event
 * types that write causes: the messages themselves, and the names and channels they show.
 */
export const MESSAGE_WRITES: Readonly<Record<string, readonly string[]>> = {
  sendMessage: ['message'],
  editMessage: ['update_message'],
  deleteMessage: ['delete_message'],
  addReaction: ['reaction'],
  removeReaction: ['reaction'],
  updateMessageFlags: ['update_message_flags'],
  updateMessageFlagsForNarrow: ['update_message_flags'],
  markAllAsRead: ['update_message_flags'],
  markChannelAsRead: ['update_message_flags'],
  markTopicAsRead: ['update_message_flags'],
  updateUser: ['realm_user'],
  updateSettings: ['realm_user'],
  updateChannel: ['stream'],
  archiveChannel: ['stream'],
  unsubscribe: ['subscription'],
  // Joining and leaving several channels in one call, as unsubscribe above.
  updateSubscriptions: ['subscription'],
};

/** The event types an operation's writes cause (empty for queries and other mutations), by `writes`. */
export function writeEventTypes(operation: OperationDefinitionNode | undefined, writes: Readonly<Record<string, readonly string[]>> = DIRECTORY_WRITES): string[] {
  if (operation?.operation !== 'mutation') return [];
  const types = new Set<string>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return [...new Set(Object.values(writes).flat())]; // fragments: be safe
    for (const type of writes[selection.name.value] ?? []) types.add(type);
  }
  return [...types];
}

/** The envelop plugin: fences the caller's directory (and message cache) around each mutation that changes them. */
export function useDirectoryWrites(live: LiveDirectories): Plugin<{ connection?: ZulipConnection }> {
  return {
    onExecute({ args }) {
      const connection = args.contextValue.connection;
      const operation = (args.document as DocumentNode).definitions.find(
        (d: DefinitionNode): d is OperationDefinitionNode =>
          d.kind === Kind.OPERATION_DEFINITION && (args.operationName == null || d.name?.value === args.operationName),
      );
      if (!connection || operation?.operation !== 'mutation') return;
      const types = writeEventTypes(operation);
      const messageTypes = live.messages ? writeEventTypes(operation, MESSAGE_WRITES) : [];
      if (types.length === 0 && messageTypes.length === 0) return;
      const fences = [...(types.length > 0 ? [live.fence(connection, types)] : []), ...(messageTypes.length > 0 ? [live.fenceMessages(connection, messageTypes)] : [])];
      return {
        onExecuteDone({ result }) {
          const failed = !(Symbol.asyncIterator in result) && result.errors !== undefined && result.data == null;
          for (const fence of fences) fence.done(!failed);
        },
      };
    },
  };
}
