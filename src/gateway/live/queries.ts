/**
 * The live queries of one gateway instance: one live-query store (@n1ru4l/in-memory-live-query-store,
 * which tracks what each execution read, re-runs the queries a resource change touches, and
 * throttles each query), fed by the credentials' own event streams.
 *
 * - Each credential with a live query open is followed through the event hub, as a subscription
 *   follows it: the same one upstream queue per credential, registered while any live query of the
 *   credential is open (and for the hub's grace period after). Each event it delivers becomes the
 *   resources it may have changed (live/resources.ts), which the store invalidates. Nothing polls.
 * - Resource names are scoped by credential: an event of one credential re-runs only that
 *   credential's live queries, and every execution runs with its own caller's context, so two
 *   credentials never share an execution or a result.
 * - Events reach the follower after the credential's live directory applied them (the hub's
 *   in-process listeners run before its fan-out), so a re-run reads the new state.
 */
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import type { ZulipConnection } from '../../zulip/connection.js';
import { sessionKey, type EventHub } from '../events/hub.js';
import { EVENT_KINDS, type EventKind } from '../events/model.js';
import type { EndReason, Subscriber } from '../events/subscriber.js';
import { eventResources } from './resources.js';
import { LIVE_BY_KIND } from '../events/types.js';

/** Default least time between two executions of one live query, in milliseconds. */
export const DEFAULT_LIVE_QUERY_THROTTLE_MS = 50;

export interface LiveQueriesOptions {
  /**
   * Least time between two executions of one live query, in milliseconds: changes within it are
   * folded into one re-execution. A client's `@live(throttle:)` may raise it, never lower it.
   * @default DEFAULT_LIVE_QUERY_THROTTLE_MS
   */
  throttleMs?: number;
}

/** Why a credential's stream ended: as a subscription's would, or it could not be followed at all. */
export type FollowEnd = { reason: EndReason; message: string } | { error: unknown };

/** A credential's event stream as one live query holds it. */
export interface Following {
  /** The prefix of this credential's resource names. */
  readonly scope: string;
  /**
   * Calls `listener` once if the stream ends for good (shutdown, refused credentials, too slow)
   * while held; returns its removal.
   */
  onEnd(listener: (end: FollowEnd) => void): () => void;
  /** Stops holding it (idempotent); the last holder's release stops following the credential. */
  release(): void;
  /** Settles once the credential's events are followed (or could not be): later events all reach the store. */
  readonly ready: Promise<void>;
  /** Collects the (unscoped) resource names invalidated from now until `stop`. */
  watch(): Watch;
}

/** The resource names a credential's events invalidated while it was open. */
export interface Watch {
  readonly names: ReadonlySet<string>;
  stop(): void;
}

export interface LiveQueryStats {
  /** Credentials followed now. */
  credentials: number;
  /** Live queries open now. */
  open: number;
  /** Executions since the gateway started, first ones included. */
  executions: number;
  /** Resource names invalidated since the gateway started (each event counts each of its names). */
  invalidations: number;
}

/** Kinds that change nothing a query reads (typing; `live: 'nothing'` in events/types.ts) are not even delivered to the followers. */
const FOLLOWED_KINDS: readonly EventKind[] = EVENT_KINDS.filter((k) => LIVE_BY_KIND[k] !== 'nothing');

interface Follower {
  scope: string;
  holders: number;
  endListeners: Set<(end: FollowEnd) => void>;
  watchers: Set<Set<string>>;
  ready: Promise<void>;
  stop(): void;
}

export class LiveQueries {
  readonly store: InMemoryLiveQueryStore;
  readonly throttleMs: number;
  private readonly followers = new Map<string, Follower>();
  private scopes = 0;
  private executions = 0;
  private invalidations = 0;

  constructor(
    private readonly hub: EventHub,
    options: LiveQueriesOptions = {},
  ) {
    this.throttleMs = options.throttleMs ?? DEFAULT_LIVE_QUERY_THROTTLE_MS;
    this.store = new InMemoryLiveQueryStore({
      // Names are built from Zulip's IDs by live/reads.ts: no field is read as an identity here
      // (names starting with `__` are reserved by GraphQL, so no field has this one).
      idFieldName: '__none',
      // Resource names never leave the gateway (they carry the credential's scope).
      includeIdentifierExtension: false,
      // Throttling is live/schedule.ts's: the store's own can drop a change (see there).
      validateThrottleValue: () => null,
    });
  }

  /** The throttle of one live query: the configured one, or more if its `@live(throttle:)` asks. */
  throttleFor(asked: unknown): number {
    return Math.max(typeof asked === 'number' && Number.isFinite(asked) ? asked : 0, this.throttleMs);
  }

  /** Invalidates resources of the credential whose names carry `scope`. */
  invalidate(scope: string, names: readonly string[]): void {
    void this.store.invalidate(names.map((name) => scope + name));
  }

  /** Follows the credential's events for one live query, until `release`. */
  follow(connection: ZulipConnection): Following {
    const key = sessionKey(connection);
    let follower = this.followers.get(key);
    if (!follower) {
      follower = this.start(connection, key);
      this.followers.set(key, follower);
    }
    follower.holders++;
    const held = follower;
    let released = false;
    return {
      scope: held.scope,
      onEnd: (listener) => {
        held.endListeners.add(listener);
        return () => held.endListeners.delete(listener);
      },
      release: () => {
        if (released) return;
        released = true;
        if (--held.holders > 0) return;
        if (this.followers.get(key) === held) this.followers.delete(key);
        held.stop();
      },
      ready: held.ready,
      watch: () => {
        const names = new Set<string>();
        held.watchers.add(names);
        return { names, stop: () => held.watchers.delete(names) };
      },
    };
  }

  /** Counts one execution of a live query (for stats). */
  executed(): void {
    this.executions++;
  }

  stats(): LiveQueryStats {
    let open = 0;
    for (const follower of this.followers.values()) open += follower.holders;
    return { credentials: this.followers.size, open, executions: this.executions, invalidations: this.invalidations };
  }

  private start(connection: ZulipConnection, key: string): Follower {
    const scope = `${++this.scopes}/`;
    let subscriber: Subscriber | undefined;
    let stopped = false;
    let attached!: () => void;
    const follower: Follower = {
      scope,
      holders: 0,
      endListeners: new Set(),
      watchers: new Set(),
      ready: new Promise<void>((resolve) => (attached = resolve)),
      stop: () => {
        stopped = true;
        void subscriber?.return();
      },
    };
    const end = (outcome: FollowEnd) => {
      if (this.followers.get(key) === follower) this.followers.delete(key);
      for (const listener of [...follower.endListeners]) listener(outcome);
    };
    void (async () => {
      try {
        // The subscriber is attached when this resolves: every event after it reaches the loop below.
        subscriber = await this.hub.subscribe(connection, { filter: { kinds: FOLLOWED_KINDS } });
      } catch (error) {
        attached();
        return end({ error });
      }
      attached();
      if (stopped) return void subscriber.return();
      for await (const item of subscriber) {
        if (item.type === 'end') return end({ reason: item.reason, message: item.message });
        const names = eventResources(item.delivery.event);
        if (names.length === 0) continue;
        this.invalidations += names.length;
        for (const watcher of follower.watchers) for (const name of names) watcher.add(name);
        this.invalidate(scope, names);
      }
    })();
    return follower;
  }
}
