/**
 * A file sent with a GraphQL operation (the GraphQL multipart request spec,
 * https://github.com/jaydenseric/graphql-multipart-request-spec), as the `Upload` scalar's value:
 * plugins/uploads.ts makes one per file of the request's `map` before the file's bytes arrived, and
 * the resolver that takes it streams them upstream as they come, bounded by the chat server's
 * limit. Nothing keeps a whole file in memory.
 */
import type { Readable } from 'node:stream';
import { GraphQLError } from 'graphql';
import { DEFAULT_DEADLINE_MS, type ZulipConnection } from '../zulip/connection.js';
import type { FilePart } from '../zulip/multipart.js';
import type { UpstreamServer } from './upstream/server.js';
import { GatewayErrorCode } from './errors.js';

/** A file part as it arrives: the name and type the client gave, and its bytes, readable once. */
export interface ReceivedFile {
  filename: string;
  mimeType: string;
  stream: Readable;
}

/**
 * Bytes allowed beyond the file in a request's declared length: the multipart framing of the file
 * part (its headers and the closing boundary), which the file's own size does not count.
 */
export const FILE_PART_FRAMING_BYTES = 1024;

/** One file of a multipart GraphQL request; the `Upload` scalar's value. */
export class Upload {
  /** Resolves when the file's part begins (after the operation was parsed), or rejects if it never comes. */
  readonly file: Promise<ReceivedFile>;
  /**
   * An upper bound on the file part's size from the request's Content-Length (less what came
   * before the part); undefined for a body of undeclared length.
   */
  readonly declaredBytes: number | undefined;
  #resolve!: (file: ReceivedFile) => void;
  #reject!: (error: Error) => void;

  constructor(declaredBytes: number | undefined) {
    this.declaredBytes = declaredBytes;
    this.file = new Promise<ReceivedFile>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A file no resolver takes (a refused operation) must not be an unhandled rejection.
    this.file.catch(() => undefined);
  }

  /** Called by the request parser when the file's part begins. */
  receive(file: ReceivedFile): void {
    this.#resolve(file);
  }

  /** Called by the request parser when the body ended without the file, or failed. */
  fail(error: Error): void {
    this.#reject(error);
  }
}

/** UPLOAD_TOO_LARGE: a file over the chat server's limit, refused before or while it streamed. */
export function uploadTooLarge(maxBytes: number): GraphQLError {
  const mib = maxBytes / (1024 * 1024);
  return new GraphQLError(`The file is larger than the chat server's limit of ${Number.isInteger(mib) ? mib : mib.toFixed(2)} MiB.`, {
    extensions: { code: GatewayErrorCode.uploadTooLarge, maxBytes },
  });
}

/**
 * Passes a file's bytes through while counting them; past `maxBytes` it throws, which aborts the
 * upstream request that reads it, and `exceeded` tells the resolver why the request failed.
 */
export class BoundedStream {
  exceeded = false;
  bytes = 0;

  constructor(private readonly maxBytes: number) {}

  async *read(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      this.bytes += chunk.byteLength;
      if (this.bytes > this.maxBytes) {
        this.exceeded = true;
        throw uploadTooLarge(this.maxBytes);
      }
      yield chunk;
    }
  }
}

/** How long an upload may go without a byte of its file moving, by default (UPLOAD_IDLE_TIMEOUT past it). */
export const DEFAULT_UPLOAD_IDLE_MS = 10_000;

/**
 * The upstream call of an upload is bounded by its idle timeout, not by a deadline: a large file
 * on a slow link takes as long as it takes while its bytes keep coming. This only caps a call that
 * the idle watch would never end.
 */
const UPLOAD_CALL_CEILING_MS = 3_600_000;

/** How long an upload may wait: for its file's bytes, and for the chat server's answer once they were sent. */
export interface UploadTiming {
  /** Longest time without a byte of the file, from when the resolver waits for it. */
  idleMs: number;
  /** Longest wait for the chat server's answer after the file's last byte (the upstream deadline). */
  answerMs: number;
}

/**
 * The upload's timing on this gateway, and the caller's connection without the operation's shared
 * deadline (which started before the file's bytes): what an upload resolver passes to {@link sendBounded}.
 */
