/**
 * Live delivery from the event logs (stream.ts): one blocking reader per instance follows the
 * logs of every credential the instance has subscribers for, with `XREAD BLOCK` on a dedicated
 * connection (a blocked connection can send nothing else). Adding a log wakes the blocked read
 * (`CLIENT UNBLOCK`) so it is read from then on.
 *
 * Each followed log has one position, and its listener gets every entry after it exactly once,
 * in order. When Redis becomes unreachable each listener is told once (`interrupted`); when it
 * answers again the reader checks each log's generation: the same one continues where it stopped
 * (nothing lost while the log held it), a new one (Redis lost its data) is reported with
 * `restarted` and read from its start. A new generation noticed in the entries themselves is
 * handled the same way.
 */
import type { Redis } from 'ioredis';
import { classifyRedisError, type ClusterRedis, type RedisCommandError, type RedisUnavailableError } from './redis.js';
import { parseEntries, type StreamEntry } from './stream.js';

export interface TailListener {
  /** New entries, in order; never throws (a throw is caught and ignored). */
  entries(entries: StreamEntry[]): void;
  /** Reading stopped (Redis unreachable, or a command error); once per outage. */
  interrupted(error: RedisUnavailableError | RedisCommandError): void;
  /** Reading continues after an interruption, from where it stopped. */
  resumed(): void;
  /** The log was replaced by a new generation (or is gone): older cursors are unknown from now on. */
  restarted(generation: string | undefined): void;
}

export interface TailPosition {
  /** The generation the position belongs to; undefined when the log did not exist yet. */
  generation: string | undefined;
  /** Last sequence number already seen (0: from the start). */
  seq: number;
}

export interface StreamTailerOptions {
  /** Longest single XREAD BLOCK. @default 2_000 */
  blockMs?: number;
  /** Entries per read and log, and events delivered per read and log. @default 500 */
  count?: number;
  /** Wait between attempts while Redis is unreachable. @default 250 */
  retryMs?: number;
}

interface Follow {
  stream: string;
  state: string;
  position: TailPosition;
  listener: TailListener;
  interrupted: boolean;
}

export class StreamTailer {
  readonly #follows = new Map<string, Follow>();
  readonly #options: Required<StreamTailerOptions>;
  #connection: Redis | undefined;
  #clientId: number | undefined;
  #loop: Promise<void> | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(
    private readonly redis: ClusterRedis,
    options: StreamTailerOptions = {},
  ) {
    this.#options = { blockMs: 2_000, count: 500, retryMs: 250, ...options };
  }

  /** Number of logs followed. */
  get size(): number {
    return this.#follows.size;
  }

  /**
   * Follows one log (keys.ts `stream` and `state`) from `position`; returns the function that
   * stops it. One follower per log: the instance's session fans out to its own subscribers.
   */
  follow(keys: { stream: string; state: string }, position: TailPosition, listener: TailListener): () => void {
    if (this.#closed) throw new Error('the stream tailer is closed');
    if (this.#follows.has(keys.stream)) throw new Error('this log is already followed');
    const follow: Follow = { stream: keys.stream, state: keys.state, position: { ...position }, listener, interrupted: false };
    this.#follows.set(keys.stream, follow);
    this.#loop ??= this.#run();
    this.#interrupt();
    return () => {
      if (this.#follows.get(keys.stream) === follow) this.#follows.delete(keys.stream);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#follows.clear();
    this.#wake?.();
    this.#connection?.disconnect();
    await this.#loop;
  }

  /** Wakes the loop: from idle, or out of a blocked XREAD so that it reads the new set of logs. */
  #interrupt(): void {
    if (this.#wake) return this.#wake();
    const id = this.#clientId;
    if (id !== undefined) void this.redis.run((c) => c.client('UNBLOCK', id)).catch(() => undefined);
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      if (this.#follows.size === 0) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      try {
        const connection = await this.#connect();
        await this.#recheck(connection);
        const follows = [...this.#follows.values()];
        const ids = follows.map((f) => `${f.position.seq}-0`);
        const reply = (await connection.xread(
          'COUNT', this.#options.count, 'BLOCK', this.#options.blockMs,
          'STREAMS', ...follows.map((f) => f.stream), ...ids,
        )) as [string, [string, string[]][]][] | null;
        for (const [stream, raw] of reply ?? []) this.#deliver(stream, parseEntries(raw));
      } catch (error) {
        if (this.#closed) return;
        const classified = classifyRedisError(error);
        for (const follow of this.#follows.values()) {
          if (follow.interrupted) continue;
          follow.interrupted = true;
          safely(() => follow.listener.interrupted(classified));
        }
        await new Promise((resolve) => setTimeout(resolve, this.#options.retryMs).unref?.());
      }
    }
  }

  async #connect(): Promise<Redis> {
    if (!this.#connection) {
      const connection = this.redis.duplicate();
      connection.on('close', () => (this.#clientId = undefined));
      this.#connection = connection;
    }
    const connection = this.#connection;
    if (connection.status === 'wait' || connection.status === 'end') await connection.connect();
    if (this.#clientId === undefined) this.#clientId = Number(await connection.client('ID'));
    return connection;
  }

  /** After an outage: continue logs whose generation survived, restart those that changed. */
  async #recheck(connection: Redis): Promise<void> {
    for (const follow of [...this.#follows.values()]) {
      if (!follow.interrupted) continue;
      const generation = (await connection.hget(follow.state, 'gen')) ?? undefined;
      if (this.#follows.get(follow.stream) !== follow) continue;
      follow.interrupted = false;
      safely(() => follow.listener.resumed());
      if (generation !== follow.position.generation && follow.position.generation !== undefined) this.#restart(follow, generation);
    }
  }

  #deliver(stream: string, entries: StreamEntry[]): void {
    const follow = this.#follows.get(stream);
    if (!follow || entries.length === 0) return;
    const generation = entries[0]!.generation;
    if (follow.position.generation === undefined) follow.position.generation = generation;
    if (generation !== follow.position.generation) {
      // A new log: read it from its start on the next round (what we got may not begin there).
      return this.#restart(follow, generation);
    }
    // At most `count` events per log and read, as when each entry held one: a logged batch can be
    // large (a queue continued after an outage), and subscribers must get the chance to read
    // between two reads. The rest of an entry is read again from the position.
    const fresh = entries.filter((e) => e.seq > follow.position.seq && e.generation === generation).slice(0, this.#options.count);
    if (fresh.length === 0) return;
    follow.position.seq = fresh[fresh.length - 1]!.seq;
    safely(() => follow.listener.entries(fresh));
  }

  #restart(follow: Follow, generation: string | undefined): void {
    follow.position = { generation, seq: 0 };
    safely(() => follow.listener.restarted(generation));
  }
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // a listener's failure must not stop the reader for every other credential
  }
}
