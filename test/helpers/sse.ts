/**
 * A GraphQL-over-SSE client for tests: POSTs the operation with `accept: text/event-stream` (yoga's
 * built-in SSE transport) and collects every `next` payload until the stream completes or is closed.
 *
 * ```ts
 * const stream = sseSubscribe(live.url, 'subscription { events { __typename } }', {}, { authorization });
 * await stream.waitFor(1);
 * stream.close();
 * ```
 */
import type { FormattedExecutionResult as ExecutionResult } from 'graphql';
import { until } from './wait.js';

export interface SseStream<T = Record<string, unknown>> {
  /** HTTP status, once the response arrived. */
  status: number | undefined;
  results: ExecutionResult<T>[];
  done: boolean;
  waitFor(count: number, withinMs?: number): Promise<ExecutionResult<T>[]>;
  waitDone(withinMs?: number): Promise<void>;
  /** Aborts the request (the server ends the subscription). */
  close(): void;
}

export function sseSubscribe<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): SseStream<T> {
  const abort = new AbortController();
  const stream: SseStream<T> = {
    status: undefined,
    results: [],
    done: false,
    async waitFor(count, withinMs = 5000) {
      await until(() => stream.results.length >= count || stream.done, withinMs, `${count} SSE results (got ${stream.results.length})`);
      if (stream.results.length < count) throw new Error(`SSE stream ended after ${stream.results.length} of ${count} results`);
      return stream.results.slice(0, count);
    },
    async waitDone(withinMs = 5000) {
      await until(() => stream.done, withinMs, 'the SSE stream to end');
    },
    close: () => abort.abort(),
  };
  void read(stream, url, { query, variables }, headers, abort.signal);
  return stream;
}

async function read<T>(
  stream: SseStream<T>,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify(body),
      signal,
    });
    stream.status = response.status;
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        parseEvent(stream, buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch {
    // aborted by close(), or the connection dropped
  } finally {
    stream.done = true;
  }
}

/** One SSE event: `event:` and `data:` lines; comment lines (keep-alives) are ignored. */
function parseEvent<T>(stream: SseStream<T>, block: string): void {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (event === 'complete') {
    stream.done = true;
    return;
  }
  const text = data.join('\n');
  if (text !== '') stream.results.push(JSON.parse(text) as ExecutionResult<T>);
}
