/**
 * The gateway over node:http, with a fast path for the request almost every client sends:
 * `POST /graphql` with `Content-Type: application/json` and a query or mutation.
 *
 * yoga's HTTP layer (a WHATWG Request per call, its body stream, a Response, the server adapter
 * writing it back) costs about a third of a millisecond of CPU per request, more than the gateway's
 * own work for a single-endpoint query. The fast path reads the body itself and runs the operation
 * through `gateway.getEnveloped(...)`: the same envelop plugins (parse and validation caches,
 * operation limits, context with the caller's credentials, masking, the upstream report) as yoga
 * runs, the same way graphql-ws runs them. It then renders the result with yoga's own
 * `processRegularResult`, so status, headers and body are those yoga would send.
 *
 * Everything else goes to yoga unchanged: other methods and paths (GraphiQL, health), other content
 * types (form posts, so CSRF refusals too), SSE and multipart `Accept`s, a `Content-Length` over the
 * limit or invalid, and, once the body is read, anything yoga would answer with an error before
 * execution (invalid JSON, unexpected parameters, batches, syntax and validation errors, an
 * unknown `operationName`) and every subscription. Those are handed over with the buffered body
 * (@whatwg-node/server takes a pre-read `req.body`, as behind Express' body-parser), so the client
 * gets exactly yoga's answer.
 *
 * Deliberate differences from yoga: a body over the limit is refused with yoga's 413 response plus
 * `Connection: close`, without reading the rest of it (yoga reads and discards it); an operation
 * whose context or execution throws (a bug) is masked with the gateway's `toGraphQLError` directly
 * rather than through yoga's wrapper (same error, same log line); and the `request` the context
 * sees is a stand-in with `method` and `headers.get/has` only (all the gateway reads).
 */
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { createGraphQLError, processRegularResult } from 'graphql-yoga';
import { toGraphQLError } from './errors.js';
import { MAX_REQUEST_BODY_BYTES, type Gateway } from './yoga.js';

export interface HttpHandlerOptions {
  /**
   * Largest request body read, in bytes; a larger one gets 413 `REQUEST_ENTITY_TOO_LARGE`. Keep it
   * equal to the gateway's own limit so both paths refuse the same bodies.
   * @default MAX_REQUEST_BODY_BYTES (yoga.ts)
   */
  maxBodyBytes?: number;
}

/** The parts of a WHATWG Request the gateway's context and plugins read. */
interface RequestLike {
  method: string;
  headers: { get(name: string): string | null; has(name: string): boolean };
}

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

/** What the fast path answers: status, headers (in yoga's order and case) and body, as yoga would. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A JSON POST to the GraphQL endpoint, its body read. */
export interface JsonPost {
  headers: IncomingHttpHeaders;
  body: string;
  /** What yoga's node adapter would give the operation besides `request` and `params` (`req`, `res`). */
  serverContext?: Record<string, unknown>;
}

/** The `fetchAPI` handed to `processRegularResult`: its Response only records what it is given. */
const CAPTURE_FETCH_API = {
  Response: class {
    constructor(
      readonly body: string,
      readonly init: { status: number; headers: Record<string, string> },
    ) {}
  },
} as unknown as Parameters<typeof processRegularResult>[1];

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/**
 * The fast path without node:http (the bench runs it in-process): the answer yoga would give to a
 * JSON POST, or undefined when yoga itself must answer it (see the file comment).
 */
export function createJsonPostHandler(gateway: Gateway): (post: JsonPost) => Promise<HttpAnswer | undefined> {
  const getEnveloped = gateway.getEnveloped;
  return async ({ headers, body, serverContext }) => {
    const mediaType = fastMediaType(headers);
    const params = mediaType === undefined ? undefined : paramsOf(body);
    const run = params && prepare(getEnveloped, headers, params, serverContext);
    if (!run) return undefined;
    let result: ExecutionResult;
    try {
      result = (await run.execute()) as ExecutionResult;
    } catch (error) {
      // yoga's handleParams would mask it with the gateway's maskError, which is toGraphQLError.
      gateway.logger.error(error);
      result = { errors: [toGraphQLError(error)] };
    }
    return answer(result, mediaType!, headers);
  };
}

