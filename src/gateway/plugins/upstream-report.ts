/** Reports what a request cost upstream in the response `extensions` (`upstreamRequests`, ignored parameters). */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

export function upstreamReport(): Plugin<Context> {
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
  if (ctx.ignoredParameters.size > 0) extensions.ignoredParametersUnsupported = [...ctx.ignoredParameters];
  const reported: ExecutionResult = { ...result };
  reported.extensions = extensions;
  return reported;
}
