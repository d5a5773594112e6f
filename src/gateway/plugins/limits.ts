/**
 * Operation limits (graphql-armor), applied at validation, so before any resolver runs and before
 * any upstream call, on every transport.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { Plugin } from 'graphql-yoga';

/**
 * They admit GraphiQL's introspection query and the dashboard query (100 newest messages with each
 * sender, channel and reaction user), and reject alias bombs, deep nesting and oversized documents.
 * Note the cost limit multiplies a selection by its `first`/`last` argument.
 */
export const OPERATION_LIMITS = {
  maxTokens: { n: 2000 },
  maxDepth: { n: 10 },
  maxAliases: { n: 20 },
  maxDirectives: { n: 20 },
  costLimit: { maxCost: 50_000 },
  blockFieldSuggestion: { enabled: true },
} as const;

export function operationLimits(): Plugin {
  return EnvelopArmorPlugin(OPERATION_LIMITS) as Plugin;
}
