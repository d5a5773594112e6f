/**
 * Cluster mode: each credential's change log (log.ts) lives in Redis too, one hash per credential
 * (`changes:{HMAC id}`, cluster/keys.ts: never the credential), so that a phone reopens against any
 * instance. Its fields are the log's records as they are (records.ts), and `#meta` says where the
 * log stands (`generation floor lastSeq`, the positions of the credential's Redis event log, which
 * every instance numbers the same).
 *
 * - One writer per credential: the instance holding its lease (the one polling its queue), after
 *   each batch its log committed, only what changed (compacted in memory first: 500 edits of one
 *   message are one field written 500 times, one field kept). The write is one script that checks
 *   the hash continues from where this instance's last write left it; when it does not (another
 *   instance wrote since, a failover, a purge), the instance writes its whole log instead, with its
 *   own floor: a later floor, never a gap.
 * - Any instance answers `changes(since:)` from the hash when its own log cannot (it did not
 *   follow the credential when the stamp was given): one HGETALL, no upstream call.
 * - The hash expires with the retention (SYNC_RETENTION_MS) after its last write, and a revoked
 *   credential's hash is deleted with its other keys (cluster/cluster.ts `revokeCredential`).
 */
import type { ClusterRedis } from '../cluster/redis.js';
import { ChangeLog, type LogMeta } from './log.js';

/** How long a read waits for Redis to be connected (an instance that just started). */
const READ_WAIT_MS = 2_000;

/** The hash field that holds where the log stands (a record key never starts with `#`). */
const META = '#meta';

/**
 * KEYS[1]: the hash. ARGV: generation, floor, lastSeq, the lastSeq this write continues from
 * ('' for a whole log), retention ms, then field/value pairs (an empty value deletes the field).
 * Returns 1 when written, 0 when the hash is already at or past lastSeq, -1 when it does not
 * continue from the given position (the caller writes its whole log).
 */
const WRITE = `
local meta = redis.call('HGET', KEYS[1], '${META}')
local whole = ARGV[4] == ''
if meta then
  local gen, floor, last = string.match(meta, '^(%S+) (%d+) (%d+)$')
  if gen == ARGV[1] and tonumber(last) >= tonumber(ARGV[3]) then return 0 end
  if not whole and (gen ~= ARGV[1] or tonumber(last) ~= tonumber(ARGV[4])) then return -1 end
elseif not whole then
  return -1
end
if whole then redis.call('DEL', KEYS[1]) end
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('HSET', KEYS[1], '${META}', ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

export class RedisChangeLog {
  /** The lastSeq of this instance's last write that Redis took; undefined: the next write is whole. */
  #written: number | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: ClusterRedis,
    private readonly key: string,
    private readonly retentionMs: number,
  ) {}

  /** Writes what the log changed since the last call (in order: one write at a time). */
  flush(log: ChangeLog): Promise<void> {
    const dirty = log.takeDirty();
    const meta = log.meta;
    if (!dirty || !meta) return this.#writing;
    this.#writing = this.#writing.then(() => this.#write(log, meta, dirty));
    return this.#writing;
  }

  /** Deletes the copy (a purge): the credential's stamps then ask for a resync on every instance. */
  async delete(): Promise<void> {
    this.#written = undefined;
    await this.redis.run((c) => c.del(this.key)).catch(() => undefined);
  }

  /** The copy in Redis, read back as a log; undefined when there is none (expired, purged) or Redis is unreachable. */
  static async read(redis: ClusterRedis, key: string): Promise<ChangeLog | undefined> {
    let fields: Record<string, string>;
    try {
      // An instance just started may still be connecting: a reopen waits for it a little.
      await redis.whenConnected(READ_WAIT_MS);
      fields = await redis.run((c) => c.hgetall(key));
    } catch {
      return undefined;
    }
    const meta = parseMeta(fields[META]);
    if (!meta) return undefined;
    delete fields[META];
    return ChangeLog.from(meta, Object.entries(fields));
  }

  async #write(log: ChangeLog, meta: LogMeta, dirty: { whole: boolean; records: Map<string, string | undefined> }): Promise<void> {
    const run = async (whole: boolean, records: Iterable<[string, string | undefined]>) => {
      const args: string[] = [meta.generation, String(meta.floor), String(meta.lastSeq), whole ? '' : String(this.#written), String(this.retentionMs)];
      for (const [field, value] of records) args.push(field, value ?? '');
      return (await this.redis.run((c) => c.eval(WRITE, 1, this.key, ...args))) as number;
    };
    try {
      let result = await run(dirty.whole || this.#written === undefined, dirty.records);
      // Not a continuation of what Redis holds: this instance's whole log, as it is now.
      if (result === -1) result = await run(true, log.entries());
      this.#written = result === -1 ? undefined : meta.lastSeq;
    } catch {
      // Redis unreachable: the next write replaces the copy whole.
      this.#written = undefined;
    }
  }
}

function parseMeta(text: string | undefined): LogMeta | undefined {
  const match = text === undefined ? null : /^(\S+) (\d+) (\d+)$/.exec(text);
  return match ? { generation: match[1]!, floor: Number(match[2]), lastSeq: Number(match[3]) } : undefined;
}
