/**
 * One credential's event log in Redis: the cluster counterpart of the replay buffer (buffer.ts).
 *
 * The lease holder appends each batch of events; every instance reads the log, to replay what a
 * resuming client missed and (tail.ts) to deliver live events. Entries get explicit stream ids
 * `<seq>-0`, so a gateway cursor `{ generation, seq }` names a stream entry directly and a cursor
 * issued by any instance resumes on any other.
 *
 * - The generation is random, created with the log; when Redis loses the log (restart without
 *   persistence, expiry after a long idle time) a new one starts and older cursors are unknown.
 *   A new generation's sequence numbers start at the current time in milliseconds, so they lie
 *   above those of the log it replaces and a reader left behind still sees its first entries.
 * - The log is capped like the replay buffer: the last `maxEntries` entries (`XADD MAXLEN ~`, the
 *   exact count enforced on reading) and entries younger than `maxAgeMs` (trimmed on append).
 * - The same hash keeps the upstream `queue_id` and `last_event_id`, written in the same script
 *   as the events they acknowledge: a new holder continues the queue from exactly the last event
 *   in the log, so a failover neither repeats nor skips one.
 * - Every write checks the fencing token against the lease first (LeaseLostError otherwise).
 *
 * Entries hold the payloads the holder gives, which include private message contents: they live
 * in Redis for up to `maxAgeMs` (the log key expires after `stateTtlMs` without writes).
 */
import { randomBytes } from 'node:crypto';
import type { CredentialKeys } from './keys.js';
import type { ClusterRedis } from './redis.js';

/** One logged payload. */
export interface StreamEntry {
  seq: number;
  generation: string;
  /** Append time (ms, the holder's clock). */
  at: number;
  /** Sequence number of the first entry of the same appended batch. */
  batch: number;
  data: string;
}

/** What the state hash says about the log and the upstream queue. */
export interface StreamState {
  generation: string;
  /** Sequence number of the newest entry ever appended (0 before the first). */
  lastSeq: number;
  queueId?: string;
  lastEventId?: number;
  /** Fencing token of the latest write. */
  fence?: string;
}

export type StreamReplay =
  | { entries: StreamEntry[]; generation: string; lastSeq: number }
  | { resync: 'CURSOR_UNKNOWN' | 'CURSOR_EXPIRED' };

/** The upstream queue position to store with a batch; `null` forgets the queue (it is gone). */
export type QueuePosition = { queueId: string; lastEventId: number } | null;

/** A write was refused: the fencing token no longer holds the lease. Stop polling. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor() {
    super('The lease on this credential is held by another instance.');
  }
}

export interface EventStreamOptions {
  /** @default 1000 */
  maxEntries?: number;
  /** @default 300_000 */
  maxAgeMs?: number;
  /** Lifetime of the state hash and log after the last write (the upstream queue's is ~10 min). @default 900_000 */
  stateTtlMs?: number;
  /** @default Date.now */
  now?: () => number;
}

// KEYS: lease, state, stream. ARGV: token, now, maxEntries, cutoff, ttl, newGen, newBase, queueMode, qid, leid, payloads…
const APPEND = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local gen = redis.call('HGET', KEYS[2], 'gen')
local seq
if not gen then
  gen = ARGV[6]
  seq = tonumber(ARGV[7])
  redis.call('DEL', KEYS[2], KEYS[3])
  redis.call('HSET', KEYS[2], 'gen', gen)
else
  seq = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
end
local first = seq + 1
for i = 11, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], string.format('%.0f', seq) .. '-0',
    'g', gen, 't', ARGV[2], 'b', string.format('%.0f', first), 'd', ARGV[i])
end
redis.call('HSET', KEYS[2], 'seq', string.format('%.0f', seq), 'fence', ARGV[1])
if ARGV[8] == 'set' then redis.call('HSET', KEYS[2], 'qid', ARGV[9], 'leid', ARGV[10]) end
if ARGV[8] == 'clear' then redis.call('HDEL', KEYS[2], 'qid', 'leid') end
local cutoff = tonumber(ARGV[4])
while true do
  local head = redis.call('XRANGE', KEYS[3], '-', '+', 'COUNT', 16)
  if #head == 0 then break end
  local keep = nil
  for _, e in ipairs(head) do
    if tonumber(e[2][4]) >= cutoff then keep = e[1] break end
  end
  if keep then redis.call('XTRIM', KEYS[3], 'MINID', keep) break end
  for _, e in ipairs(head) do redis.call('XDEL', KEYS[3], e[1]) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
