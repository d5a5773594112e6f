/**
 * Logs what an operator needs: one access line per HTTP request (method, path, status, duration,
 * request id; debug for the health and metrics probes) and each error of a result at the level its
 * cause calls for (observability/logger.ts `classifyError`). Must come after useRequestId and
 * before yoga masks errors (yoga adds its masking after the configured plugins), so that a bug's
 * original error and stack are logged while the client sees "Unexpected error.".
 */
import type { Plugin } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { MalformedResponseError } from '../../zulip/errors.js';
import { UPSTREAM_BAD_RESPONSE_HINT } from '../errors.js';
import { logFailure, type Logger } from '../observability/logger.js';
import { REQUEST_ID_HEADER } from '../observability/request-id.js';
import { operationInfo, safeOperationName } from '../observability/operation.js';

const QUIET_PATHS = new Set(['/health', '/readiness', '/metrics']);

export function useLogging(logger: Logger, options: { quietPaths?: Iterable<string> } = {}): Plugin<{ log?: Logger; requestId?: string }> {
  const started = new WeakMap<Request, number>();
  const quiet = new Set([...QUIET_PATHS, ...(options.quietPaths ?? [])]);
  // One plugin per gateway: a misconfigured ZULIP_URL is logged once as an error, not per request.
  let badResponseLogged = false;
  const logBadResponse = (log: Logger, error: MalformedResponseError, fields: Record<string, unknown>): void => {
    const summary = { ...fields, errorKind: 'upstream', route: error.routeName, httpStatus: error.httpStatus, hint: UPSTREAM_BAD_RESPONSE_HINT };
    if (badResponseLogged) return void log.debug(summary, error.message);
    badResponseLogged = true;
    log.error(summary, `the chat server answered with something that is not its API: ${UPSTREAM_BAD_RESPONSE_HINT}`);
  };
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onExecute({ args }) {
      const log = args.contextValue.log ?? logger;
      const operationName = safeOperationName(operationInfo(args.document, args.operationName).name);
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          for (const error of result.errors ?? []) {
            const original = error instanceof GraphQLError ? error.originalError : undefined;
            if (original instanceof MalformedResponseError) logBadResponse(log, original, { operationName });
            else logFailure(log, error, { operationName });
          }
        },
      };
    },
    onResponse({ request, response }) {
      const start = started.get(request);
      const url = new URL(request.url);
      const level = quiet.has(url.pathname) ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
          method: request.method,
          path: url.pathname,
          status: response.status,
          durationMs: start === undefined ? undefined : Math.round((performance.now() - start) * 10) / 10,
        },
        'request',
      );
    },
  };
}
