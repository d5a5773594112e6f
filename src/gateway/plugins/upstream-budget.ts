/**
 * Refuses a query or mutation, before any upstream call, when its estimated upstream calls exceed
 * what its credential's rate-limit budget has left (gateway/upstream-budget.ts) minus a headroom
 * for the credential's event queue polls: UPSTREAM_BUDGET_EXCEEDED, with the estimate, the
 * remaining budget and when it resets. The estimate is a static walk over the document: one call
 * per selected field that declares the Zulip operations it reaches (zulip-operations.ts), each
 * alias counted. It does not yet multiply per-item fan-outs under list fields (issue 19).
 */
import { GraphQLError, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { ZULIP_OPERATIONS } from '../zulip-operations.js';

/** Calls kept for the credential's own event queue (its next poll) whatever a query needs. */
export const UPSTREAM_BUDGET_HEADROOM = 1;

/** The upstream calls `document` makes at least: one per selected field that reaches Zulip. */
export function estimateUpstreamCalls(schema: GraphQLSchema, document: DocumentNode): number {
  const typeInfo = new TypeInfo(schema);
  let calls = 0;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        if (typeInfo.getFieldDef()?.extensions[ZULIP_OPERATIONS] !== undefined) calls++;
      },
    }),
  );
  return calls;
}

export function upstreamBudget(): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      if (!ctx.credentials) return;
      const budget = ctx.server.budgets.get(ctx.connection.credentialKey);
      const available = budget.remaining - UPSTREAM_BUDGET_HEADROOM;
      const estimate = estimateUpstreamCalls(args.schema, args.document);
      if (estimate <= available) return;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(
            `This operation needs about ${estimate} calls to the chat server; this credential has ${budget.remaining} left until ${new Date(budget.resetAt * 1000).toISOString()}.`,
            { extensions: { code: GatewayErrorCode.upstreamBudgetExceeded, estimate, remaining: budget.remaining, headroom: UPSTREAM_BUDGET_HEADROOM, resetAt: budget.resetAt } },
          ),
        ],
      });
    },
  };
}
