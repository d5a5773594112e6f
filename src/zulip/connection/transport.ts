/** How a connection family talks HTTP: a caller's fetch, or undici's request API over our own Agent. */
import { Readable } from 'node:stream';
import { ReadableStream } from 'node:stream/web';
import { Agent, request as undiciRequest } from 'undici';
import type { Deadline } from './deadline.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The I/O seam: called as `fetch(url, init)` with a string URL. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The part of a response `request` reads; a fetch `Response` is one. */
export interface UpstreamResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface RequestInitLite {
  method: Method;
  headers: Record<string, string>;
  /** A form body, or a streamed one (uploads: read once, as the connection takes it). */
  body: string | AsyncIterable<Uint8Array> | undefined;
  /** Ends the attempt: the call's deadline or the caller's signal. */
  deadline: Deadline;
}

export interface Transport {
  call(url: string, init: RequestInitLite): Promise<UpstreamResponse>;
  /** Present only when we created it, so `close` never destroys a caller's dispatcher. */
  agent?: Agent;
}

export function createTransport(fetch: FetchLike | undefined): Transport {
  if (fetch) {
    return {
      call: (url, { method, headers, body, deadline }) =>
        typeof body === 'object'
          ? // A stream goes as a ReadableStream, which fetch sends only half-duplex.
            fetch(url, { method, headers, body: ReadableStream.from(body) as unknown as BodyInit, signal: deadline.signal, duplex: 'half' } as RequestInit)
          : fetch(url, { method, headers, body, signal: deadline.signal }),
    };
  }
  // Headers/body timeouts are off: a long-poll parks for about a minute, and each
  // call's own deadline is the one timeout that applies.
  const agent = new Agent({ connect: { timeout: 5000 }, headersTimeout: 0, bodyTimeout: 0 });
  // undici's request API rather than its fetch: the same pool and errors without the WHATWG
  // stream machinery, which a call that reads one JSON body has no use for (docs/benchmarks.md).
  const call = async (url: string, init: RequestInitLite): Promise<UpstreamResponse> => {
    const { statusCode, headers, body } = await undiciRequest(url, {
      method: init.method,
      headers: init.headers,
      body: typeof init.body === 'object' ? Readable.from(init.body, { objectMode: false }) : init.body,
      // An EventEmitter, which undici accepts as a signal: an AbortSignal with undici's listener on
      // it goes through EventTarget's machinery on every call (docs/benchmarks.md).
      signal: init.deadline.emitter,
      dispatcher: agent,
    });
    return {
      status: statusCode,
      headers: { get: (name) => headerValue(headers[name.toLowerCase()]) },
      text: () => body.text(),
    };
  };
  return { call, agent };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
