/**
 * Reports what a request cost upstream in the response `extensions` (`upstreamRequests`, ignored
 * parameters) and, with credentials the chat server advertised a rate limit for, what their
 * budget has left (`upstreamBudget`: limit, remaining, resetAt in Unix seconds, and `estimate`, the
 * upstream calls this operation was estimated to make before it ran: plugins/upstream-budget.ts).
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

export function useUpstreamReport(): Plugin<Context> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return; // streams report nothing
          setResult(withUpstreamExtensions(result, ctx));
        },
      };
    },
  };
}

function withUpstreamExtensions(result: ExecutionResult, ctx: Context): ExecutionResult {
  // Copied, then extended: V8 clones a lone `{ ...a }` on its fast path, which `{ ...a, key }` misses,
  // and this runs on every result.
  const extensions: Record<string, unknown> = { ...result.extensions };
  extensions.upstreamRequests = ctx.upstream.requests;
  // Only what the chat server advertised: a server without X-RateLimit-* headers gets no guess here.
  if (ctx.credentials && ctx.server.budgets.known(ctx.connection.credentialKey)) {
    const budget = ctx.server.budgets.get(ctx.connection.credentialKey);
    extensions.upstreamBudget = ctx.upstream.estimate === undefined ? budget : { ...budget, estimate: ctx.upstream.estimate };
  }
  if (ctx.ignoredParameters.size > 0) extensions.ignoredParametersUnsupported = [...ctx.ignoredParameters];
  const reported: ExecutionResult = { ...result };
  reported.extensions = extensions;
  return reported;
}
