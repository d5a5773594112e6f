/**
 * Refuses a query or mutation before any upstream call, with UPSTREAM_BUDGET_EXCEEDED, when its
 * estimated upstream calls (upstream-estimate.ts, from each field's declared cost) are
 *
 * - over the per-operation cap (`MAX_UPSTREAM_CALLS`): `estimate` and `cap`;
 * - or over what its credential's rate limit has left (gateway/upstream-budget.ts) less the
 *   headroom kept for the user's other clients and the calls this instance makes for the
 *   credential in the background (the next poll of its event queue, the live directory's load):
 *   `estimate`, `remaining`, `headroom`, `reserved` and `resetAt`.
 *
 * Subscriptions are not estimated: their calls are the credential's one queue, shared.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { LiveDirectories } from '../directory/live.js';
import { GatewayErrorCode } from '../errors.js';
import type { EventHub } from '../events/hub.js';
import { DEFAULT_MAX_UPSTREAM_CALLS, DEFAULT_UPSTREAM_BUDGET_HEADROOM, headroomCalls, type Headroom } from '../upstream-budget.js';
import { estimateUpstreamCalls, type WarmDirectory } from '../upstream-estimate.js';

export interface UpstreamBudgetOptions {
  /** Estimated upstream calls one operation may make. @default DEFAULT_MAX_UPSTREAM_CALLS (50) */
  maxCalls?: number;
  /** Kept out of every operation's reach, for the user's other clients. @default DEFAULT_UPSTREAM_BUDGET_HEADROOM ('10%') */
  headroom?: Headroom;
  /** Whose queues this instance polls (their next poll is reserved). */
  hub?: EventHub;
  /** The live directories, when on: warm ones answer lookups for free, cold ones are about to load. */
  directories?: LiveDirectories | undefined;
}

export function upstreamBudget(options: UpstreamBudgetOptions = {}): Plugin<Context> {
  const maxCalls = options.maxCalls ?? DEFAULT_MAX_UPSTREAM_CALLS;
  const headroom = options.headroom ?? DEFAULT_UPSTREAM_BUDGET_HEADROOM;
  const { hub, directories } = options;
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const warm = ctx.credentials ? directories?.peek(ctx.connection) : undefined;
      const directory: WarmDirectory | undefined = warm?.sizes();
      const estimate = estimateUpstreamCalls({
        schema: args.schema,
        document: args.document,
        operationName: args.operationName,
        variables: args.variableValues,
        directory,
      });
      ctx.upstream.estimate = estimate;
      const refuse = (message: string, extensions: Record<string, unknown>) => {
        // Lists are sized by their assumed bound until the credential's directory counts them: a
        // refusal starts loading it (without waiting), so that a retry is priced with real counts.
        const cold = directories !== undefined && ctx.credentials !== undefined && !warm;
        if (cold) directories.forRequest(ctx.connection);
        setResultAndStopExecution({
          errors: [new GraphQLError(message, { extensions: { code: GatewayErrorCode.upstreamBudgetExceeded, estimate, ...extensions } })],
        });
      };
      if (estimate > maxCalls) {
        return refuse(
          `This operation needs about ${estimate} calls to the chat server, over the gateway's cap of ${maxCalls} per operation: select fewer fields under lists, or page through them.`,
          { cap: maxCalls },
        );
      }
      if (!ctx.credentials) return;
      const budget = ctx.server.budgets.get(ctx.connection.credentialKey);
      const kept = headroomCalls(headroom, budget.limit);
      // The credential's queue polls again soon; a cold directory is about to register one.
      const reserved = (hub?.follows(ctx.connection) ? 1 : 0) + (directories && !warm ? 1 : 0);
      if (estimate <= budget.remaining - kept - reserved) return;
      const resets = new Date(budget.resetAt * 1000).toISOString();
      refuse(
        `This operation needs about ${estimate} calls to the chat server; this credential has ${budget.remaining} left until ${resets}, ` +
          `of which ${kept + reserved} are kept for its other clients and this gateway's own polls.`,
        { remaining: budget.remaining, headroom: kept, reserved, resetAt: budget.resetAt },
      );
    },
  };
}
