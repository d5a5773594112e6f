/**
 * Operation limits (graphql-armor), applied at parse and validation, so before any resolver runs
 * and before any upstream call, on every transport.
 *
 * graphql-armor's own refusals are "Syntax Error: …" errors without a code, thrown out of
 * validation. Here each limit reports instead a validation error of its own stable code
 * (errors.ts), located at the operation, with the limit in `extensions.limit`: yoga then answers
 * it like any validation error (HTTP 200 with `Accept: application/json`, 400 with
 * `application/graphql-response+json`), and graphql-ws sends it as an `error` message.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, Kind, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GatewayErrorCode } from '../errors.js';

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

type Handler = (context: ValidationContext | null, error: GraphQLError) => void;

/**
 * The rejection handler of one limit: a coded error instead of armor's. A validation rule gets a
 * context to report to; the token limit runs in the parser (no context), so its error is thrown,
 * which yoga and graphql-ws both answer as a syntax error, now with a code.
 */
function reject(code: GatewayErrorCode, limit: number): Handler {
  return (context, error) => {
    const message = error.message.replace(/^Syntax Error: /, '');
    const operations = context?.getDocument().definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    const coded = new GraphQLError(message, {
      ...(operations && operations.length > 0 && { nodes: operations }),
      extensions: { code, limit },
    });
    if (!context) throw coded;
    context.reportError(coded);
  };
}

export function useOperationLimits(): Plugin {
  const { maxTokens, maxDepth, maxAliases, maxDirectives, costLimit, blockFieldSuggestion } = OPERATION_LIMITS;
  const handled = <T extends object>(config: T, code: GatewayErrorCode, limit: number) => ({
    ...config,
    propagateOnRejection: false,
    onReject: [reject(code, limit)],
  });
  return EnvelopArmorPlugin({
    maxTokens: handled(maxTokens, GatewayErrorCode.maxTokensExceeded, maxTokens.n),
    maxDepth: handled(maxDepth, GatewayErrorCode.maxDepthExceeded, maxDepth.n),
    maxAliases: handled(maxAliases, GatewayErrorCode.maxAliasesExceeded, maxAliases.n),
    maxDirectives: handled(maxDirectives, GatewayErrorCode.maxDirectivesExceeded, maxDirectives.n),
    costLimit: handled(costLimit, GatewayErrorCode.maxCostExceeded, costLimit.maxCost),
    blockFieldSuggestion,
  }) as Plugin;
}
