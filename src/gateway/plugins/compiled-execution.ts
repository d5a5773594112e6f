/**
 * Queries and mutations run as code compiled once per document by graphql-jit
 * (https://github.com/zalando-incubator/graphql-jit, through @envelop/graphql-jit), instead of
 * graphql's interpreter walking the document for every request: a dashboard resolves hundreds of
 * fields, and the walk is most of what it costs.
 *
 * Only documents the compiler handles as graphql-js would run compiled; the others keep the
 * interpreter, unchanged:
 * - subscriptions (the event hub and subscription sharing wrap graphql's own subscribe);
 * - documents with `@defer` or `@stream` (incremental delivery is the interpreter's; graphql-jit
 *   ignores both directives) or `@live` (the live-query store re-runs the interpreter's execute);
 * - documents with more than one operation: @envelop/graphql-jit keeps one compiled query per
 *   document, whatever the operation name, so a second operation of the same document would run
 *   the first one's code; and an operation name the document does not have (the interpreter
 *   reports it);
 * - an operation with a variable whose input type contains itself (`NarrowInput.not`): graphql-jit
 *   generates the coercion of such a variable without end, until the process runs out of memory;
 * - an operation whose variables graphql-js does not accept: graphql-jit coerces variables with
 *   its own code, which for one lets a `@oneOf` input with two fields set through; the
 *   interpreter refuses them as it always did.
 *
 * A resolver of a list must not return items that are rejected promises: graphql-js makes each a
 * null with its error, graphql-jit (0.8.7 to 0.8.9) returns a list of another length. The plain
 * schema's lists resolve whole (`Promise.all`) or with null items; the federation subgraph's
 * `_entities` fails entries one by one, so yoga.ts leaves the subgraph interpreted.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  getNamedType,
  getVariableValues,
  GraphQLError,
  isInputObjectType,
  Kind,
  typeFromAST,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Directives whose documents keep the interpreter (see above). */
const INTERPRETED_DIRECTIVES = new Set(['defer', 'stream', 'live']);

/** Whether an input type contains itself, through its fields or theirs (`inside`: the types on the way). */
function recursiveInput(type: GraphQLInputType, inside = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return false;
  if (inside.has(named.name)) return true;
  inside.add(named.name);
  const found = Object.values(named.getFields()).some((field) => recursiveInput(field.type, inside));
  inside.delete(named.name);
  return found;
}

/** The document's one operation when graphql-jit may run it, else undefined. */
function compilableOperation(schema: GraphQLSchema, document: DocumentNode): OperationDefinitionNode | undefined {
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operation) return undefined;
    operation = definition;
  }
  if (!operation || operation.operation === 'subscription') return undefined;
  for (const variable of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, variable.type);
    if (!type || recursiveInput(type as GraphQLInputType)) return undefined;
  }
  let interpreted = false;
  visit(document, {
    Directive(node) {
      if (!INTERPRETED_DIRECTIVES.has(node.name.value)) return undefined;
      interpreted = true;
      return false;
    },
  });
  return interpreted ? undefined : operation;
}

export function useCompiledExecution(): Plugin {
  // Decided once per parsed document (yoga's parse cache hands the same DocumentNode to every
  // request with the same text); null: interpreted.
  const operations = new WeakMap<DocumentNode, OperationDefinitionNode | null>();
  const compilable = ({ schema, document, operationName, variableValues }: ExecutionArgs): boolean => {
    let operation = operations.get(document);
    if (operation === undefined) operations.set(document, (operation = compilableOperation(schema, document) ?? null));
    if (operation === null || (operationName != null && operation.name?.value !== operationName)) return false;
    const definitions = operation.variableDefinitions;
    return !definitions?.length || getVariableValues(schema, definitions, variableValues ?? {}).errors === undefined;
  };
  // Its onSubscribe is left out: subscriptions keep graphql's own subscribe.
  const jit = useGraphQlJit();
  return {
    onExecute(payload) {
      if (!compilable(payload.args)) return;
      void jit.onExecute!(payload as never);
      const { document } = payload.args;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result || !result.errors?.length) return;
          setResult({ ...result, errors: result.errors.map((error) => located(error, document)) });
        },
      };
    },
  };
}

/**
 * graphql-jit's errors carry their `locations` alone, which yoga drops when it rebuilds each error
 * for the response (from nodes, or a source and positions): each is given its source and
 * positions again, as graphql-js's errors have them.
 */
function located(error: GraphQLError, document: DocumentNode): GraphQLError {
  const source = document.loc?.source;
  if (error.nodes || error.positions || !error.locations?.length || !source) return error;
  // Line breaks as graphql's getLocation counts them.
  const lineStarts = [0, ...[...source.body.matchAll(/\r\n|[\n\r]/g)].map((m) => m.index + m[0].length)];
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}
