/**
 * The `next` messages of one graphql-ws subscription, written to its socket by the gateway rather
 * than by graphql-ws's per-result `emit.next`.
 *
 * Identical subscriptions share one execution (plugins/share-subscriptions.ts), so thousands of
 * sockets receive the same result object. graphql-ws would serialize it once per socket and await
 * each write with promises of its own; here it is serialized once for all of them (a `WeakMap`
 * keyed by the result, owned by one graphql-ws server), and sockets whose operation has the same id
 * get the very same frame. The message is what graphql-ws would send, byte for byte:
 * `{"id":…,"type":"next","payload":…}` with `errors` last and only when present (its `emit.next`
 * without an `onNext` hook or a `jsonMessageReplacer`, which our server sets neither of).
 *
 * A result reaches the socket one of two ways, in order:
 * - **straight from the shared execution** ({@link NextFrames.tryWrite}, the multicast's sink),
 *   in the turn it is produced, when the socket has nothing waiting and the result has no errors.
 *   envelop's per-subscription `onNext` hooks do not see these: yoga's error masking has nothing to
 *   do on a result without errors, and the one delivery the metrics plugin would count is counted
 *   here;
 * - **through the subscription's iterator** ({@link NextFrames.drain}) otherwise: results with
 *   errors (masked by yoga on the way) and results that waited while the socket was busy.
 *
 * Back-pressure is graphql-ws's: the next result is taken from the iterator only once the socket
 * has accepted the previous frame (nothing left in node's buffer), so a client that does not read
 * keeps its results in its own bounded backlog (events/multicast.ts) and ends alone with
 * SLOW_CONSUMER. graphql-ws still sees the end of the stream (completion, the source's error) and
 * ends it with `return()` on `complete` or when the socket closes.
 *
 * Frames are written in one call to the TCP socket under ws: ws's `send` writes a header and the
 * data apart (cork, two writes, writev), with an array and a header buffer per frame. This keeps
 * the order of ws's own frames (pongs, pings, close, graphql-ws's messages) because ws's sender
 * never queues on this server: it queues only while compressing (permessage-deflate is off, and
 * `extensions` shows none was negotiated) or reading a Blob (graphql-ws sends strings), so every
 * frame reaches the TCP socket in call order. Without that socket (another ws), frames go through
 * `send`.
 */
import type { ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import type { Sink } from '../events/multicast.js';

/** The part of ws's socket object that frames are written to (ws has no public handle on it). */
interface Tcp {
  write(chunk: Buffer, callback: () => void): boolean;
  readonly writableLength: number;
}

interface Encoded {
  payload: string;
  /** The frame of the first operation id that asked, kept for the others with that id. */
  id: string;
  frame: Buffer;
}

/** Serialized results, shared by every socket of one graphql-ws server. */
export class NextMessages {
  private readonly encoded = new WeakMap<object, Encoded>();
  /** The result being fanned out now (every socket of a shared execution asks for it in turn) and its encoding. */
  private lastResult: ExecutionResult | undefined;
  private lastEntry: Encoded | undefined;

  /** The whole WebSocket frame of `result`'s `next` message for operation `id`, serialized once per result. */
  frame(result: ExecutionResult, id: string): Buffer {
    const entry = this.lastResult === result ? this.lastEntry : this.remember(result, this.encoded.get(result));
    if (entry?.id === id) return entry.frame;
    if (entry) return textFrame(`{"id":${JSON.stringify(id)},"type":"next","payload":${entry.payload}}`);
    const { errors, ...rest } = result;
    // GraphQLError#toJSON is what graphql-ws maps errors with; JSON.stringify calls it itself.
    const payload = JSON.stringify(errors ? { ...rest, errors } : result);
    const frame = textFrame(`{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`);
    const encoded = { payload, id, frame };
    this.encoded.set(result, encoded);
    this.remember(result, encoded);
    return frame;
  }

  private remember(result: ExecutionResult, entry: Encoded | undefined): Encoded | undefined {
    this.lastResult = result;
    this.lastEntry = entry;
    return entry;
  }
}

/** A final, unmasked text frame (RFC 6455 §5.2) holding `message`. */
function textFrame(message: string): Buffer {
  const length = Buffer.byteLength(message, 'utf8');
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (header === 2) {
    frame[1] = length;
  } else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(message, header, 'utf8');
  return frame;
}

const DONE: IteratorResult<never> = { done: true, value: undefined };

/** One subscription's `next` frames on one socket: the multicast's sink and its iterator's reader. */
export class NextFrames implements Sink<ExecutionResult> {
  private readonly tcp: Tcp | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** Called as each frame leaves node's buffer: wakes the reader once nothing is left. */
  private readonly written = () => {
    if (this.wake && !this.busy()) this.wake();
  };

  /**
   * @param delivered counts the results written by {@link tryWrite} (the metrics plugin counts the others)
   */
  constructor(
    private readonly socket: WebSocket,
    private readonly id: string,
    private readonly messages: NextMessages,
    private readonly delivered?: () => void,
  ) {
    this.tcp = socket.extensions === '' ? (socket as unknown as { _socket?: Tcp })._socket : undefined;
  }

  tryWrite(result: ExecutionResult): boolean {
    if (this.stopped || result.errors) return false;
    // As graphql-ws's own send does on a socket that is closing: drop it; the close ends the operation.
    if (this.socket.readyState !== this.socket.OPEN) return true;
    if (this.busy()) return false;
    this.write(result);
    this.delivered?.();
    return true;
  }

  /** graphql-ws's view of the subscription: yields nothing, writes what `source` yields, settles at its end. */
  drain(source: AsyncIterable<ExecutionResult>): AsyncIterableIterator<never> {
    const iterator = source[Symbol.asyncIterator]();
    let running: Promise<IteratorResult<never>> | undefined;
    const stop = async () => {
      this.stopped = true;
      this.wake?.();
      await iterator.return?.();
      return DONE;
    };
    const drained: AsyncIterableIterator<never> = {
      // graphql-ws's for-await calls next() once; a second call waits for the same end.
      next: () => (running ??= this.run(iterator)),
      return: stop,
      throw: async (error?: unknown) => {
        await stop();
        throw error;
      },
      [Symbol.asyncIterator]: () => drained,
    };
    return drained;
  }

  private async run(iterator: AsyncIterator<ExecutionResult>): Promise<IteratorResult<never>> {
    while (!this.stopped) {
      if (this.busy()) await this.flushed();
      if (this.stopped) break;
      const result = await iterator.next();
      if (result.done || this.stopped) break;
      if (this.socket.readyState === this.socket.OPEN) this.write(result.value);
    }
    return DONE;
  }

  /** Whether frames are waiting in node's buffer (the peer or the kernel has not taken them). */
  private busy(): boolean {
    return (this.tcp ? this.tcp.writableLength : this.socket.bufferedAmount) > 0;
  }

  private write(result: ExecutionResult): void {
    const frame = this.messages.frame(result, this.id);
    if (this.tcp) this.tcp.write(frame, this.written);
    else this.socket.send(frame.subarray(frame[1] === 126 ? 4 : frame[1] === 127 ? 10 : 2), { binary: false }, this.written);
  }

  /** Resolves once the socket's buffer is empty, or the subscription stopped (closing the socket stops it). */
  private flushed(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.wake = undefined;
        this.socket.off('close', done);
        resolve();
      };
      this.wake = done;
      this.socket.once('close', done);
    });
  }
}
