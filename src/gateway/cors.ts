/**
 * yoga's `cors` option for CORS_ORIGINS: unset ⇒ no CORS headers at all (browsers refuse
 * cross-origin reads); a list ⇒ exactly those origins, with credentials; `*` ⇒ any origin, but
 * never with credentials.
 */
export function corsOptions(corsOrigins: string[] | '*'): false | { origin: string | string[]; credentials: boolean; allowedHeaders: string[]; methods: string[] } {
  if (corsOrigins !== '*' && corsOrigins.length === 0) return false;
  return {
    origin: corsOrigins,
    credentials: corsOrigins !== '*',
    allowedHeaders: ['authorization', 'content-type', 'x-graphql-yoga-csrf', 'x-request-id', 'traceparent', 'tracestate'],
    methods: ['GET', 'POST'],
  };
}
