/**
 * Bounds request bodies: 413 REQUEST_ENTITY_TOO_LARGE from a Content-Length over the limit, or, for
 * a body of undeclared length (chunked), as soon as more than the limit has arrived.
 *
 * Used instead of yoga's `maxRequestBodySize`, which pipes every body through a counting
 * TransformStream, declared length or not (node stream pipeline, abort signals, a DOMException when
 * it finishes), a cost every request pays though almost none is over the limit (`npm run
 * bench:body-limit` compares the two; see the README's Performance section). A declared length
 * needs no counting: node's HTTP parser reads exactly that many bytes as the body, and in-process
 * callers (`gateway.fetch`) are our own code.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { GatewayErrorCode } from '../errors.js';
import { isMultipartRequest } from './uploads.js';

/** A Content-Length node would accept: one non-negative integer. */
const DECLARED_LENGTH = /^\d+$/;

function tooLarge(): Error {
  return createGraphQLError('Request body too large', {
    extensions: { code: GatewayErrorCode.requestEntityTooLarge, http: { status: 413 } },
  });
}

export function useBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      // An upload's fields are bounded by its parser, its file by the chat server's limit (uploads.ts).
      if (isMultipartRequest(request)) return;
      const declared = request.headers.get('content-length');
      if (declared !== null && DECLARED_LENGTH.test(declared)) {
        if (Number(declared) > maxBytes) throw tooLarge();
        return;
      }
      if (!requestParser || !request.body) return;
      setRequestParser((unbounded) => requestParser(countedBody(unbounded, maxBytes, fetchAPI)));
    },
  };
}

type FetchAPI = Parameters<NonNullable<Plugin['onRequestParse']>>[0]['fetchAPI'];

/** The same request with a body that fails with 413 once more than `maxBytes` went through it. */
function countedBody(request: Request, maxBytes: number, fetchAPI: FetchAPI): Request {
  let read = 0;
  // A native body stream needs the native TransformStream; yoga's ponyfill body, the ponyfill's.
  const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  const body = request.body!.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > maxBytes) return controller.error(tooLarge());
        controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body,
    duplex: 'half',
  } as RequestInit);
}
