/**
 * Refuses variables nested deeper than a limit before anything walks them: graphql-js coerces
 * variables recursively (`coerceVariableValues`), so a list or a `NarrowInput.not` 10,000 levels
 * deep overflows the stack there (an HTTP 500 and a stack trace in the log). The depth is measured
 * here without recursion, once per operation, on every transport: in yoga's `onParams` for HTTP
 * and SSE (before the document is even parsed), and before execute/subscribe for graphql-ws, whose
 * operations do not go through `onParams`.
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badInput } from '../errors.js';

/**
 * Deepest variables accepted, the variables object itself counting as level 1. Real operations
 * stay under 10 (a draft's recipients list in a list of drafts is level 4, a narrow's `not` one
 * level per negation).
 */
export const MAX_VARIABLES_DEPTH = 32;

/** How deep `value` nests (0 for a scalar, 1 for an object or array of scalars), without recursion. */
export function jsonDepth(value: unknown, stopAbove = Infinity): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > stopAbove) return deepest;
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

export function useVariablesDepthLimit(maxDepth = MAX_VARIABLES_DEPTH): Plugin {
  // Variables already measured in onParams are not walked again before execute.
  const measured = new WeakSet<object>();
  const refusal = (variables: unknown): ExecutionResult | undefined => {
    if (variables === null || typeof variables !== 'object' || measured.has(variables)) return undefined;
    if (jsonDepth(variables, maxDepth) <= maxDepth) {
      measured.add(variables);
      return undefined;
    }
    return { errors: [badInput(`The variables are nested more than ${maxDepth} levels deep.`, { maxDepth })] };
  };
  return {
    onParams({ params, setResult }) {
      const result = refusal(params.variables);
      if (result) setResult(result);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const result = refusal(args.variableValues);
      if (result) setResultAndStopExecution(result);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const result = refusal(args.variableValues);
      if (result) setResultAndStopExecution(result);
    },
  };
}
