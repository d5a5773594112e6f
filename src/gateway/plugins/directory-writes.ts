/**
 * Read-your-writes for the live directory: a mutation that changes what the directory holds fences
 * the caller's directory from the moment it starts. While fenced, the caller's lookups take the
 * per-request path (which sees the write); the fence lifts when the queue delivers an event of the
 * kind the write causes (newer than what the directory held when the write began), or
 * `writeFenceMs` after the write finished when no such event comes (a write that changed nothing
 * sends none). A write never waits: it only makes the writer's reads slower for a moment.
 *
 * Which writes fence is derived, never listed: each mutation field declares the event types its
 * write causes (`zulip: { writes }`, facts.ts). The directory is fenced by those it applies
 * ({@link DIRECTORY_EVENT_TYPES}), the message cache (directory/messages/cache.ts) by those that
 * change the messages it holds ({@link changesCachedMessages}).
 *
 * In cluster mode each instance has its own directory, kept current by the same Redis log, so a
 * write on one instance must fence the others too: before the write runs, its event types go into
 * the credential's `writes` hash in Redis (cluster.ts `fenceWrites`), for at most the operation's
 * deadline and `writeFenceMs`; once the writer's directory applied the write's event, the hash
 * says which (`liftWrites`). A query on any other instance that its directory would answer first
 * asks that hash (one Redis call), and fences its own directory and message cache by the writes
 * whose event it has not applied yet, as the writer's own are fenced. Without Redis at that
 * moment, a write is not held up and fences only its own instance.
 */
import { Kind, type DefinitionNode, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { EventCluster } from '../cluster/cluster.js';
import type { LiveDirectories } from '../directory/live.js';
import { changesCachedMessages } from '../directory/messages/events.js';
import { DIRECTORY_EVENT_TYPES } from '../directory/register.js';
import { factsOf } from '../facts.js';

/** Per mutation field, the event types its write causes that the directory and the message cache apply. */
export interface WriteFences {
  directory: ReadonlyMap<string, readonly string[]>;
  messages: ReadonlyMap<string, readonly string[]>;
}

/** The fences of each mutation field of `schema`, from its declared `writes`. */
export function writeFences(schema: GraphQLSchema): WriteFences {
  const directory = new Map<string, readonly string[]>();
  const messages = new Map<string, readonly string[]>();
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const writes = factsOf(field)?.writes ?? [];
    const applied = writes.filter((type) => DIRECTORY_EVENT_TYPES.includes(type));
    const shown = writes.filter(changesCachedMessages);
    if (applied.length > 0) directory.set(field.name, applied);
    if (shown.length > 0) messages.set(field.name, shown);
  }
  return { directory, messages };
}

/** The event types an operation's writes cause (empty for queries and other mutations), by `writes`. */
export function writeEventTypes(operation: OperationDefinitionNode | undefined, writes: ReadonlyMap<string, readonly string[]>, document?: DocumentNode): string[] {
  if (operation?.operation !== 'mutation') return [];
  const types = new Set<string>();
  const fragments = new Map(document?.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const walk = (set: SelectionSetNode, seen: Set<string>): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) for (const type of writes.get(selection.name.value) ?? []) types.add(type);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, seen);
      else if (!seen.has(selection.name.value)) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment) for (const list of writes.values()) for (const type of list) types.add(type); // unknown: be safe
        else walk(fragment, new Set([...seen, selection.name.value]));
      }
    }
  };
  walk(operation.selectionSet, new Set());
  return [...types];
}

/** What of cluster mode the fences use (cluster/cluster.ts). */
export type ClusterWrites = Pick<EventCluster, 'fenceWrites' | 'liftWrites' | 'writeFences'>;

/**
 * The envelop plugin: fences the caller's directory (and message cache) around each mutation that
 * changes them; with `cluster`, every instance's (`deadlineMs`: the operation deadline, how long
 * a write may run).
 */
export function useDirectoryWrites(live: LiveDirectories, cluster?: ClusterWrites, deadlineMs = 0): Plugin<{ connection?: ZulipConnection }> {
  // Computed once per schema this plugin serves (the gateway's and, with SUBGRAPH, the subgraph's).
  const fencesBySchema = new WeakMap<GraphQLSchema, WriteFences>();
  const fencesOf = (schema: GraphQLSchema): WriteFences => {
    let fences = fencesBySchema.get(schema);
    if (!fences) fencesBySchema.set(schema, (fences = writeFences(schema)));
    return fences;
  };
  return {
    onExecute({ args }) {
      const connection = args.contextValue.connection;
      const operation = (args.document as DocumentNode).definitions.find(
        (d: DefinitionNode): d is OperationDefinitionNode =>
          d.kind === Kind.OPERATION_DEFINITION && (args.operationName == null || d.name?.value === args.operationName),
      );
      if (!connection) return;
      const credentials = connection.credentials;
      const directory = operation?.operation === 'query' && cluster && credentials ? live.forRequest(connection) : undefined;
      if (directory && cluster && credentials) {
        // Another instance's write may be under way: its fence is in Redis, not in this directory.
        const fenced = cluster.writeFences(connection.baseUrl, credentials, directory.lastEventId).then(
          (other) => {
            if (other?.directory.length) live.fence(connection, other.directory).done(true);
            if (other?.messages.length) live.fenceMessages(connection, other.messages).done(true);
          },
          () => undefined, // Redis unreachable: this instance's own fences still hold
        );
        return fenced as never;
      }
      if (operation?.operation !== 'mutation') return;
      const fences = fencesOf(args.schema);
      const types = writeEventTypes(operation, fences.directory, args.document);
      const messageTypes = live.messages ? writeEventTypes(operation, fences.messages, args.document) : [];
      if (types.length === 0 && messageTypes.length === 0) return;
      const shared = { directory: types, messages: messageTypes };
      // In cluster mode, once this instance applied the write's event the others are told its id.
      let token: string | undefined;
      const lifted =
        cluster && credentials
          ? (eventId: number) => {
              if (token !== undefined) void cluster.liftWrites(connection.baseUrl, credentials, shared, token, eventId).catch(() => undefined);
            }
          : undefined;
      const held = [...(types.length > 0 ? [live.fence(connection, types, lifted)] : []), ...(messageTypes.length > 0 ? [live.fenceMessages(connection, messageTypes)] : [])];
      const hooks = {
        onExecuteDone({ result }: { result: unknown }) {
          const failed = !(Symbol.asyncIterator in (result as object)) && (result as { errors?: unknown }).errors !== undefined && (result as { data?: unknown }).data == null;
          for (const fence of held) fence.done(!failed);
        },
      };
      if (!cluster || !credentials) return hooks;
      return cluster.fenceWrites(connection.baseUrl, credentials, shared, deadlineMs + live.writeFenceMs).then(
        (written) => {
          token = written;
          return hooks;
        },
        () => hooks,
      ) as never;
    },
  };
}
