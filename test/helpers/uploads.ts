/**
 * GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) sent
 * the way a browser or app sends them: undici's fetch with a FormData body (`operations`, `map`,
 * then the file as a Blob), or a hand-written streamed body of undeclared length.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { fetch as undiciFetch, FormData as UndiciFormData } from 'undici';
import type { Credentials } from '../../src/zulip/credentials.js';
import { basicAuth } from './harness.js';

export interface MultipartResult {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Random bytes of a given size (compared by hash after the round trip). */
export function testBytes(size: number): Uint8Array {
  return randomFillSync(new Uint8Array(size));
}

export function sha256(bytes: Uint8Array | ArrayBuffer): string {
  return createHash('sha256').update(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).digest('hex');
}

/** Sends `query` with `file` as the variable `variable` in a multipart request (FormData, declared length). */
export async function postMultipart(
  url: string,
  query: string,
  file: { bytes: Uint8Array; name: string; type?: string },
  options: { as?: Credentials; variables?: Record<string, unknown>; variable?: string } = {},
): Promise<MultipartResult> {
  const variable = options.variable ?? 'file';
  const form = new UndiciFormData();
  form.append('operations', JSON.stringify({ query, variables: { ...options.variables, [variable]: null } }));
  form.append('map', JSON.stringify({ 0: [`variables.${variable}`] }));
  form.append('0', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await undiciFetch(url, {
    method: 'POST',
    headers: { 'x-graphql-yoga-csrf': '1', accept: 'application/json', ...(options.as && { authorization: basicAuth(options.as) }) },
    body: form,
  });
  return { status: response.status, ...((await response.json()) as Omit<MultipartResult, 'status'>) };
}

/**
 * The same request with a body of undeclared length (chunked): its file part is `fileBytes` long,
 * written in 64 kB pieces as the server reads them.
 */
export async function postMultipartChunked(url: string, query: string, fileBytes: number, as: Credentials): Promise<MultipartResult> {
  const boundary = 'chatgraph-test-boundary';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query, variables: { file: null } })}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n${JSON.stringify({ 0: ['variables.file'] })}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const piece = new Uint8Array(64 * 1024).fill(7);
  async function* body(): AsyncGenerator<Uint8Array> {
    yield new TextEncoder().encode(head);
    for (let sent = 0; sent < fileBytes; sent += piece.byteLength) yield piece.subarray(0, Math.min(piece.byteLength, fileBytes - sent));
    yield new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  }
  const response = await undiciFetch(url, {
    method: 'POST',
    headers: { 'x-graphql-yoga-csrf': '1', accept: 'application/json', authorization: basicAuth(as), 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: body(),
    duplex: 'half',
  });
  return { status: response.status, ...((await response.json()) as Omit<MultipartResult, 'status'>) };
}
