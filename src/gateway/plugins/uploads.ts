/**
 * Reads GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec)
 * as a stream, in place of yoga's own parser, which reads the whole body into a FormData first:
 * the `operations` and `map` fields are parsed as they arrive, each mapped file becomes an
 * {@link Upload} in the variables, and the operation starts before the file's bytes have come. The
 * resolver that takes the Upload streams the bytes upstream (schema/uploads.ts), so the file's
 * size bounds nothing in the gateway's memory.
 *
 * One file per request: its bytes arrive after the operation's, in the body's order, and a second
 * file could only be reached by holding the first. The fields are bounded like any request body
 * (plugins/body-limit.ts leaves multipart bodies to this plugin); the file by the chat server's
 * upload limit, where it is read.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { GatewayErrorCode } from '../errors.js';
import { Upload } from '../upload.js';

function badMultipart(message: string): Error {
  return createGraphQLError(message, { extensions: { code: GatewayErrorCode.badRequest, http: { status: 400 } } });
}

/** Whether the request is a POST with a multipart/form-data body. */
export function isMultipartRequest(request: Request): boolean {
  return request.method === 'POST' && (request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** Sets `value` at a dotted `path` of the operations (`variables.file`, `0.variables.files.1`). */
function setAtPath(operations: unknown, path: string, value: Upload): boolean {
  const keys = path.split('.');
  let current = operations as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return false;
    if (i === keys.length - 1) {
      if (!Object.hasOwn(current, key) || current[key] !== null) return false; // the spec's placeholder is null
      current[key] = value;
      return true;
    }
    const next = current[key];
    if (typeof next !== 'object' || next === null) return false;
    current = next as Record<string, unknown>;
  }
  return false;
}

/** The request body as a node stream, for busboy. */
function bodyStream(request: Request): Readable {
  const body = request.body as unknown as AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
  return body instanceof ReadableStream ? Readable.fromWeb(body as NodeReadableStream<Uint8Array>) : Readable.from(body);
}

/**
 * Parses a multipart GraphQL request: resolves with the operation(s) once `operations` and `map`
 * arrived, the mapped file as an Upload that resolves when its part begins.
 */
export function parseMultipartRequest(request: Request, maxFieldBytes: number): Promise<GraphQLParams | GraphQLParams[]> {
  if (!request.body) return Promise.reject(badMultipart('Missing multipart body.'));
  const declared = request.headers.get('content-length');
  const contentLength = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      limits: { fieldSize: maxFieldBytes, fields: 2, files: 1 },
    });
  } catch (error) {
    return Promise.reject(badMultipart(`Malformed multipart request: ${(error as Error).message}`));
  }
  const source = bodyStream(request);
  let fedBytes = 0;
  source.on('data', (chunk: Uint8Array) => (fedBytes += chunk.byteLength));
  return new Promise((resolve, reject) => {
    let operations: unknown;
    let settled = false;
    /** File part name → the Upload waiting for it. */
    const uploads = new Map<string, Upload>();
    const fail = (error: Error) => {
      for (const upload of uploads.values()) upload.fail(error);
      uploads.clear();
      if (!settled) (settled = true), reject(error);
      // Not destroyed: that would end the connection before the answer. The HTTP transport ends a
      // connection whose request was answered before its body was read (transport/http.ts).
      source.unpipe(parser);
    };
    parser.on('field', (name, value, info) => {
      if (settled) return fail(badMultipart(`Unexpected multipart field "${name}".`));
      if (info.valueTruncated) return fail(createGraphQLError('Request body too large', { extensions: { code: GatewayErrorCode.requestEntityTooLarge, http: { status: 413 } } }));
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return fail(badMultipart(`Multipart field "${name}" must be valid JSON.`));
      }
      if (name === 'operations') {
        if (typeof parsed !== 'object' || parsed === null) return fail(badMultipart('Multipart field "operations" must be an object or a list.'));
        operations = parsed;
        return;
      }
      if (name !== 'map' || operations === undefined) return fail(badMultipart('A multipart request sends "operations", then "map", then its file.'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail(badMultipart('Multipart field "map" must be an object.'));
      const entries = Object.entries(parsed as Record<string, unknown>);
      if (entries.length > 1) return fail(badMultipart('A multipart request carries one file.'));
      for (const [file, paths] of entries) {
        if (!Array.isArray(paths) || paths.length === 0) return fail(badMultipart(`The map of file "${file}" must list its variable paths.`));
        const upload = new Upload(contentLength === undefined ? undefined : contentLength - fedBytes);
        for (const path of paths) {
          if (typeof path !== 'string' || !setAtPath(operations, path, upload)) return fail(badMultipart(`The map of file "${file}" names no null variable at ${JSON.stringify(path)}.`));
        }
        uploads.set(file, upload);
      }
      settled = true;
      resolve(operations as GraphQLParams | GraphQLParams[]);
    });
    parser.on('file', (name, stream, info) => {
      const upload = uploads.get(name);
      if (!upload) return void stream.resume(); // a part no variable maps: discarded
      uploads.delete(name);
      upload.receive({ filename: info.filename ?? name, mimeType: info.mimeType, stream });
    });
    parser.on('filesLimit', () => fail(badMultipart('A multipart request carries one file.')));
    parser.on('fieldsLimit', () => fail(badMultipart('A multipart request has two fields, "operations" and "map".')));
    parser.on('error', (error: Error) => fail(badMultipart(`Malformed multipart request: ${error.message}`)));
    parser.on('close', () => {
      if (!settled) fail(badMultipart('Missing multipart field "operations" or "map".'));
      for (const upload of uploads.values()) upload.fail(badMultipart('The request ended before its file.'));
      uploads.clear();
    });
    source.on('error', (error) => fail(error));
    source.pipe(parser);
  });
}

/**
 * The plugin: multipart POST requests are parsed by {@link parseMultipartRequest}, with the
 * `operations` and `map` fields bounded by `maxFieldBytes`.
 */
export function useUploads(maxFieldBytes: number): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (isMultipartRequest(request)) setRequestParser((r) => parseMultipartRequest(r, maxFieldBytes));
    },
  };
}
