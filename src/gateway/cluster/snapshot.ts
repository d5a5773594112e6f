/**
 * The registration a credential's holder logged, for the in-process listeners (the live directory)
 * of every other instance: without it only the holder, which made the registration, could load
 * state from it (docs/events.md, "Several instances").
 *
 * - The holder logs a registration mark (codec.ts) with each registration, then stores the
 *   registration response (`/register`'s values: users, channels, unreads… never a credential)
 *   under the credential's `snapshot` key, with the log position it is the state of: the mark.
 * - Another instance loads the snapshot when its tail reaches a mark of a registration it did not
 *   make, and when its session starts; it then applies the log's events after the snapshot's
 *   position, those read from the log first and then the live ones, held meanwhile: its listeners
 *   see exactly what the holder's saw. A snapshot whose following events the log no longer holds
 *   (capped at its replay window) is not loaded: the listeners stay unloaded until the next one.
 * - The value is compressed (a directory's registration is large, and compresses well). It expires
 *   with the log's state (the append script renews it).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RegisterQueueResult } from '../../zulip/model/events.js';
import type { RawEvent, ResyncReason } from '../events/model.js';
import type { SessionListener } from '../events/session.js';
import { decodeEntry } from './codec.js';
import type { ClusterRedis } from './redis.js';
import type { EventStream, StreamEntry } from './stream.js';

/** A registration as stored: its response, and the log position its state is that of. */
export interface RegistrationSnapshot {
  generation: string;
  seq: number;
  queueId: string;
  reason: ResyncReason | undefined;
  result: RegisterQueueResult;
}

export class SnapshotStore {
  constructor(
    private readonly redis: ClusterRedis,
    /** keys.ts `snapshot`. */
    readonly key: string,
    private readonly ttlMs: number,
  ) {}

  async save(snapshot: RegistrationSnapshot): Promise<void> {
    const value = gzipSync(JSON.stringify(snapshot), { level: 1 });
    await this.redis.run((c) => c.set(this.key, value, 'PX', this.ttlMs));
  }

  /** The stored snapshot, or undefined (none, or unreadable). */
  async load(): Promise<RegistrationSnapshot | undefined> {
    const value = await this.redis.run((c) => c.getBuffer(this.key));
    if (!value) return undefined;
    try {
      return JSON.parse(gunzipSync(value).toString('utf8')) as RegistrationSnapshot;
    } catch {
      return undefined;
    }
  }
}

/** What a {@link SnapshotLoader} reads and tells. */
export interface SnapshotLoaderOptions {
  store: SnapshotStore;
  stream: EventStream;
  listeners: () => Iterable<SessionListener>;
  /** Wait between looks for a snapshot its mark announced (the holder stores it right after). */
  retryMs: number;
  /** How long a mark's snapshot is looked for. */
  withinMs: number;
}

/**
 * Loads other instances' registrations into this instance's listeners, one at a time; while a load
 * runs, the session hands it the live events (`hold`) instead of telling the listeners.
 */
export class SnapshotLoader {
  /** The load running, and the live events held meanwhile (with their log positions). */
  #loading: { held: { seq: number; raw: RawEvent }[] } | undefined;

  constructor(private readonly options: SnapshotLoaderOptions) {}

  /** Whether live events go to the running load rather than to the listeners. */
  get loading(): boolean {
    return this.#loading !== undefined;
  }

  /** A live event while loading. */
  hold(seq: number, raw: RawEvent): void {
    this.#loading?.held.push({ seq, raw });
  }

  /** The log broke: a load running now would not follow it. */
  cancel(): void {
    this.#loading = undefined;
  }

  /**
   * Loads the snapshot of the registration of `queueId` (or whichever is stored, when undefined) once
   * it is there, then the log's events after it. Resolves whether the listeners were loaded; when a
   * registration's snapshot (`queueId`) cannot be, they are told `lost` (unless a newer load runs):
   * whatever they held no longer follows the log.
   */
  async load(queueId: string | undefined, position: () => { generation: string | undefined; seq: number }): Promise<boolean> {
    const loaded = await this.#load(queueId, position);
    if (!loaded && queueId !== undefined && this.#loading === undefined) for (const listener of this.options.listeners()) listener.lost?.();
    return loaded;
  }

  async #load(queueId: string | undefined, position: () => { generation: string | undefined; seq: number }): Promise<boolean> {
    const loading = { held: [] as { seq: number; raw: RawEvent }[] };
    this.#loading = loading;
    const current = () => this.#loading === loading;
    try {
      const deadline = Date.now() + this.options.withinMs;
      let snapshot = await this.options.store.load();
      while (queueId !== undefined && snapshot?.queueId !== queueId && Date.now() < deadline && current()) {
        await new Promise((resolve) => setTimeout(resolve, this.options.retryMs).unref?.());
        snapshot = await this.options.store.load();
      }
      if (!snapshot || !current() || (queueId !== undefined && snapshot.queueId !== queueId)) return false;
      const at = position();
      // A snapshot the tail has not reached yet is loaded when it reaches its mark.
      if (at.generation !== snapshot.generation || at.seq < snapshot.seq) return false;
      // The log between the snapshot and where the tail is; the tail's entries after it are held.
      const replay = at.seq > snapshot.seq ? await this.options.stream.since({ generation: snapshot.generation, seq: snapshot.seq }) : { entries: [] as StreamEntry[] };
      if ('resync' in replay || !current()) return false;
      const raws: RawEvent[] = [];
      let last = snapshot.seq;
      for (const entry of replay.entries) {
        if (entry.seq > at.seq) break;
        last = entry.seq;
        const decoded = decodeEntry(entry.data);
        if (decoded?.event.kind === 'RESYNC') return false; // a later registration follows, with its own mark
        if (decoded?.raw) raws.push(decoded.raw);
      }
      for (const { seq, raw } of loading.held) if (seq > last) raws.push(raw);
      for (const listener of this.options.listeners()) listener.registered?.(snapshot.result, snapshot.reason);
      if (raws.length > 0) for (const listener of this.options.listeners()) listener.events?.(raws);
      return true;
    } catch {
      return false; // Redis unreachable: the listeners stay unloaded until the next registration
    } finally {
      if (current()) this.#loading = undefined;
    }
  }
}
