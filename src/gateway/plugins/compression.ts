/**
 * Compressed answers, negotiated by `Accept-Encoding`: brotli or gzip (Zulip's own server
 * compresses too; a mobile cold start shrinks about fivefold, README "Mobile clients").
 *
 * - A whole answer (JSON, GraphiQL's page) is compressed when it is at least `minBytes` long: below
 *   that the encoding's framing and the CPU cost more than they save.
 * - A stream (SSE, `multipart/mixed` for `@defer` over HTTP) is compressed whatever its length, which
 *   is not known in advance, and flushed after every chunk yoga writes, so each event reaches the
 *   client when it is sent (a plain compressor would hold it until its window filled).
 * - Brotli at quality 5, not its default 11, which costs tens of milliseconds per answer; gzip at
 *   zlib's default level 6.
 *
 * Not yoga's `useContentEncoding` from @whatwg-node/server: it has no threshold, does not flush a
 * stream per event, ignores q-values, offers no brotli on Node 20, and inflates compressed request
 * bodies, which would let a small body pass the body limit and expand past it.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip, type BrotliCompress, type Gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

/** Answers shorter than this are sent as they are. */
export const DEFAULT_COMPRESSION_MIN_BYTES = 1024;

export type Encoding = 'br' | 'gzip';

export interface CompressionOptions {
  /** @default DEFAULT_COMPRESSION_MIN_BYTES */
  minBytes?: number;
}

const BROTLI_QUALITY = 5;
const brotliParams = { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } };
const compressWhole = {
  br: (bytes: Uint8Array) => promisify(brotliCompress)(bytes, brotliParams),
  gzip: (bytes: Uint8Array) => promisify(gzip)(bytes),
};

/**
 * The encoding to answer with, from an `Accept-Encoding` header (RFC 9110 §12.5.3): brotli before
 * gzip at equal weight, none that the client weighs `q=0`, `*` standing for both.
 */
export function negotiateEncoding(header: string | null | undefined): Encoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)).find(Boolean);
    const weight = q ? Number(q[1]) : 1;
    if (name?.trim()) weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: Encoding) => weights.get(name) ?? weights.get('*') ?? 0;
  const [best] = (['br', 'gzip'] as const).filter((e) => weightOf(e) > 0).sort((a, b) => weightOf(b) - weightOf(a));
  return best;
}

const STREAMED = /^(text\/event-stream|multipart\/mixed)/i;

export function compressAnswers(options: CompressionOptions = {}): Plugin {
  const minBytes = options.minBytes ?? DEFAULT_COMPRESSION_MIN_BYTES;
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      // yoga marks its streams `Content-Encoding: none` (so that proxies leave them alone): still ours to encode.
      const given = response.headers.get('content-encoding');
      if (response.body === null || (given !== null && given !== 'none' && given !== 'identity') || request.method === 'HEAD') return;
      // Caches between the client and the gateway keep one answer per encoding.
      response.headers.append('vary', 'Accept-Encoding');
      const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
      if (encoding === undefined) return;
      const streamed = STREAMED.test(response.headers.get('content-type') ?? '');
      const declared = response.headers.get('content-length');
      if (!streamed && declared !== null && Number(declared) < minBytes) return;
      const headers = new fetchAPI.Headers(response.headers);
      const init = { status: response.status, statusText: response.statusText, headers };
      if (streamed) {
        headers.set('content-encoding', encoding);
        headers.delete('content-length');
        return setResponse(new fetchAPI.Response(compressStream(response.body, encoding, fetchAPI.ReadableStream), init));
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.byteLength < minBytes) return setResponse(new fetchAPI.Response(bytes, init));
      const compressed = await compressWhole[encoding](bytes);
      headers.set('content-encoding', encoding);
      headers.set('content-length', String(compressed.byteLength));
      setResponse(new fetchAPI.Response(compressed, init));
    },
  };
}

/**
 * A stream compressed chunk by chunk, each chunk flushed (a sync flush: the output so far is a
 * prefix the client decompresses at once). Cancelling it (the client left) cancels the source, so
 * the subscription behind it ends.
 */
function compressStream(source: ReadableStream<Uint8Array>, encoding: Encoding, Stream: typeof ReadableStream): ReadableStream<Uint8Array> {
  const compressor: Gzip | BrotliCompress = encoding === 'br' ? createBrotliCompress(brotliParams) : createGzip();
  const flushKind = encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  const reader = source.getReader();
  let output: Buffer[] = [];
  compressor.on('data', (chunk: Buffer) => output.push(chunk));
  const take = () => {
    const chunk = Buffer.concat(output);
    output = [];
    return chunk;
  };
  return new Stream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        await new Promise<void>((resolve, reject) => compressor.once('end', resolve).once('error', reject).end());
        const rest = take();
        if (rest.byteLength > 0) controller.enqueue(rest);
        return controller.close();
      }
      compressor.write(value);
      await new Promise<void>((resolve) => compressor.flush(flushKind, () => resolve()));
      const chunk = take();
      if (chunk.byteLength > 0) controller.enqueue(chunk);
    },
    async cancel(reason) {
      compressor.destroy();
      await reader.cancel(reason);
    },
  });
}
