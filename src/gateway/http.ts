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
 * `Connection: close`, without reading the rest of it (yoga reads and discards it); and an operation that throws outside execution (a bug) is masked with the gateway's
 * `toGraphQLError` directly.
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
  url: string;
  headers: { get(name: string): string | null; has(name: string): boolean };
}

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

/** A response rendered by yoga's result processor, captured instead of built. */
interface Rendered {
  status: number;
  headers: Record<string, string>;
  body: string;
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

export function createHttpHandler(gateway: Gateway, options: HttpHandlerOptions = {}): RequestListener {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const endpoint = gateway.graphqlEndpoint;
  const getEnveloped = gateway.getEnveloped;
  const toYoga = (req: IncomingMessage, res: ServerResponse) => void gateway(req, res);

  return (req, res) => {
    const mediaType = req.method === 'POST' && pathOf(req.url) === endpoint ? fastMediaType(req.headers) : undefined;
    if (mediaType === undefined) return toYoga(req, res);
    const declared = req.headers['content-length'];
    if (declared !== undefined && !/^\d+$/.test(declared)) return toYoga(req, res); // yoga's 400
    if (Number(declared) > maxBodyBytes) return refuseTooLarge(res, mediaType, req.headers);

    readBody(req, maxBodyBytes).then(
      async (body) => {
        if (body === undefined) return refuseTooLarge(res, mediaType, req.headers);
        const text = body.toString('utf8');
        const params = paramsOf(text);
        const run = params && prepare(getEnveloped, req, res, params);
        if (!run) return handOver(req, res, body);
        let result: ExecutionResult;
        try {
          result = (await run.execute()) as ExecutionResult;
        } catch (error) {
          gateway.logger.error(error);
          result = { errors: [toGraphQLError(error)] };
        }
        send(res, render(result, mediaType), req.headers);
      },
      () => req.destroy(), // the client went away while sending; nobody to answer
    ).catch((error: unknown) => {
      gateway.logger.error(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });

    function handOver(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
      // @whatwg-node/server uses a pre-read body (a string or bytes) instead of the consumed stream.
      (request as IncomingMessage & { body?: Buffer }).body = body;
      toYoga(request, response);
    }
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

/**
 * yoga's choice among its regular processor's media types (plugins/use-result-processor.js and
 * result-processor/accept.js): the Accept list is read last to first, and the last match wins, so
 * the first listed acceptable type is used; `*` matches anything; a charset other than utf-8
 * excludes an entry. Undefined when none matches (yoga answers 406).
 */
function regularMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '*/*') return 'application/json';
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
 * or returns undefined when yoga must answer: a parse or validation error, no operation to run
 * (with `usePreventMutationViaGET` that is a parse error too), or a subscription.
 */
function prepare(
  getEnveloped: Gateway['getEnveloped'],
  req: IncomingMessage,
  res: ServerResponse,
  params: GraphQLParams,
): { execute(): unknown } | undefined {
  // What yoga's handleParams gives envelop: its node server context plus `request` and `params`.
  const initial = { req, res, request: requestLike(req), params };
  const enveloped = getEnveloped(initial as unknown as Parameters<Gateway['getEnveloped']>[0]);
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, params.operationName);
  if (!operation || operation.operation === 'subscription') return undefined;
  if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
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

/** Node's headers behind the two Headers methods the gateway uses (context.ts, csrf). */
function requestLike(req: IncomingMessage): RequestLike {
  const headers = req.headers;
  return {
    method: 'POST',
    url: req.url ?? '/',
    headers: {
      get(name) {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      has: (name) => headers[name.toLowerCase()] !== undefined,
    },
  };
}

/** yoga's rendering of a regular result (status from the errors, content type, stringify without internals). */
function render(result: ExecutionResult, mediaType: string): Rendered {
  const captured = processRegularResult(result as never, CAPTURE_FETCH_API, mediaType) as unknown as {
    body: string;
    init: { status: number; headers: Record<string, string> };
  };
  return { status: captured.init.status, headers: captured.init.headers, body: captured.body };
}

/** yoga's 413 for a body over the limit, on a connection that is then closed (the body is not read). */
function refuseTooLarge(res: ServerResponse, mediaType: string, headers: IncomingHttpHeaders): void {
  const error = createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
  const rendered = render({ errors: [error] }, mediaType);
  rendered.headers.Connection = 'close';
  send(res, rendered, headers);
}

function send(res: ServerResponse, { status, headers, body }: Rendered, requestHeaders: IncomingHttpHeaders): void {
  // Header order and case as yoga's server adapter writes them.
  const out: Record<string, string> = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  addCorsHeaders(out, requestHeaders);
  res.writeHead(status, out);
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
