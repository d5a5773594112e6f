/**
 * One credential's event log in Redis: the cluster counterpart of the replay buffer (buffer.ts).
 *
 * The lease holder appends each batch of events; every instance reads the log, to replay what a
 * resuming client missed and (tail.ts) to deliver live events. Each event has a sequence number,
 * so a gateway cursor `{ generation, seq }` names one event and a cursor issued by any instance
 * resumes on any other. One stream entry holds one appended batch (up to {@link SEAL_GAP}
 * events): its id is `<seq of its last event>-0`, and it says the entry before it (`p`), so that
 * a reader knows no event lies between the two even where the numbers jump (a lease handover).
 *
 * - The generation is random, created with the log; when Redis loses the log (restart without
 *   persistence, expiry after a long idle time) a new one starts and older cursors are unknown.
 *   A new generation's sequence numbers start at the current time in milliseconds, so they lie
 *   above those of the log it replaces and a reader left behind still sees its first entries.
 * - The log is capped like the replay buffer: the last `maxEntries` events (the holder trims with
 *   `MINID` by what it wrote; the exact count is enforced on reading) and entries younger than
 *   `maxAgeMs` (trimmed on an append that finds one older).
 * - The queue position (`queue_id`, `last_event_id`) is written with the events it acknowledges,
 *   in the same entry (or, without events, in the state hash): a new holder continues the queue
 *   from exactly the last event in the log, so a failover neither repeats nor skips one.
 * - Every write is refused once the lease is someone else's (LeaseLostError): the script checks
 *   the fencing token, and the plain XADD of the common case is refused by the seal a handover
 *   puts on the log (lease.ts).
 *
 * Entries hold the payloads the holder gives, which include private message contents: they live
 * in Redis for up to `maxAgeMs` (the log key expires after `stateTtlMs` without writes).
 */
import { randomBytes } from 'node:crypto';
import type { CredentialKeys } from './keys.js';
import { RedisCommandError } from './errors.js';
import type { ClusterRedis } from './redis.js';

/** One logged payload (one event), as readers get it. */
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

/**
 * Events of one batch a plain XADD may write; larger batches go through {@link APPEND}. It is also
 * the gap a lease handover leaves in the sequence numbers (lease.ts seals the log that far ahead),
 * so that an ex-holder's plain XADD, whose ids lie at most this far above the log's end, is refused.
 */
export const SEAL_GAP = 1000;

// KEYS: lease, state, stream, snapshot. ARGV: token, now, maxEntries, cutoff, ttl, newGen, newBase, queueMode, qid, leid,
// countTrim ('' none; 'new': the new entries hold enough events; else the oldest entry id to keep), payloads…
// One entry per batch (at most SEAL_GAP payloads each): id = the sequence number of its last event,
// p = that of the entry before it, q/l = the queue position it was logged with, d = each payload.
const APPEND = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local function fmt(n) return string.format('%.0f', n) end
local gen = redis.call('HGET', KEYS[2], 'gen')
local top, used
if not gen then
  gen = ARGV[6]
  top = tonumber(ARGV[7])
  used = top
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[2], 'gen', gen)
else
  top = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
  used = top
  if redis.call('EXISTS', KEYS[3]) == 1 then
    local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)[1]
    if last then top = math.max(top, tonumber(string.match(last[1], '^%d+'))) end
    local info = redis.call('XINFO', 'STREAM', KEYS[3])
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then used = math.max(top, tonumber(string.match(info[i + 1], '^%d+'))) end
    end
  end