/** node:http's request listener: the fast path for JSON POSTs, yoga for everything else. */
export function createHttpHandler(gateway: Gateway, options: HttpHandlerOptions = {}): RequestListener {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const endpoint = gateway.graphqlEndpoint;
  const runJsonPost = createJsonPostHandler(gateway);
  const toYoga = (req: IncomingMessage, res: ServerResponse) => void gateway(req, res);

  return (req, res) => {
    const mediaType = req.method === 'POST' && pathOf(req.url) === endpoint ? fastMediaType(req.headers) : undefined;
    if (mediaType === undefined) return toYoga(req, res);
    const declared = req.headers['content-length'];
    if (declared !== undefined && !/^\d+$/.test(declared)) return toYoga(req, res); // yoga's 400
    if (Number(declared) > maxBodyBytes) return send(res, tooLarge(mediaType, req.headers));

    readBody(req, maxBodyBytes)
      .then(
        async (body) => {
          if (body === undefined) return send(res, tooLarge(mediaType, req.headers));
          const answered = await runJsonPost({ headers: req.headers, body: body.toString('utf8'), serverContext: { req, res } });
          if (answered) return send(res, answered);
          // @whatwg-node/server uses a pre-read body (a string or bytes) instead of the consumed stream.
          (req as IncomingMessage & { body?: Buffer }).body = body;
          toYoga(req, res);
        },
        () => req.destroy(), // the client went away while sending; nobody to answer
      )
      .catch((error: unknown) => {
        gateway.logger.error(error);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  };
}

/** The path of a request target, without the query. */
function pathOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * The media type yoga would answer a non-streaming result with, for a request the fast path may
 * take; undefined sends the request to yoga. Only yoga's `application/json` parser is covered, and
 * its check is copied (case-sensitive, first of a list, parameters allowed). SSE and multipart
 * `Accept`s go to yoga whatever the operation turns out to be.
 */
function fastMediaType(headers: IncomingHttpHeaders): string | undefined {
  const contentType = headers['content-type']?.split(',')[0];
  if (contentType === undefined || (contentType !== 'application/json' && !contentType.startsWith('application/json;'))) {
    return undefined;
  }
  if (headers['content-encoding'] !== undefined) return undefined;
  const accept = headers.accept;
  if (accept !== undefined && (accept.includes('text/event-stream') || accept.includes('multipart/mixed'))) return undefined;
  return regularMediaType(accept);
}

const REGULAR_MEDIA_TYPES = ['application/graphql-response+json', 'application/json'];

/** Accept header value → regularMediaType's answer. */
const mediaTypes = new Map<string, string | undefined>();
const MEDIA_TYPE_CACHE_SIZE = 256;

/**
 * yoga's choice among its regular processor's media types (plugins/use-result-processor.js and
 * result-processor/accept.js): the Accept list is read last to first, and the last match wins, so
 * the first listed acceptable type is used; `*` matches anything; a charset other than utf-8
 * excludes an entry. Undefined when none matches (yoga answers 406).
 */
function regularMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '*/*') return 'application/json';
  if (mediaTypes.has(accept)) return mediaTypes.get(accept);
  const chosen = chooseRegularMediaType(accept);
  if (mediaTypes.size >= MEDIA_TYPE_CACHE_SIZE) mediaTypes.clear(); // clients send few distinct values
  mediaTypes.set(accept, chosen);
  return chosen;
}

function chooseRegularMediaType(accept: string): string | undefined {
  const entries = accept.replace(/\s/g, '').toLowerCase().split(',').reverse();
  let chosen: string | undefined;
  for (const entry of entries) {
    const [mediaType, ...parameters] = entry.split(';');
    const charset = parameters.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8' || mediaType === undefined) continue;
    const [type, subtype] = mediaType.split('/');
    for (const candidate of REGULAR_MEDIA_TYPES) {
      const [candidateType, candidateSubtype] = candidate.split('/');
      if ((type === '*' || type === candidateType) && (subtype === '*' || subtype === candidateSubtype)) chosen = candidate;
    }
  }
  return chosen;
}

