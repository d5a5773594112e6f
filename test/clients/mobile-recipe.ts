import { GraphQLClient } from 'graphql-request';

/** A mobile-style client: plain HTTP POSTs, compressed answers (fetch decompresses them). */
export function chatgraphMobile(url: string, authorization: string, fetchImpl: typeof fetch = fetch) {
  return new GraphQLClient(url, {
    method: 'POST',
    headers: { authorization, 'accept-encoding': 'br, gzip' },
    fetch: fetchImpl,
  });
}
