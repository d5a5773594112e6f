/**
 * A `multipart/form-data` body written as it is sent: the text fields, then one file part whose
 * bytes are read from a stream as the upstream connection takes them, so an upload never sits
 * whole in memory. Zulip's upload endpoints read any one file part (Django's `request.FILES`), and
 * their other parameters from the same body. https://zulip.com/api/upload-file
 */
import { randomBytes } from 'node:crypto';
import type { WireParams } from './params.js';

/** The file part of an upload: its name and type as the client gave them, and its bytes. */
export interface FilePart {
  /** The file name Zulip stores (it sanitises it). */
  filename: string;
  /** @default 'application/octet-stream' */
  contentType?: string;
  /** The bytes, read once, as the request is sent. */
  stream: AsyncIterable<Uint8Array>;
}

/** A streamed request body and the Content-Type that announces its boundary. */
export interface StreamedBody {
  contentType: string;
  body: AsyncIterable<Uint8Array>;
}

/** Quotes a header parameter value the way browsers do (RFC 7578 §4.2: `"`, CR, LF escaped). */
function quoted(value: string): string {
  return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/**
 * The body of a multipart request with `fields` (already encoded with raw()/json(); undefined ones
 * left out) and the file under the part name `fileField`.
 */
export function multipartBody(fields: WireParams, fileField: string, file: FilePart): StreamedBody {
  const boundary = `----chatgraph${randomBytes(16).toString('hex')}`;
  const encoder = new TextEncoder();
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    head += `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(fileField)}; filename=${quoted(file.filename)}\r\n` +
    `Content-Type: ${file.contentType || 'application/octet-stream'}\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(head);
    yield* file.stream;
    yield encoder.encode(tail);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}