/** The body, or undefined once it passes `limit` bytes (the rest is not read). Rejects if the client aborts. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
    req.once('close', () => reject(new Error('The request closed before its end.'))); // no-op after 'end'
  });
}

/**
 * The GraphQL parameters of a body yoga would accept as they are (useCheckGraphQLQueryParams);
 * undefined for anything else (invalid JSON, a batch, unexpected keys, wrong types), which yoga
 * then answers with its own error.
 */
function paramsOf(text: string): GraphQLParams | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = body as Record<string, unknown>;
  for (const key in params) if (params[key] != null && !PARAM_NAMES.has(key)) return undefined;
  const { query, variables, operationName, extensions } = params;
  if (typeof query !== 'string') return undefined;
  if (!isOptionalObject(variables) || !isOptionalObject(extensions)) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  return params as unknown as GraphQLParams;
}

function isOptionalObject(value: unknown): boolean {
  return value == null || (typeof value === 'object' && !Array.isArray(value));
}

/**
 * Parses and validates as yoga does (envelop's cached functions, with the same initial context),
 * or returns undefined when yoga must answer: a parse or validation error (reported or thrown), no
 * operation to run (with `usePreventMutationViaGET` that is a parse error too), or a subscription.
 */
function prepare(
  getEnveloped: Gateway['getEnveloped'],
  headers: IncomingHttpHeaders,
  params: GraphQLParams,
  serverContext: Record<string, unknown> | undefined,
): { execute(): unknown } | undefined {
  // What yoga's handleParams gives envelop: the server context plus `request` and `params`.
  const initial: Record<string, unknown> = { ...serverContext };
  initial.request = requestLike(headers);
  initial.params = params;
  const enveloped = getEnveloped(initial as unknown as Parameters<Gateway['getEnveloped']>[0]);
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, params.operationName);
  if (!operation || operation.operation === 'subscription') return undefined;
  try {
    if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
  } catch {
    return undefined; // graphql-armor throws some of its refusals (aliases) instead of reporting them
  }
  return {
    async execute() {
      const contextValue = await enveloped.contextFactory();
      return enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName: params.operationName,
      });
    },
  };
}

/** Node's headers behind the two Headers methods the gateway reads (context.ts, csrf). */
function requestLike(headers: IncomingHttpHeaders): RequestLike {
  return {
    method: 'POST',
    headers: {
      get(name) {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      has: (name) => headers[name.toLowerCase()] !== undefined,
    },
  };
}

/** yoga's answer to a regular result: its result processor's status, headers and body, then CORS. */
function answer(result: ExecutionResult, mediaType: string, requestHeaders: IncomingHttpHeaders): HttpAnswer {
  const rendered = processRegularResult(result as never, CAPTURE_FETCH_API, mediaType) as unknown as {
    body: string;
    init: { status: number; headers: Record<string, string> };
  };
  const { body } = rendered;
  // Header order and case as yoga's server adapter writes them.
  const headers: Record<string, string> = { ...rendered.init.headers };
  headers['content-length'] = String(Buffer.byteLength(body));
  addCorsHeaders(headers, requestHeaders);
  return { status: rendered.init.status, headers, body };
}

/** yoga's 413 for a body over the limit, on a connection then closed (the rest of the body is not read). */
function tooLarge(mediaType: string, requestHeaders: IncomingHttpHeaders): HttpAnswer {
  const error = createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
  const refused = answer({ errors: [error] }, mediaType, requestHeaders);
  refused.headers.Connection = 'close';
  return refused;
}

function send(res: ServerResponse, { status, headers, body }: HttpAnswer): void {
  if (res.destroyed || res.writableEnded) return; // the client left (as yoga's adapter checks)
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * yoga's default CORS answer (@whatwg-node/server useCORS with no options, as createGateway
 * configures it): echo the Origin, allow credentials, and echo requested methods and headers.
 */
function addCorsHeaders(out: Record<string, string>, headers: IncomingHttpHeaders): void {
  const origin = headers.origin;
  if (origin === undefined) return;
  out['access-control-allow-origin'] = origin;
  out.vary = 'Origin';
  const method = headers['access-control-request-method'];
  if (method) out['access-control-allow-methods'] = method;
  const requested = headers['access-control-request-headers'];
  if (requested) {
    out['access-control-allow-headers'] = requested;
    out.vary += ', Access-Control-Request-Headers';
  }
  out['access-control-allow-credentials'] = 'true';
}
