/**
 * A file sent with a GraphQL operation (the GraphQL multipart request spec,
 * https://github.com/jaydenseric/graphql-multipart-request-spec), as the `Upload` scalar's value:
 * plugins/uploads.ts makes one per file of the request's `map` before the file's bytes arrived, and
 * the resolver that takes it streams them upstream as they come, bounded by the chat server's
 * limit. Nothing keeps a whole file in memory.
 */
import type { Readable } from 'node:stream';
import { GraphQLError } from 'graphql';
import type { FilePart } from '../zulip/multipart.js';
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

/**
 * Streams an Upload's file to `send`, bounded by `maxBytes`: refused with UPLOAD_TOO_LARGE before
 * anything is sent when the request's declared length is over the limit, and ended with it as soon
 * as the streamed bytes pass it (the upstream request is aborted mid-body).
 * @returns what `send` returns, and how many bytes of the file went upstream
 */
export async function sendBounded<T>(upload: Upload, maxBytes: number, send: (file: FilePart) => Promise<T>): Promise<{ result: T; bytes: number; file: ReceivedFile }> {
  if (upload.declaredBytes !== undefined && upload.declaredBytes > maxBytes + FILE_PART_FRAMING_BYTES) throw uploadTooLarge(maxBytes);
  const file = await upload.file;
  const bounded = new BoundedStream(maxBytes);
  try {
    const result = await send({ filename: file.filename, contentType: file.mimeType, stream: bounded.read(file.stream) });
    return { result, bytes: bounded.bytes, file };
  } catch (error) {
    if (bounded.exceeded) throw uploadTooLarge(maxBytes);
    throw error;
  }
}
