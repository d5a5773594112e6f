/**
 * One deadline per query or mutation: every upstream call it causes (batches, retries, follow-up
 * lookups) must end within `upstreamDeadlineMs` of its start, so a hung chat server costs a client
 * about that long, not that long per call. A call made after it fails at once with
 * UPSTREAM_TIMEOUT (see zulip/connection.ts `sharedDeadline`). Subscriptions have none: they live
 * for as long as the client wants, each call under its own deadline.
 */
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

/** Default of createGateway's `upstreamDeadlineMs`. */
export const DEFAULT_UPSTREAM_DEADLINE_MS = 10_000;

export function useDeadline(deadlineMs = DEFAULT_UPSTREAM_DEADLINE_MS): Plugin<Context> {
  return {
    onExecute({ args }) {
      const context = args.contextValue as Context;
      context.deadline.expiresAt ??= performance.now() + deadlineMs;
    },
  };
}
