/**
 * Every HTTP refusal carries a JSON body with a code (errors.ts `GatewayErrorCode`), as every
 * GraphQL error does: a client, a proxy's log or an operator reads why without guessing from a
 * status. yoga answers some refusals with an empty body (415 for a content type it does not read,
 * 406 when the Accept header allows nothing it writes, 404 off the GraphQL path), a 405 with the
 * generic BAD_REQUEST, and a GET whose `variables` or `extensions` is not JSON with a 500
 * "Unexpected error.". Here they are refused before yoga does, each with its own code, and any
 * other refusal that still leaves yoga without a JSON body gets one from its status.
 *
 * Refusals node's HTTP server makes before yoga sees a request (malformed HTTP, header timeouts,
 * oversized headers) and the connection cap are transport/http.ts's.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { GatewayErrorCode, refusalBody } from '../errors.js';

/** Methods the GraphQL path serves (yoga's own check, answered here with a code of its own). */
const METHODS = ['GET', 'POST'];

/** The code and message of a refusal known only by its status. */
const BY_STATUS: Readonly<Record<number, [GatewayErrorCode, string]>> = {
  400: [GatewayErrorCode.badRequest, 'Bad request.'],
  404: [GatewayErrorCode.routeNotFound, 'Not found: GraphQL is served on its endpoint path only.'],
  405: [GatewayErrorCode.methodNotAllowed, 'Method not allowed: send GET or POST.'],
  406: [GatewayErrorCode.notAcceptable, 'Not acceptable: no answer in a media type the Accept header allows.'],
  413: [GatewayErrorCode.requestEntityTooLarge, 'Request body too large'],
  415: [GatewayErrorCode.unsupportedMediaType, 'Unsupported media type: send Content-Type: application/json.'],
};

function refusal(status: number, code: GatewayErrorCode, message: string, headers: Record<string, string> = {}): Error {
  return createGraphQLError(message, { extensions: { code, http: { status, headers } } });
}

/** 405 METHOD_NOT_ALLOWED for a method other than GET and POST: first, since no other rule applies to it. */
export function useMethodRefusal(): Plugin {
  return {
    onRequestParse({ request }) {
      if (!METHODS.includes(request.method)) {
        throw refusal(405, GatewayErrorCode.methodNotAllowed, `Method ${request.method} not allowed: send GET or POST.`, { allow: METHODS.join(', ') });
      }
    },
  };
}

/**
 * 415 for a content type yoga does not read, 400 for a GET whose parameters are not JSON, and a
 * coded JSON body for any refusal left without one. After the CSRF check, whose 403 tells a
 * cross-site form post what it is.
 */
export function useCodedRefusals(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) throw refusal(415, ...BY_STATUS[415]!);
      // yoga's GET parser JSON-parses `variables` and `extensions` as they come: a SyntaxError
      // there would be masked as a bug (500).
      setRequestParser(async (parsed) => {
        try {
          return await requestParser(parsed);
        } catch (error) {
          if (error instanceof SyntaxError) {
            throw refusal(400, GatewayErrorCode.badRequest, 'The variables or extensions parameter is not valid JSON.');
          }
          throw error;
        }
      });
    },
    onResponse({ response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.headers.get('content-type')?.includes('json')) return;
      const [code, message] =
        BY_STATUS[response.status] ?? (response.status >= 500 ? [GatewayErrorCode.internal, 'Unexpected error.'] : BY_STATUS[400]!);
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-type', 'application/json; charset=utf-8');
      headers.delete('content-length');
      setResponse(new fetchAPI.Response(refusalBody(message, code), { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
