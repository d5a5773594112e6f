/**
 * Refuses requests a browser could send from another site without a CORS preflight: those without
 * a non-simple content type (e.g. application/json) and without the CSRF header. The same rule as
 * @graphql-yoga/plugin-csrf-prevention, kept here because that plugin's refusal carries no error
 * code and clients need a stable one (CSRF_REFUSED) to tell it from other 403s.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { GatewayErrorCode } from '../errors.js';

/** Header that marks a request as sent by a script or app, not by a cross-site HTML form. */
export const CSRF_HEADER = 'x-graphql-yoga-csrf';

/** Content types a browser may send cross-site without a CORS preflight. */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

export function useCsrfPrevention(): Plugin {
  return {
    onRequestParse({ request }) {
      if (request.headers.has(CSRF_HEADER)) return;
      const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
      if (mediaType && !SIMPLE_CONTENT_TYPES.has(mediaType)) return;
      throw createGraphQLError(
        `Refused as a possible cross-site request: send Content-Type: application/json, or the ${CSRF_HEADER} header.`,
        { extensions: { code: GatewayErrorCode.csrfRefused, http: { status: 403 } } },
      );
    },
  };
}
