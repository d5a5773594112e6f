/**
 * Refuses an operation whose Authorization value is present but unusable (another scheme, not
 * base64, no colon, empty) before it runs: UNAUTHENTICATED with the gateway's own message, and no
 * upstream call at all, not even an anonymous one for a public field. Only a request without any
 * Authorization value is anonymous (or takes the default identity); see context.ts.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import { GatewayErrorCode } from '../errors.js';

function refusal(problem: string) {
  return { errors: [new GraphQLError(problem, { extensions: { code: GatewayErrorCode.unauthenticated } })] };
}

export function refuseUnusableCredentials(): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const problem = (args.contextValue as Context).credentialsProblem;
      if (problem !== undefined) setResultAndStopExecution(refusal(problem));
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const problem = (args.contextValue as Context).credentialsProblem;
      if (problem !== undefined) setResultAndStopExecution(refusal(problem));
    },
  };
}