return {gen, string.format('%.0f', first), string.format('%.0f', seq)}`;

// KEYS: state, stream. ARGV: first seq wanted. One script, so the log and its state agree.
const READ = `
local state = redis.call('HGETALL', KEYS[1])
if #state == 0 then return false end
local entries = {}
if ARGV[1] ~= '' then entries = redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', '+') end
return {state, entries}`;

type RawEntry = [id: string, fields: string[]];

/** Stream entries as XRANGE / XREAD return them. */
export function parseEntries(raw: RawEntry[]): StreamEntry[] {
  return raw.map(([id, fields]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
    return { seq: Number(id.split('-')[0]), generation: f.g ?? '', at: Number(f.t), batch: Number(f.b), data: f.d ?? '' };
  });
}

function parseState(flat: string[]): StreamState {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  return {
    generation: f.gen ?? '',
    lastSeq: Number(f.seq ?? 0),
    ...(f.qid !== undefined && { queueId: f.qid }),
    ...(f.leid !== undefined && { lastEventId: Number(f.leid) }),
    ...(f.fence !== undefined && { fence: f.fence }),
  };
}

export class EventStream {
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #stateTtlMs: number;
  readonly #now: () => number;

  constructor(
    private readonly redis: ClusterRedis,
    readonly keys: CredentialKeys,
    options: EventStreamOptions = {},
  ) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#maxAgeMs = options.maxAgeMs ?? 300_000;
    this.#stateTtlMs = Math.max(options.stateTtlMs ?? 900_000, this.#maxAgeMs);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Appends `payloads` as one batch and stores the queue position with them, atomically, if
   * `token` holds the lease. Zero payloads just store the position (heartbeats). Throws
   * LeaseLostError when the lease is someone else's, and nothing is written.
   */
  async append(token: string, payloads: readonly string[], queue?: QueuePosition): Promise<{ generation: string; firstSeq: number; lastSeq: number }> {
    const now = this.#now();
    const mode = queue === undefined ? 'keep' : queue === null ? 'clear' : 'set';
    const result = await this.redis.run((c) =>
      c.eval(
        APPEND,
        3,
        this.keys.lease,
        this.keys.state,
        this.keys.stream,
        token,
        now,
        this.#maxEntries,
        now - this.#maxAgeMs,
        this.#stateTtlMs,
        randomBytes(12).toString('base64url'),
        now,
        mode,
        queue?.queueId ?? '',
        queue?.lastEventId ?? '',
        ...payloads,
      ),
    );
    if (!Array.isArray(result)) throw new LeaseLostError();
    const [generation, first, last] = result as [string, string, string];
    return { generation, firstSeq: Number(first), lastSeq: Number(last) };
  }

  /** Stores the upstream queue position (or forgets it with `null`) under the lease. */
  async saveQueue(token: string, queue: QueuePosition): Promise<void> {
    await this.append(token, [], queue);
  }

  /** The state hash, or undefined when no log exists (never written, expired, or Redis lost it). */
  async state(): Promise<StreamState | undefined> {
    const read = await this.#read('');
    return read?.state;
  }

  /**
   * The entries after a cursor, oldest first, for a resuming client; a resync reason when the gap
   * cannot be filled: another (or no) generation is `CURSOR_UNKNOWN`; a cursor older than the cap,
   * or beyond the newest entry (never handed out), is `CURSOR_EXPIRED`, as in buffer.ts.
   */
  async since(cursor: { generation: string; seq: number }): Promise<StreamReplay> {
    const read = await this.#read(String(cursor.seq + 1));
    if (!read || read.state.generation !== cursor.generation) return { resync: 'CURSOR_UNKNOWN' };
    const { generation, lastSeq } = read.state;
    if (cursor.seq > lastSeq) return { resync: 'CURSOR_EXPIRED' };
    const cutoff = this.#now() - this.#maxAgeMs;
    const wanted = lastSeq - cursor.seq;
    const entries = read.entries.filter((e) => e.seq <= lastSeq);
    const complete =
      wanted === 0 ||
      (cursor.seq + 1 > lastSeq - this.#maxEntries && entries.length === wanted && entries[0]!.seq === cursor.seq + 1 && entries[0]!.at >= cutoff);
    if (!complete) return { resync: 'CURSOR_EXPIRED' };
    return { entries, generation, lastSeq };
  }

  async #read(from: string): Promise<{ state: StreamState; entries: StreamEntry[] } | undefined> {
    const result = await this.redis.run((c) => c.eval(READ, 2, this.keys.state, this.keys.stream, from));
    if (!Array.isArray(result)) return undefined;
    const [state, entries] = result as [string[], RawEntry[]];
    return { state: parseState(state), entries: parseEntries(entries) };
  }
}
