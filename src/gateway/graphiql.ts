/**
 * GraphiQL, served from the installed @graphql-yoga/render-graphiql package: its page inlines the
 * editor, workers and styles (megabytes of it), so nothing is loaded from a CDN (yoga's built-in page
 * pulls everything from unpkg). The package is imported at the first GraphiQL request, not with the
 * gateway: its bundle is held as strings (tens of megabytes of heap) by every process that imports
 * it, and most gateways never serve the page. The page is rendered once per gateway and then reused.
 *
 * Opens on docs/examples.md's dashboard query; in demo mode the demo Authorization header is pre-filled.
 * Every request it sends carries the CSRF header (`additionalHeaders`), so its SSE subscriptions
 * pass the CSRF rule whatever content type the browser picks.
 */
import type { GraphiQLOptions } from 'graphql-yoga';

/** docs/examples.md's "Messages" dashboard query (test/gateway/observability/graphiql.test.ts checks it is there verbatim). */
export const DASHBOARD_QUERY = `query Dashboard {
  messages(last: 100) {
    edges {
      cursor
      node {
        id timestamp content
        sender { id fullName avatarUrl role }
        channel { id name description }       # null for direct messages
        reactions { emojiName user { id fullName } }
      }
    }
    pageInfo { hasPreviousPage startCursor }
  }
}
`;

const GRAPHIQL_TITLE = 'chatgraph';

export interface GraphiQLSetup {
  /** Authorization header value to pre-fill (demo mode only). */
  demoAuthorization?: string;
  /** The header the CSRF rule looks for. */
  csrfHeader: string;
}

/** yoga's `graphiql` option. */
export function graphiqlOptions(setup: GraphiQLSetup): GraphiQLOptions {
  return {
    title: GRAPHIQL_TITLE,
    defaultQuery: DASHBOARD_QUERY,
    ...(setup.demoAuthorization && { headers: JSON.stringify({ Authorization: setup.demoAuthorization }, null, 2) }),
    additionalHeaders: { [setup.csrfHeader]: '1' },
    subscriptionsProtocol: 'SSE',
    // Headers hold credentials: never persisted to the browser's local storage.
    shouldPersistHeaders: false,
  };
}

/**
 * yoga's `renderGraphiQL` option: the packaged page, rendered once per distinct options (one in
 * practice), since rendering copies the whole bundle into a new string.
 */
export function packagedGraphiQLRenderer(): (options: GraphiQLOptions) => Promise<string> {
  let last: { key: string; html: Promise<string> } | undefined;
  return (options) => {
    const key = JSON.stringify(options);
    if (last?.key !== key) {
      const html = import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => renderGraphiQL(options));
      last = { key, html };
    }
    return last.html;
  };
}
