/**
 * `query @live { … }` (https://github.com/n1ru4l/graphql-live-query): over graphql-ws and SSE (or
 * multipart HTTP), the query's result is sent again whenever an event of the caller's own queue
 * changes something it read (live/queries.ts, live/resources.ts). Over plain HTTP (a JSON answer)
 * it runs once, as the same query without the directive.
 *
 * Each execution is the query run afresh, as the caller: new loaders (so a re-run never serves
 * what an earlier run fetched), a new upstream deadline, and a recorder of what it reads
 * (`Context.liveReads`, scoped by credential). So a re-run costs at most the upstream calls one run
 * of the same query costs (none for what the live directory holds). Re-runs of one query are
 * scheduled by live/schedule.ts: one at a time, throttled (`LiveQueries.throttleMs`), none lost.
 *
 * A live query counts toward the credential's `maxSubscriptionsPerCredential`
 * (plugins/share-subscriptions.ts) from the moment it is admitted until it ends, on every transport.
 * It ends as a subscription does: with SUBSCRIPTION_CLOSED at shutdown, UNAUTHENTICATED if the
 * chat server refuses the credential, SLOW_CONSUMER if it fell behind the hub.
 *
 * This replaces @envelop/live-query's `useLiveQuery` (whose store gets one context per operation,
 * so every re-run would reuse the first run's loaders and deadline); the directive, its validation
 * rule and the store are the same libraries.
 */
import {
  getLiveDirectiveArgumentValues,
  getLiveDirectiveNode,
  NoLiveMixedWithDeferStreamRule,
} from '@n1ru4l/graphql-live-query';
import { GraphQLError, getOperationAST, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode, toGraphQLError } from '../errors.js';
import type { FollowEnd, Following, LiveQueries } from '../live/queries.js';
import { EVERYTHING } from '../live/resources.js';
import { LiveSchedule } from '../live/schedule.js';
import { createLoaders } from '../loaders/index.js';
import { ended } from '../schema/events/payloads.js';
import type { LiveDirectories } from '../directory/live.js';
import type { Reservation } from '../upstream/bucket.js';
import type { UpstreamEstimates } from '../upstream/estimate.js';
import type { AdmitLongRunning } from './share-subscriptions.js';

export interface LiveQueryPluginOptions {
  live: LiveQueries;
  /** The estimates of upstream calls (upstream/estimate.ts): each re-run sets its own aside in the credential's bucket. */
  estimates: UpstreamEstimates;
  /** The live directories, when on (a warm one answers lookups for free). */
  directories: LiveDirectories | undefined;
  /** Counts a live query toward the credential's limit (plugins/share-subscriptions.ts). */
  admit: AdmitLongRunning;
  /** The upstream deadline of each execution, as for any query (plugins/deadline.ts). */
  deadlineMs: number;
}

type Execute = (args: ExecutionArgs) => unknown;

/** Whether the transport can carry more than one result: graphql-ws, SSE, or multipart HTTP. */
function streams(ctx: Context): boolean {
  const request = (ctx as { request?: Request }).request;
  if (!request) return true; // graphql-ws: its contexts carry the socket, not a fetch Request
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') || accept.includes('multipart/mixed');
}

