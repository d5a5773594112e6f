/**
 * Identical GraphQL subscriptions (operations, not the channel subscriptions of
 * schema/subscriptions/) run once: the same credential, operation document and variables, on any
 * transport (graphql-ws and SSE both subscribe through envelop, so an SSE stream and a WebSocket
 * of one user share too). With many tabs and devices per user, an event then costs one GraphQL
 * execution, not one per client (as Apollo Router's subscription deduplication does).
 *
 * This is also the gateway's one slow-consumer policy, for every subscription and transport: the
 * shared execution is read as fast as it produces (so the hub's own per-subscriber queue never
 * backs up), and each client has its own bounded backlog of results its transport has not sent
 * yet (graphql-ws waits for each frame's write; SSE for the response stream's pull). A client that
 * falls more than `slowConsumerLimit` results behind gets a last SLOW_CONSUMER error and its
 * subscription ends, without slowing the others. The limit is the hub's (EventHub
 * `slowConsumerLimit`), so one number bounds both queues a subscription has. Subscriptions that are
 * not shared (resuming from a cursor) run through the same queue under a key of their own.
 *
 * A transport that can write results itself puts a {@link Sink} in the operation's `rootValue`
 * (`resultSink`; graphql-ws's does, transport/next-frames.ts): the shared execution then writes
 * each result to it in its own turn while the client keeps up, and only the rest (results with
 * errors, results that waited) goes through the subscription's iterator and envelop's per-result hooks.
 *
 * It also bounds what one credential can hold open on this instance, shared or not, on every
 * transport together: past `maxPerCredential` a subscription is refused with TOO_MANY_SUBSCRIPTIONS
 * before it runs, so one client cannot grow the gateway's memory without limit.
 */
import { GraphQLError, Kind, getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { isAsyncIterable, Multicast, type Sink } from '../events/multicast.js';

export interface ShareSubscriptionsOptions {
  /** Share identical subscriptions. @default true */
  share?: boolean;
  /** Results a client's subscription may have waiting before it ends with SLOW_CONSUMER: the hub's `slowConsumerLimit`. */
  slowConsumerLimit: number;
  /** Subscriptions one credential may have open on this instance. @default DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL */
  maxPerCredential?: number;
}

/** What a transport puts in `rootValue` to have results written to it directly. */
export interface ResultSinkRoot {
  resultSink?: Sink<ExecutionResult>;
}

/** Many tabs and devices of one user, each with a few subscriptions, stay well under it. */
const DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL = 200;

/** What the plugin exposes for tests and metrics. */
export interface GraphQLSubscriptionSharing {
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

/**
 * Counts one more long-running operation of a credential toward `maxPerCredential` (a live query
 * counts as a subscription): its release (idempotent), or the TOO_MANY_SUBSCRIPTIONS error.
 */
export type AdmitLongRunning = (credentialKey: string) => (() => void) | GraphQLError;

export function useSharedSubscriptions(
  options: ShareSubscriptionsOptions,
): Plugin<Context> & { sharing: GraphQLSubscriptionSharing; admit: AdmitLongRunning } {
  const limit = options.slowConsumerLimit;
  const multicast = new Multicast<ExecutionResult>({
    limit,
    overflow: () => ({
      errors: [
        new GraphQLError(`The subscription fell more than ${limit} results behind and was closed; resubscribe with the last cursor received.`, {
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
  const maxPerCredential = options.maxPerCredential ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CREDENTIAL;
  const open = new OpenCounts();

  return {
    sharing: {
      get clients() {
        return multicast.size;
      },
    },
    admit: (credentialKey) => open.take(credentialKey, maxPerCredential) ?? tooManySubscriptions(maxPerCredential),
    onSubscribe({ args, subscribeFn, setSubscribeFn, setResultAndStopExecution }) {
      const { document, operationName, variableValues } = args;
      const credentialKey = args.contextValue.credentials ? args.contextValue.connection.credentialKey : undefined;
      // Counted from here (not once open), so concurrent subscribes cannot all pass the check.
      const release = credentialKey === undefined ? undefined : open.take(credentialKey, maxPerCredential);
      if (release === null) return setResultAndStopExecution({ errors: [tooManySubscriptions(maxPerCredential)] });
      let key: string;
      if (options.share !== false && credentialKey !== undefined && shareable(document, operationName, variableValues)) {
        let documentId = documentIds.get(document);
        if (documentId === undefined) documentIds.set(document, (documentId = ++nextId));
        // The credential's HMAC, never the credential, keys the sharing: only one identity's clients share.
        key = JSON.stringify([credentialKey, documentId, operationName ?? null, variableValues ?? {}]);
      } else {
        key = `unshared:${++unshared}`;
      }
      const sink = (args.rootValue as ResultSinkRoot | undefined)?.resultSink;
      setSubscribeFn((async (subscribeArgs: Parameters<typeof subscribeFn>[0]) => {
        try {
          const result = await multicast.join(key, () => subscribeFn(subscribeArgs), release, sink);
          if (!isAsyncIterable(result)) release?.(); // refused or failed: nothing stays open
          return result;
        } catch (error) {
          release?.();
          throw error;
        }
      }) as never);
    },
  };
}

function tooManySubscriptions(limit: number): GraphQLError {
  return new GraphQLError(
    `This credential already has ${limit} subscriptions and live queries open on this gateway instance; end one before starting another.`,
    { extensions: { code: GatewayErrorCode.tooManySubscriptions, limit } },
  );
}

/** Open subscriptions per credential key; a key is forgotten when its count drops to zero. */
class OpenCounts {
  private readonly counts = new Map<string, number>();

  /** Counts one more for `key` and returns its release (idempotent), or null at `limit`. */
  take(key: string, limit: number): (() => void) | null {
    const held = this.counts.get(key) ?? 0;
    if (held >= limit) return null;
    this.counts.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }
}
