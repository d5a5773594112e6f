/**
 * Gives every request an id (the client's sane `x-request-id`, else a new one), echoes it in the
 * response, and puts it in the GraphQL context with a child logger carrying it, so resolvers'
 * upstream calls can send it on (observability/upstream.ts) and every log line names it.
 * graphql-ws operations have no HTTP request of their own: each gets a fresh id.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../observability/logger.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../observability/request-id.js';

export interface RequestIdContext {
  /** Undefined once a subscription is set up (see onSubscribe). */
  requestId: string | undefined;
  /** The gateway logger with `requestId` on every line (when the plugin was given a logger). */
  log?: Logger;
}

export function useRequestId(logger?: Logger): Plugin {
  const ids = new WeakMap<Request, string>();
  return {
    onRequest({ request }) {
      ids.set(request, requestIdFrom(request.headers.get(REQUEST_ID_HEADER)));
    },
    onContextBuilding({ context, extendContext }) {
      const request = (context as { request?: Request }).request;
      const requestId = (request && ids.get(request)) ?? requestIdFrom(undefined);
      const extension: RequestIdContext = { requestId, ...(logger && { log: logger.child({ requestId }) }) };
      extendContext(extension as Partial<typeof context>);
    },
    onSubscribe({ args }) {
      // The id marks the upstream calls that set the subscription up. The credential's event queue
      // it may start keeps polling with this request's connection, also for later subscribers:
      // those polls are nobody's request and carry no id (as they carry no trace, plugins/tracing.ts).
      const context = args.contextValue as Partial<RequestIdContext>;
      const drop = () => void (context.requestId = undefined);
      return { onSubscribeResult: drop, onSubscribeError: drop };
    },
    onResponse({ request, response }) {
      const id = ids.get(request);
      if (id) response.headers.set(REQUEST_ID_HEADER, id);
    },
  };
}
