/**
 * Refuses an operation whose Authorization value is present but unusable (another scheme, not
 * base64, no colon, empty) before it runs: UNAUTHENTICATED with the gateway's own message, and no
 * upstream call at all, not even an anonymous one for a public field. Only a request without any
 * Authorization value is anonymous (or takes the default identity); see context.ts.
 *
 * The one exception is a mutation that selects only login fields (schema/authentication.ts): a
 * client logs in to get usable credentials, so it may still hold stale or broken ones.
 */
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';
import { ANONYMOUS_MUTATIONS } from '../schema/authentication.js';

function refusal(problem: string) {
  return { errors: [new GraphQLError(problem, { extensions: { code: GatewayErrorCode.unauthenticated } })] };
}

/** Whether the operation is a mutation of login fields only (no fragments, so nothing else can hide). */
function isLoginOnly(document: DocumentNode, operationName: string | null | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'mutation') return false;
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && (selection.name.value === '__typename' || ANONYMOUS_MUTATIONS.has(selection.name.value)),
  );
}

export function useCredentialCheck(): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const problem = (args.contextValue as Context).credentialsProblem;
      if (problem !== undefined && !isLoginOnly(args.document, args.operationName)) setResultAndStopExecution(refusal(problem));
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const problem = (args.contextValue as Context).credentialsProblem;
      if (problem !== undefined) setResultAndStopExecution(refusal(problem));
    },
  };
}
