/**
 * Refuses, before it runs and before any upstream call, with UNAUTHENTICATED:
 *
 * - an operation whose Authorization value is present but unusable (another scheme, not base64, no
 *   colon, empty), with the gateway's own message: not even an anonymous call for a public field.
 *   Only a request without any Authorization value is anonymous (or takes the default identity);
 *   see context.ts. The one exception is a mutation that selects only login fields: a client logs
 *   in to get usable credentials, so it may still hold stale or broken ones;
 * - an anonymous operation (no credentials at all) that selects a root field that needs them.
 *
 * Which fields need no credentials is derived, never listed: those that declare
 * `zulip: { anonymous: true }` (facts.ts). A login field is an anonymous mutation field.
 */
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { factsOf } from '../facts.js';

function refusal(problem: string, code: GatewayErrorCode = GatewayErrorCode.unauthenticated) {
  return { errors: [new GraphQLError(problem, { extensions: { code } })] };
}

/**
 * The root fields of the operation that need credentials (none: it may run anonymously), fragments
 * followed; `undefined` when the operation cannot be found (execution reports that itself).
 */
export function fieldsNeedingCredentials(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): string[] | undefined {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return undefined;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const needing = new Set<string>();
  const walk = (set: SelectionSetNode, seen: ReadonlySet<string>): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!anonymousField(root, selection.name.value)) needing.add(selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, seen);
      } else if (!seen.has(selection.name.value)) {
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment, new Set([...seen, selection.name.value]));
      }
    }
  };
  walk(operation.selectionSet, new Set());
  return [...needing];
}

/** Whether a root field may run without credentials (`__typename` and introspection read no upstream). */
function anonymousField(root: GraphQLObjectType, name: string): boolean {
  if (name.startsWith('__')) return true;
  const field = root.getFields()[name];
  return field === undefined || factsOf(field)?.anonymous === true; // an unknown field fails validation
}

/** Whether the operation is a mutation of login fields only. */
function isLoginOnly(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): boolean {
  return getOperationAST(document, operationName)?.operation === 'mutation' && fieldsNeedingCredentials(schema, document, operationName)?.length === 0;
}

/** The refusal of an anonymous operation that selects fields needing credentials, if it does. */
function anonymousRefusal(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined) {
  const needing = fieldsNeedingCredentials(schema, document, operationName) ?? [];
  if (needing.length === 0) return undefined;
  const names = needing.map((name) => `\`${name}\``).join(', ');
  return refusal(`${names} ${needing.length === 1 ? 'needs' : 'need'} credentials: send an Authorization header (Basic base64(email:apiKey)).`);
}

export function useCredentialCheck(): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as Context;
      const problem = ctx.credentialsProblem;
      if (problem !== undefined) {
        if (!isLoginOnly(args.schema, args.document, args.operationName)) setResultAndStopExecution(refusal(problem, ctx.credentialsProblemCode));
        return;
      }
      if (ctx.credentials) return;
      const refused = anonymousRefusal(args.schema, args.document, args.operationName);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as Context;
      const problem = ctx.credentialsProblem;
      if (problem !== undefined) return setResultAndStopExecution(refusal(problem, ctx.credentialsProblemCode));
      if (ctx.credentials) return;
      const refused = anonymousRefusal(args.schema, args.document, args.operationName);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
