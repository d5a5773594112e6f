/**
 * Read-your-writes for the live directory: a mutation that changes what the directory holds fences
 * the caller's directory from the moment it starts. While fenced, the caller's lookups take the
 * per-request path (which sees the write); the fence lifts when the queue delivers an event of the
 * kind the write causes (newer than what the directory held when the write began), or
 * `writeFenceMs` after the write finished when no such event comes (a write that changed nothing
 * sends none). A write never waits: it only makes the writer's reads slower for a moment.
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
  // issue 17, users group (api-users).
  createUser: ['realm_user'],
  reactivateUser: ['realm_user'],
  deactivateOwnUser: ['realm_user'],
  updateProfileData: ['realm_user'],
  removeProfileData: ['realm_user'],
  deactivateUserGroup: ['user_group'],
};

/** The event types an operation's writes cause (empty for queries and other mutations). */
export function writeEventTypes(operation: OperationDefinitionNode | undefined): string[] {
  if (operation?.operation !== 'mutation') return [];
  const types = new Set<string>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return [...Object.values(DIRECTORY_WRITES).flat()]; // fragments: be safe
    for (const type of DIRECTORY_WRITES[selection.name.value] ?? []) types.add(type);
  }
  return [...types];
}

/** The envelop plugin: fences the caller's directory around each directory-changing mutation. */
export function directoryWrites(live: LiveDirectories): Plugin<{ connection?: ZulipConnection }> {
  return {
    onExecute({ args }) {
      const connection = args.contextValue.connection;
      const operation = (args.document as DocumentNode).definitions.find(
        (d: DefinitionNode): d is OperationDefinitionNode =>
          d.kind === Kind.OPERATION_DEFINITION && (args.operationName == null || d.name?.value === args.operationName),
      );
      const types = writeEventTypes(operation);
      if (!connection || types.length === 0) return;
      const fence = live.fence(connection, types);
      return {
        onExecuteDone({ result }) {
          const failed = !(Symbol.asyncIterator in result) && result.errors !== undefined && result.data == null;
          fence.done(!failed);
        },
      };
    },
  };
}