end
local first = used + 1
local chunks = {}
local i = 12
while i <= #ARGV do
  local n = math.min(${SEAL_GAP}, #ARGV - i + 1)
  local last = used + n
  table.insert(chunks, {last, n})
  local args = {'XADD', KEYS[3], fmt(last) .. '-0', 'g', gen, 't', ARGV[2], 'p', fmt(top)}
  if ARGV[8] == 'set' then table.insert(args, 'q') table.insert(args, ARGV[9]) table.insert(args, 'l') table.insert(args, ARGV[10]) end
  for j = i, i + n - 1 do table.insert(args, 'd') table.insert(args, ARGV[j]) end
  redis.call(unpack(args))
  top = last
  used = last
  i = i + n
end
if #ARGV < 12 and redis.call('EXISTS', KEYS[3]) == 0 then
  -- An empty log, so that the holder's first events go by plain XADD too (which creates none).
  redis.call('XADD', KEYS[3], fmt(used) .. '-1', 'g', gen)
  redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
end
if ARGV[11] == 'new' then
  local kept = 0
  for c = #chunks, 1, -1 do
    kept = kept + chunks[c][2]
    if kept >= tonumber(ARGV[3]) then redis.call('XTRIM', KEYS[3], 'MINID', fmt(chunks[c][1])) break end
  end
elseif ARGV[11] ~= '' then
  redis.call('XTRIM', KEYS[3], 'MINID', ARGV[11])
end
redis.call('HSET', KEYS[2], 'seq', fmt(top), 'fence', ARGV[1])
if ARGV[8] == 'set' then redis.call('HSET', KEYS[2], 'qid', ARGV[9], 'leid', ARGV[10]) end
if ARGV[8] == 'clear' then redis.call('HDEL', KEYS[2], 'qid', 'leid') end
local cutoff = tonumber(ARGV[4])
local oldest = false
while true do
  local head = redis.call('XRANGE', KEYS[3], '-', '+', 'COUNT', 16)
  if #head == 0 then break end
  local keep = nil
  for _, e in ipairs(head) do
    if tonumber(e[2][4]) >= cutoff then keep = e break end
  end
  if keep then
    redis.call('XTRIM', KEYS[3], 'MINID', keep[1])
    oldest = keep[2][4]
    break
  end
  for _, e in ipairs(head) do redis.call('XDEL', KEYS[3], e[1]) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
redis.call('PEXPIRE', KEYS[4], ARGV[5])
if #ARGV < 12 then first = top + 1 end
return {gen, fmt(first), fmt(top), oldest}`;

// KEYS: state, stream. ARGV: first seq wanted ('' for none). One script, so the log and its state agree.
const READ = `
local state = redis.call('HGETALL', KEYS[1])
if #state == 0 then return false end
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local entries = {}
if ARGV[1] ~= '' then entries = redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', '+') end
return {state, top, entries}`;

type RawEntry = [id: string, fields: string[]];

/** One logged batch as stored: its events' payloads, and what the entry says about the log. */
interface Batch {
  /** Sequence number of its last event (the entry id). */
  last: number;
  /** Sequence number of the entry before it (events between the two never existed). */
  previous: number;
  generation: string;
  at: number;
  queue?: { queueId: string; lastEventId: number };
  /** Sequence number of its first event (entries of older versions: their own `b`). */
  first: number;
  payloads: string[];
}

function parseBatch([id, fields]: RawEntry): Batch {
  const last = Number(id.split('-')[0]);
  const payloads: string[] = [];
  let generation = '';
  let at = NaN;
  let previous: number | undefined;
  let first: number | undefined;
  let queueId: string | undefined;
  let lastEventId: number | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1]!;
    switch (fields[i]) {
      case 'd':
        payloads.push(value);
        break;
      case 'g':
        generation = value;
        break;
      case 't':
        at = Number(value);
        break;
      case 'p':
        previous = Number(value);
        break;
      case 'b':
        first = Number(value);
        break;
      case 'q':
        queueId = value;
        break;
      case 'l':
        lastEventId = Number(value);
        break;
    }
  }
  first ??= last - payloads.length + 1;
  return {
    last,
    previous: previous ?? first - 1,
    generation,
    at,
    first,
    payloads,
    ...(queueId !== undefined && lastEventId !== undefined && { queue: { queueId, lastEventId } }),
  };
}

/** The events of stream entries as XRANGE / XREAD return them, one per payload, in order. */
export function parseEntries(raw: RawEntry[]): StreamEntry[] {
  return raw.flatMap((entry) => eventsOf(parseBatch(entry)));
}

function eventsOf(batch: Batch): StreamEntry[] {
  const { generation, at, payloads } = batch;
  // Entries of older versions hold one event each, numbered by the id; batches number them up to it.
  const base = batch.last - payloads.length + 1;
  return payloads.map((data, i) => ({ seq: base + i, generation, at, batch: batch.first, data }));
}

function parseState(flat: string[], top: RawEntry[]): StreamState {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  const hashSeq = Number(f.seq ?? 0);
  const newest = top[0] && parseBatch(top[0]);
  // Plain appends (EventStream.append's common case) write only their entry: when it is newer than
  // the hash's last write, its position is the queue's.
  const fromEntry = newest !== undefined && newest.last > hashSeq;
  const queue = fromEntry && newest.queue ? newest.queue : { queueId: f.qid, lastEventId: f.leid === undefined ? undefined : Number(f.leid) };
  return {
    generation: f.gen ?? '',
    lastSeq: Math.max(hashSeq, newest?.last ?? 0),
    ...(queue?.queueId !== undefined && { queueId: queue.queueId }),
    ...(queue?.lastEventId !== undefined && { lastEventId: queue.lastEventId }),
    ...(f.fence !== undefined && { fence: f.fence }),
  };
}

/** What the holder of the lease knows of the log's end, so that it can append with one XADD. */
interface Tip {
  token: string;
  generation: string;
  lastSeq: number;
  /** Append time of the oldest entry left (undefined: none). */
  oldestAt: number | undefined;
  /** When the script last renewed the keys' lifetime. */
  renewedAt: number;
}

export class EventStream {
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #stateTtlMs: number;
  readonly #now: () => number;
  #tip: Tip | undefined;
  /** Entries this stream appended to the log of {@link #writtenGeneration}, oldest first, enough to hold the last `maxEntries` events. */
  #written: { id: number; events: number }[] = [];
  #writtenGeneration: string | undefined;

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
   *
   * The common case (events with their position, the log's end known from this holder's last
   * write, nothing old enough to trim, the keys' lifetime renewed recently) is one XADD that
   * creates no log and names the entry after the end this holder knows: Redis refuses it when
   * anyone else wrote since, or when a lease handover sealed the log (lease.ts). Everything else,
   * and every refused XADD, goes through the script that checks the lease itself.
   */
  async append(token: string, payloads: readonly string[], queue?: QueuePosition): Promise<{ generation: string; firstSeq: number; lastSeq: number }> {
    const now = this.#now();
    const tip = this.#tip;
    if (
      tip?.token === token &&
      queue &&
      payloads.length > 0 &&
      payloads.length <= SEAL_GAP &&
      (tip.oldestAt === undefined || tip.oldestAt >= now - this.#maxAgeMs) &&
      now - tip.renewedAt < this.#stateTtlMs / 4
    ) {
      const appended = await this.#xadd(tip, now, payloads, queue);
      if (appended) return appended;
    }
    return this.#script(token, now, payloads, queue);
  }

  /** The plain XADD of {@link append}; undefined when Redis refused it (the script decides why). */
  async #xadd(tip: Tip, now: number, payloads: readonly string[], queue: { queueId: string; lastEventId: number }) {
    const last = tip.lastSeq + payloads.length;
    const trim = this.#countTrim(tip.generation, payloads.length);
    const args: (string | number)[] = [this.keys.stream, 'NOMKSTREAM', ...(trim === undefined ? [] : ['MINID', trim === 'new' ? last : trim]), `${last}-0`];
    args.push('g', tip.generation, 't', now, 'p', tip.lastSeq, 'q', queue.queueId, 'l', queue.lastEventId);
    for (const payload of payloads) args.push('d', payload);
    this.#tip = undefined;
    let id: unknown;
    try {
      id = await this.redis.run((c) => c.call('XADD', ...args));
    } catch (error) {
      if (error instanceof RedisCommandError) return undefined; // an id at or below the log's end
      throw error;
    }
    if (id === null) return undefined; // no log (expired, or Redis lost it)
    this.#tip = { ...tip, lastSeq: last, oldestAt: tip.oldestAt ?? now };
    this.#wrote(tip.generation, [{ id: last, events: payloads.length }]);
    return { generation: tip.generation, firstSeq: tip.lastSeq + 1, lastSeq: last };
  }

  async #script(token: string, now: number, payloads: readonly string[], queue: QueuePosition | undefined) {
    const mode = queue === undefined ? 'keep' : queue === null ? 'clear' : 'set';
    const trim = this.#tip ? this.#countTrim(this.#tip.generation, payloads.length) : payloads.length >= this.#maxEntries ? 'new' : undefined;
    this.#tip = undefined;
    const result = await this.redis.run((c) =>
      c.eval(
        APPEND,
        4,
        this.keys.lease,
        this.keys.state,
        this.keys.stream,
        this.keys.snapshot,
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
        trim ?? '',
        ...payloads,
      ),
    );
    if (!Array.isArray(result)) throw new LeaseLostError();
    const [generation, first, last, oldest] = result as [string, string, string, string | null];
    const lastSeq = Number(last);
    this.#tip = { token, generation, lastSeq, oldestAt: typeof oldest === 'string' ? Number(oldest) : undefined, renewedAt: now };
    const written: { id: number; events: number }[] = [];
    for (let left = payloads.length, id = Number(first) - 1; left > 0; left -= SEAL_GAP) {
      id += Math.min(SEAL_GAP, left);
      written.push({ id, events: Math.min(SEAL_GAP, left) });
    }
    this.#wrote(generation, written);
    return { generation, firstSeq: Number(first), lastSeq };
  }

  /**
   * How an append of `events` keeps the log to the last `maxEntries` events: `new` when they are
   * enough by themselves, else the id of the oldest entry this stream wrote that must stay (every
   * older one goes), or undefined while what it wrote holds too few (entries of earlier holders
   * are left to the age limit; reading enforces the count).
   */
  #countTrim(generation: string, events: number): number | 'new' | undefined {
    if (events >= this.#maxEntries) return 'new';
    if (generation !== this.#writtenGeneration) return undefined;
    let kept = events;
    for (let i = this.#written.length - 1; i >= 0; i--) {
      kept += this.#written[i]!.events;
      if (kept >= this.#maxEntries) return this.#written[i]!.id;
    }
    return undefined;
  }

  /** Remembers the entries just written (newest last), forgetting those the count trim removed. */
  #wrote(generation: string, entries: { id: number; events: number }[]): void {
    if (generation !== this.#writtenGeneration) {
      this.#writtenGeneration = generation;
      this.#written = [];
    }
    this.#written.push(...entries);
    let kept = 0;
    for (let i = this.#written.length - 1; i >= 0; i--) {
      kept += this.#written[i]!.events;
      if (kept >= this.#maxEntries) {
        if (i > 0) this.#written = this.#written.slice(i);
        return;
      }
    }
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
    if (cursor.seq === lastSeq) return { entries: [], generation, lastSeq };
    const cutoff = this.#now() - this.#maxAgeMs;
    const entries = read.batches.flatMap(eventsOf).filter((e) => e.seq > cursor.seq && e.seq <= lastSeq);
    // Complete when the oldest entry read follows the cursor (the entries between them, if any,
    // held no event: a handover's gap), within the caps.
    const complete = read.batches[0] !== undefined && read.batches[0].previous <= cursor.seq && entries.length <= this.#maxEntries && entries[0] !== undefined && entries[0].at >= cutoff;
    if (!complete) return { resync: 'CURSOR_EXPIRED' };
    return { entries, generation, lastSeq };
  }

  async #read(from: string): Promise<{ state: StreamState; batches: Batch[] } | undefined> {
    const result = await this.redis.run((c) => c.eval(READ, 2, this.keys.state, this.keys.stream, from));
    if (!Array.isArray(result)) return undefined;
    const [state, top, entries] = result as [string[], RawEntry[], RawEntry[]];
    return { state: parseState(state, top), batches: entries.map(parseBatch) };
  }
}
