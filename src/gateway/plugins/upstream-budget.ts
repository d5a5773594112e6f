/**
 * Refuses a query or mutation before any upstream call, with UPSTREAM_BUDGET_EXCEEDED, when its
 * estimated upstream calls (upstream/estimate.ts, from each field's declared cost) are
 *
 * - over the per-operation cap (`MAX_UPSTREAM_CALLS`): `estimate` and `cap`;
 * - or over what its credential's rate limit has left (gateway/upstream/budget.ts) less the
 *   headroom kept for the user's other clients and the calls this instance makes for the
 *   credential in the background (the next poll of its event queue, the live directory's load):
 *   `estimate`, `remaining`, `headroom`, `reserved` and `resetAt`.
 *
 * Subscriptions are not estimated: their calls are the credential's one queue, shared.
 */
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Directory } from '../directory/directory.js';
import type { LiveDirectories } from '../directory/live.js';
import { GatewayErrorCode } from '../errors.js';
import type { EventHub } from '../events/hub.js';
import { DEFAULT_MAX_UPSTREAM_CALLS, DEFAULT_UPSTREAM_BUDGET_HEADROOM, headroomCalls, type Headroom } from '../upstream/budget.js';
import { UpstreamEstimates, type WarmDirectory } from '../upstream/estimate.js';

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

/**
 * How long an operation that the assumed list sizes would refuse waits for its credential's live
 * directory to load (its first lookup would start it anyway), to be priced with real counts.
 */
export const DIRECTORY_SETTLE_MS = 5_000;

interface Judgement {
  estimate: number;
  refusal?: { message: string; extensions: Record<string, unknown> };
}

export function useUpstreamBudget(options: UpstreamBudgetOptions = {}): Plugin<Context> {
  const maxCalls = options.maxCalls ?? DEFAULT_MAX_UPSTREAM_CALLS;
  const headroom = options.headroom ?? DEFAULT_UPSTREAM_BUDGET_HEADROOM;
  const { hub, directories } = options;
  const estimates = new UpstreamEstimates();

  const judge = (args: ExecutionArgs, ctx: Context, warm: Directory | undefined): Judgement => {
    const directory: WarmDirectory | undefined = warm?.sizes();
    const { schema, document, operationName, variableValues: variables } = args;
    const estimate = estimates.estimate({ schema, document, operationName, variables, directory });
    if (estimate > maxCalls) {
      const message = `This operation needs about ${estimate} calls to the chat server, over the gateway's cap of ${maxCalls} per operation: select fewer fields under lists, or page through them.`;
      return { estimate, refusal: { message, extensions: { cap: maxCalls } } };
    }
    if (!ctx.credentials) return { estimate };
    const budget = ctx.server.budgets.get(ctx.connection.credentialKey);
    const kept = headroomCalls(headroom, budget.limit);
    // The credential's queue polls again soon; a cold directory is about to register one.
    const reserved = (hub?.follows(ctx.connection) ? 1 : 0) + (directories && !warm ? 1 : 0);
    if (estimate <= budget.remaining - kept - reserved) return { estimate };
    const resets = new Date(budget.resetAt * 1000).toISOString();
    const message =
      `This operation needs about ${estimate} calls to the chat server; this credential has ${budget.remaining} left until ${resets}, ` +
      `of which ${kept + reserved} are kept for its other clients and this gateway's own polls.`;
    return { estimate, refusal: { message, extensions: { remaining: budget.remaining, headroom: kept, reserved, resetAt: budget.resetAt } } };
  };

  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const settle = (judgement: Judgement) => {
        const { estimate, refusal } = judgement;
        ctx.upstream.estimate = estimate;
        if (!refusal) return;
        setResultAndStopExecution({
          errors: [new GraphQLError(refusal.message, { extensions: { code: GatewayErrorCode.upstreamBudgetExceeded, estimate, ...refusal.extensions } })],
        });
      };
      const warm = ctx.credentials ? directories?.peek(ctx.connection) : undefined;
      const judgement = judge(args, ctx, warm);
      if (!judgement.refusal || !directories || !ctx.credentials || warm) return settle(judgement);
      // Lists are sized by their assumed bound until the directory counts them: wait for it (only
      // an operation about to be refused waits, so no other pays for it).
      return directories.settled(ctx.connection, DIRECTORY_SETTLE_MS).then((settled) => settle(settled ? judge(args, ctx, settled) : judgement));
    },
  };
}