export function useLiveQueries({ live, admit, deadlineMs, estimates, directories }: LiveQueryPluginOptions): Plugin<Context> {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoLiveMixedWithDeferStreamRule);
    },
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      const directive = operation && getLiveDirectiveNode(operation);
      const asked = directive && getLiveDirectiveArgumentValues(directive, args.variableValues);
      if (!asked || !asked.isLive) return;
      const ctx = args.contextValue;
      if (!streams(ctx)) return;
      if (!ctx.credentials) {
        return setResultAndStopExecution({
          errors: [new GraphQLError('Live queries follow the caller\u2019s own events: send credentials.', { extensions: { code: GatewayErrorCode.unauthenticated } })],
        });
      }
      const release = admit(ctx.connection.credentialKey);
      if (release instanceof GraphQLError) return setResultAndStopExecution({ errors: [release] });
      const following = live.follow(ctx.connection);
      // The first run spends what plugins/upstream-budget.ts set aside; each re-run waits for its
      // own estimate in the credential's bucket (delayed while it is short, never dropped).
      let first = true;
      const bucket = ctx.server.buckets.for(ctx.connection.credentialKey);
      const schedule = new LiveSchedule({
        throttleMs: live.throttleFor(asked.throttleValue),
        following,
        reinvalidate: (names) => live.invalidate(following.scope, names),
        admit: async () => {
          if (first) {
            first = false;
            return undefined;
          }
          const { schema, document, operationName, variableValues: variables } = args;
          const directory = directories?.peek(ctx.connection)?.sizes();
          return bucket.acquire(estimates.estimate({ schema, document, operationName, variables, directory }));
        },
      });
      // The other accounts of the caller's session (accounts.ts): each followed once its context
      // is first made, so that its own events re-run what the query read as that account.
      const accountFollowings = new Map<string, Following>();
      const done = () => {
        schedule.stop();
        following.release();
        for (const held of accountFollowings.values()) held.release();
        release();
      };
      const run: Execute = (runArgs) =>
        schedule.run(async (record, admitted) => {
          if (admitted) ctx.upstream.reservation = admitted as Reservation;
          live.executed();
          // The stamp of this execution's result: where the stream is as it starts reading (plugins/sync.ts).
          ctx.stampNow = ctx.sync?.positionNow(ctx.connection);
          ctx.loaders = createLoaders(ctx.connection, ctx.server);
          ctx.deadline.expiresAt = performance.now() + deadlineMs;
          // The store's collector of this run (its context; resolvers get ours).
          const collector = runArgs.contextValue as { addResourceIdentifier(name: string): void };
          ctx.liveReads = (name) => {
            record(name);
            collector.addResourceIdentifier(following.scope + name);
          };
          ctx.liveReads(EVERYTHING);
          // Account contexts afresh too (new loaders), each recording in its own account's scope.
          delete ctx.accountScopes;
          ctx.liveAccountReads = (connection) => {
            let held = accountFollowings.get(connection.credentialKey);
            if (!held) accountFollowings.set(connection.credentialKey, (held = live.follow(connection)));
            const scope = held.scope;
            collector.addResourceIdentifier(scope + EVERYTHING);
            return (name) => collector.addResourceIdentifier(scope + name);
          };
          try {
            return await (executeFn as Execute)(runArgs);
          } finally {
            ctx.upstream.reservation?.release();
          }
        });
      const execute = live.store.makeExecute(run as never) as Execute;
      setExecuteFn(((executeArgs: ExecutionArgs) => {
        const result = execute(executeArgs);
        if (!isAsyncIterable(result)) {
          done();
          return result;
        }
        return untilEnded(result, following, done);
      }) as never);
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ExecutionResult> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

function endError(end: FollowEnd): GraphQLError {
  if ('error' in end) return toGraphQLError(end.error);
  const { code, message } = ended(end.reason, end.message.replace('subscription', 'live query')).ended;
  return new GraphQLError(message, { extensions: { code } });
}

/**
 * The store's results, until the client stops (`return`, even while waiting for the next result)
 * or the credential's stream ends (one last result with the error, then done). `done` runs once.
 */
function untilEnded(
  source: AsyncIterable<ExecutionResult>,
  following: Following,
  done: () => void,
): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let outcome: FollowEnd | undefined;
  const finish = async () => {
    if (finished) return;
    finished = true;
    removeEndListener();
    done();
    await iterator.return?.();
  };
  const removeEndListener = following.onEnd((end) => {
    outcome = end;
    // Settles a pending `next` with done; the error result follows.
    void iterator.return?.();
  });
  const DONE: IteratorResult<ExecutionResult> = { done: true, value: undefined };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return DONE;
      const next = await iterator.next();
      if (!next.done && outcome === undefined) return next;
      await finish();
      return outcome ? { done: false, value: { errors: [endError(outcome)] } } : DONE;
    },
    async return() {
      await finish();
      return DONE;
    },
  };
}
