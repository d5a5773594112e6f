/**
 * Imported first by bench/gateway-overhead.ts: a production configuration, set before graphql is
 * loaded (graphql-js decides at load time whether to run its development-only checks; its
 * `instanceOf` otherwise compares constructor names on every type test during execution).
 */
process.env.NODE_ENV ??= 'production';
