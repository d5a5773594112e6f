/**
 * Identical subscriptions run once: the same credential, operation document and variables, on any
 * transport (graphql-ws and SSE both subscribe through envelop, so an SSE stream and a WebSocket
 * of one user share too). With many tabs and devices per user, an event then costs one GraphQL
 * execution, not one per client (as Apollo Router's subscription deduplication does).
 *
 * This is also the gateway's one slow-consumer policy, for every subscription and transport: the
 * shared execution is read as fast as it produces (so the hub's own per-subscriber queue never
 * backs up), and each client has its own bounded backlog of results its transport has not sent
 * yet (graphql-ws waits for each frame's write; SSE for the response stream's pull). A client that
 * falls more than `backlog` results behind gets a last SLOW_CONSUMER error and its subscription
 * ends, without slowing the others. Subscriptions that are not shared (resuming from a cursor)
 * run through the same queue under a key of their own.
 */
import { GraphQLError, Kind, getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { Multicast } from './multicast.js';

export interface ShareSubscriptionsOptions {
  /** Share identical subscriptions. @default true */
  share?: boolean;
  /** Results a client's subscription may have waiting before it ends with SLOW_CONSUMER. @default 1000 */
  backlog?: number;
}

/** What the plugin exposes for tests and metrics. */
export interface SubscriptionSharing {
  /** Client subscriptions currently served (shared or not). */
  readonly clients: number;
}

/**
 * Whether a subscription can share its execution with identical ones: it must not resume from a
 * cursor (`after`), since a later identical request would then miss the replay the first one got.
 */
function shareable(document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'subscription') return false;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return false; // fragments at the root: keep it simple, do not share
    for (const argument of selection.arguments ?? []) {
      if (argument.name.value !== 'after') continue;
      const value = argument.value;
      if (value.kind === Kind.VARIABLE ? variables?.[value.name.value] != null : value.kind !== Kind.NULL) return false;
    }
  }
  return true;
}

export function shareSubscriptions(options: ShareSubscriptionsOptions = {}): Plugin<Context> & { sharing: SubscriptionSharing } {
  const backlog = options.backlog ?? 1000;
  const multicast = new Multicast<ExecutionResult>({
    limit: backlog,
    overflow: () => ({
      errors: [
        new GraphQLError(`The subscription fell more than ${backlog} results behind and was closed; resubscribe with the last cursor received.`, {
          extensions: { code: GatewayErrorCode.slowConsumer },
        }),
      ],
    }),
  });
  // Parsed documents are cached by source text (yoga's parser cache, used by every transport), so
  // one document object stands for one query text; a number per document keeps keys short.
  const documentIds = new WeakMap<DocumentNode, number>();
  let nextId = 0;
  let unshared = 0;

  return {
    sharing: {
      get clients() {
        return multicast.size;
      },
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const { document, operationName, variableValues } = args;
      const credentialKey = args.contextValue.credentials ? args.contextValue.connection.credentialKey : undefined;
      let key: string;
      if (options.share !== false && credentialKey !== undefined && shareable(document, operationName, variableValues)) {
        let documentId = documentIds.get(document);
        if (documentId === undefined) documentIds.set(document, (documentId = ++nextId));
        // The credential's HMAC, never the credential, keys the sharing: only one identity's clients share.
        key = JSON.stringify([credentialKey, documentId, operationName ?? null, variableValues ?? {}]);
      } else {
        key = `unshared:${++unshared}`;
      }
      setSubscribeFn((subscribeArgs) => multicast.join(key, () => subscribeFn(subscribeArgs)) as never);
    },
  };
}
