/**
 * The `@live` directive: @n1ru4l/graphql-live-query's own (same name, arguments and defaults, which
 * its readers and validation rule go by), described as this gateway serves it.
 */
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { GraphQLDirective } from 'graphql';

const config = GraphQLLiveDirective.toConfig();

export const LiveDirective = new GraphQLDirective({
  ...config,
  description:
    'Makes the query live over graphql-ws, SSE or multipart HTTP: a new result is sent whenever an event of the caller\u2019s ' +
    'own queue changes something the query read. Over plain HTTP (a JSON answer) it runs once. See docs/realtime.md, "Live queries".',
  args: {
    if: { ...config.args.if!, description: 'Whether the query is live (default true).' },
    throttle: {
      ...config.args.throttle!,
      description:
        'Least time between two results, in milliseconds. The gateway\u2019s LIVE_QUERY_THROTTLE_MS is the minimum: a smaller value is raised to it.',
    },
  },
});