export function uploadCall(server: UpstreamServer, connection: ZulipConnection): { timing: UploadTiming; connection: ZulipConnection } {
  const { uploadIdleMs, deadlineMs } = server.config;
  return {
    timing: { idleMs: uploadIdleMs ?? DEFAULT_UPLOAD_IDLE_MS, answerMs: deadlineMs ?? DEFAULT_DEADLINE_MS },
    connection: connection.derive({ sharedDeadline: undefined }),
  };
}

/** UPLOAD_IDLE_TIMEOUT: the client stopped sending its file. */
export function uploadStalled(idleMs: number): GraphQLError {
  return new GraphQLError(`No byte of the file arrived for ${idleMs / 1000} s: the upload was abandoned.`, {
    extensions: { code: GatewayErrorCode.uploadIdleTimeout, idleMs },
  });
}

/**
 * The timer of one upload: armed when the resolver starts waiting for the file, re-armed by each
 * chunk, then by the file's end for the server's answer; when it fires the upstream call is aborted
 * and {@link error} says why.
 */
class UploadWatch {
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  error: GraphQLError | undefined;

  constructor(private readonly timing: UploadTiming) {
    this.#arm(timing.idleMs, () => uploadStalled(timing.idleMs));
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Resolves as `promise` does, or rejects once the idle timeout passed first. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.error);
      if (this.#abort.signal.aborted) return onAbort();
      this.#abort.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => (this.#abort.signal.removeEventListener('abort', onAbort), resolve(value)),
        (error: unknown) => (this.#abort.signal.removeEventListener('abort', onAbort), reject(error)),
      );
    });
  }

  /** Passes the file's chunks through, re-arming the idle timeout at each, then the answer's at the end. */
  async *through(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const chunks = source[Symbol.asyncIterator]();
    try {
      for (;;) {
        // Raced, so that a stalled file ends the body (and with it the upstream request) even
        // where the transport does not end a request whose signal aborted.
        const next = await this.race(chunks.next());
        if (next.done) break;
        this.#arm(this.timing.idleMs, () => uploadStalled(this.timing.idleMs));
        yield next.value;
      }
    } finally {
      void chunks.return?.()?.catch(() => undefined);
    }
    const answerMs = this.timing.answerMs;
    this.#arm(answerMs, () => new GraphQLError(`The chat server did not answer the upload within ${answerMs / 1000} s.`, { extensions: { code: GatewayErrorCode.upstreamTimeout, route: 'upload-file' } }));
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(ms: number, error: () => GraphQLError): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.error = error();
      this.#abort.abort(this.error);
    }, ms);
    this.#timer.unref?.();
  }
}

/**
 * Streams an Upload's file to `send`, bounded by `maxBytes`: refused with UPLOAD_TOO_LARGE before
 * anything is sent when the request's declared length is over the limit, and ended with it as soon
 * as the streamed bytes pass it (the upstream request is aborted mid-body). The call has no
 * deadline of its own (`send` must not use the operation's, which started before the file's bytes):
 * it ends with UPLOAD_IDLE_TIMEOUT when no byte of the file came for `timing.idleMs`, and with
 * UPSTREAM_TIMEOUT when the chat server did not answer within `timing.answerMs` of the last one.
 * @returns what `send` returns, and how many bytes of the file went upstream
 */
export async function sendBounded<T>(
  upload: Upload,
  maxBytes: number,
  timing: UploadTiming,
  send: (file: FilePart, call: { signal: AbortSignal; deadlineMs: number }) => Promise<T>,
): Promise<{ result: T; bytes: number; file: ReceivedFile }> {
  if (upload.declaredBytes !== undefined && upload.declaredBytes > maxBytes + FILE_PART_FRAMING_BYTES) throw uploadTooLarge(maxBytes);
  const watch = new UploadWatch(timing);
  const bounded = new BoundedStream(maxBytes);
  try {
    const file = await watch.race(upload.file);
    const stream = watch.through(bounded.read(file.stream));
    const result = await watch.race(send({ filename: file.filename, contentType: file.mimeType, stream }, { signal: watch.signal, deadlineMs: UPLOAD_CALL_CEILING_MS }));
    return { result, bytes: bounded.bytes, file };
  } catch (error) {
    if (bounded.exceeded) throw uploadTooLarge(maxBytes);
    if (watch.error) throw watch.error;
    throw error;
  } finally {
    watch.stop();
  }
}
