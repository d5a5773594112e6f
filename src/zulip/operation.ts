/**
 * Calls a Zulip operation described by the generated table (src/zulip/generated/, written by
 * `npm run generate:api` from Zulip's OpenAPI description): the path template is filled from the
 * params, and each other parameter is encoded as the table says, `json(...)` where Zulip's view
 * reads `Json[...]` and `raw(...)` where it reads `str` (see params.ts). The generator writes one
 * binding per operation over it:
 *
 *   export const getSavedSnippets = <Result = ZulipResult>(connection: ZulipConnection,
 *     params: GetSavedSnippetsParams = {}, call?: SendOptions): Promise<SendResult<Result>> =>
 *     callOperation<GetSavedSnippetsParams, Result>(connection, getSavedSnippetsOperation, params, call);
 *
 * and src/zulip/routes/ fixes its result type (`ops.getSavedSnippets<GetSavedSnippetsResult>`) or
 * wraps it in a function where a caller needs defaults or parsing. https://zulip.com/api/rest
 */
import type { Method, SendOptions, SendResult, ZulipConnection } from './connection.js';
import { multipartBody, type FilePart } from './multipart.js';
import { json, raw, type WireValue } from './params.js';

/** One parameter of an operation, as the generated table lists it. */
export interface OperationParameter {
  /** The camelCase key in the params object. */
  readonly key: string;
  /** The wire name (snake_case, as Zulip reads it). */
  readonly name: string;
  /** Where it travels: the path template, or the query string / form body (the connection chooses by method). */
  readonly in: 'path' | 'query' | 'body';
  /** `json`: Zulip decodes it as JSON (`Json[...]`); `raw`: Zulip takes the text (`str`, and path parameters). */
  readonly encoding: 'raw' | 'json';
  readonly required: boolean;
  /** The feature level that added it, when Zulip's description says so. */
  readonly featureLevel?: number;
  readonly deprecated?: true;
  /** A file part of a multipart body (uploads). */
  readonly binary?: true;
}

/** One Zulip REST operation; `Params` is the type of the params object {@link callOperation} takes. */
export interface ZulipOperation<Params extends object = object> {
  /** Zulip's operation id, also the route name in errors, logs and metrics; docs at https://zulip.com/api/<id>. */
  readonly id: string;
  readonly method: Method;
  /** The path template below /api/v1, as in Zulip's description (`/messages/{message_id}`). */
  readonly path: string;
  /** The feature level that added the operation; 0 when every supported server has it. */
  readonly featureLevel: number;
  /** How the body travels: none, a form, or multipart (uploads, which need a streaming route). */
  readonly body: 'none' | 'form' | 'multipart';
  readonly deprecated?: true;
  readonly parameters: readonly OperationParameter[];
  /** Carries the params type only; never set. */
  readonly params?: Params;
}

/** The answer of an operation whose binding was given no result type. */
export type ZulipResult = Record<string, unknown>;

/**
 * The feature level an operation needs and how to name it in an error: what the gateway's
 * feature gate takes (`requireFeatureLevel(ctx, ...operationGate(zulipOperations.getDrafts))`).
 */
export function operationGate(operation: Pick<ZulipOperation, 'id' | 'featureLevel'>): [level: number, what: string] {
  return [operation.featureLevel, `https://zulip.com/api/${operation.id}`];
}

/**
 * Calls `operation` with `params` (camelCase keys; `undefined` ones are left out). Throws a
 * TypeError before any request when a path parameter is missing, when a `raw` parameter is not a
 * string, number or boolean, or when the operation takes a multipart body.
 */
export function callOperation<Params extends object, Result = Record<string, unknown>>(
  connection: ZulipConnection,
  operation: ZulipOperation<Params>,
  params: NoInfer<Params>,
  call: SendOptions = {},
): Promise<SendResult<Result>> {
  let request: { path: string; wire: Record<string, WireValue | undefined> };
  try {
    request = prepareOperation(operation, params);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return connection.request<Result>(operation.id, operation.method, request.path, request.wire, call);
}

/**
 * Calls an operation that takes a multipart body (an upload): `params` as {@link callOperation}
 * takes them, and the file streamed as the operation's binary part (`file.stream` is read as the
 * server takes it).
 */
export function uploadOperation<Params extends object, Result = Record<string, unknown>>(
  connection: ZulipConnection,
  operation: ZulipOperation<Params>,
  params: NoInfer<Params>,
  file: FilePart,
  call: SendOptions = {},
): Promise<SendResult<Result>> {
  let request: { path: string; wire: Record<string, WireValue | undefined> };
  const part = operation.parameters.find((parameter) => parameter.binary);
  try {
    if (operation.body !== 'multipart' || !part) throw new TypeError(`${operation.id} takes no file`);
    request = prepareOperation(operation, params, true);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return connection.upload<Result>(operation.id, operation.method, request.path, multipartBody(request.wire, part.name, file), call);
}

/** The relative path (parameters percent-encoded) and the wire parameters of a call. */
export function prepareOperation(
  operation: ZulipOperation,
  params: object,
  upload = false,
): { path: string; wire: Record<string, WireValue | undefined> } {
  if (operation.body === 'multipart' && !upload) throw new TypeError(`${operation.id} takes a multipart body: it needs an upload route`);
  const values = params as Readonly<Record<string, unknown>>;
  const byName = new Map(operation.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[byName.get(name)?.key ?? name];
    if (value === undefined || value === null || value === '') throw new TypeError(`${operation.id}: path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
  const wire: Record<string, WireValue | undefined> = {};
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path' || parameter.binary) continue;
    const value = values[parameter.key];
    if (value === undefined) continue;
    if (parameter.encoding === 'json') {
      wire[parameter.name] = json(value);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      wire[parameter.name] = raw(value);
    } else {
      throw new TypeError(`${operation.id}: parameter ${parameter.name} is sent as text and cannot be ${value === null ? 'null' : typeof value}`);
    }
  }
  return { path: path.replace(/^\/+/, ''), wire };
}
