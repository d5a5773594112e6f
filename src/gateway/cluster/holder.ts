/**
 * The lease holder's side of a credential in cluster mode: polls the upstream queue (queue.ts) and
 * writes each batch to the credential's Redis log (cluster/stream.ts) before acknowledging it.
 *
 * - Each write stores the queue position (`queue_id`, `last_event_id`) with the events, in one
 *   script fenced by the lease token: whoever takes the lease next continues the same queue from
 *   exactly the last event logged, so a failover neither repeats nor skips one.
 * - While Redis is unreachable the write is retried and the batch stays unacknowledged upstream;
 *   the lease keeper gives the lease up before it may lapse and stops this holder (`stop`).
 * - A write refused because the lease moved (LeaseLostError) stops polling at once, leaving the
 *   queue to the new holder; a queue registered but never logged is deleted instead (nobody else
 *   knows it).
 * - A registration that replaces a queue (or that starts after the log lost track of the queue)
 *   logs a RESYNC entry first, ahead of the new queue's events; every registration logs its mark,
 *   where the other instances load its snapshot (snapshot.ts).
 * - A queue given up after an unexpected failure (a position older than what was acknowledged:
 *   "already been pruned", after Redis lost the log) is deleted upstream once its replacement is
 *   logged: the fenced write proves the lease was still ours, so nobody else polls the old queue,
 *   and the log no longer names it.
 */
import { defaultSleep, type BackoffOptions } from '../../zulip/backoff.js';
import type { ZulipConnection } from '../../zulip/connection.js';
import type { ZulipApiError } from '../../zulip/errors.js';
import type { RegisterQueueResult } from '../../zulip/model/events.js';
import { LeaseLostError, type EventStream, type QueuePosition } from './stream.js';
import type { ResyncReason } from '../events/model.js';
import { QueuePoller, discardQueue, type CallGate, type RegisterExtras } from '../events/queue.js';
import { encodeEvents, encodeRegistrationMark, encodeResync } from './codec.js';

export interface StreamHolderOptions {
  connection: ZulipConnection;
  eventTypes: readonly string[];
  register?: RegisterExtras;
  stream: EventStream;
  /** The fencing token of the lease held. */
  token: string;
  /** The queue to continue, as the log (or this instance) last recorded it. */
  resume?: { queueId: string; lastEventId: number };
  /** Log a RESYNC before the first registration's events (the previous queue is unknown). */
  resyncFirst: boolean;
  /** Wait between attempts of a write while Redis is unreachable. */
  retryMs: number;
  longpollTimeoutMs?: number;
  backoff?: BackoffOptions;
  unexpectedBackoff?: BackoffOptions;
  /** The credential's bucket, which each registration and poll waits for (events/queue.ts). */
  gate?: CallGate;
  /** A queue was registered (for the session's readiness). */
  onRegistered(result: RegisterQueueResult, reason: ResyncReason | undefined): void;
  /**
   * The registration was logged: its state is that of the log at `at` (entries up to it came
   * before, entries after it are the new queue's events). For the session's listeners.
   */
  onRegistrationLogged?(result: RegisterQueueResult, reason: ResyncReason | undefined, at: { generation: string; seq: number }): void;
  /** Every position logged. */
  onLogged(position: { queueId: string; lastEventId: number }): void;
  /** A write was refused: the lease moved. The holder has stopped. */
  onLost(): void;
  /** The credential was refused (401). The holder has stopped. */
  onRefused(error: ZulipApiError): void;
}

export class StreamHolder {
  readonly poller: QueuePoller;
  readonly #abort = new AbortController();
  /** The queue id of the latest successful write. */
  #loggedQueueId: string | undefined;
  /** A queue the poller gave up, to delete once its replacement is logged. */
  #abandoned: string | undefined;
  #resyncFirst: boolean;

  constructor(private readonly options: StreamHolderOptions) {
    this.#resyncFirst = options.resyncFirst;
    this.#loggedQueueId = options.resume?.queueId;
    this.poller = new QueuePoller({
      connection: options.connection,
      eventTypes: options.eventTypes,
      ...(options.register && { register: options.register }),
      ...(options.resume && { resume: options.resume }),
      ...(options.longpollTimeoutMs !== undefined && { longpollTimeoutMs: options.longpollTimeoutMs }),
      ...(options.backoff && { backoff: options.backoff }),
      ...(options.unexpectedBackoff && { unexpectedBackoff: options.unexpectedBackoff }),
      ...(options.gate && { gate: options.gate }),
      handler: {
        events: async (events) => {
          const last = events[events.length - 1]!;
          await this.#write(encodeEvents(events), { queueId: this.poller.queueId!, lastEventId: last.id });
        },
        registered: (result, reason) => this.#registered(result, reason),
        failed: (error) => {
          this.#abort.abort();
          options.onRefused(error);
        },
        abandoned: (queueId) => void (this.#abandoned = queueId),
      },
    });
  }

  get stopped(): boolean {
    return this.#abort.signal.aborted;
  }

  start(): void {
    this.poller.start();
  }

  /**
   * Stops polling. The queue stays for the next holder unless `deleteQueue` (no instance wants it
   * any more) or it was never logged.
   */
  async stop(deleteQueue = false): Promise<void> {
    this.#abort.abort();
    // Decided once the poll loop has ended: a registration whose write was in flight is logged
    // (and may be continued by the next holder) or not (and nobody else knows the queue).
    await this.poller.stop((queueId) => deleteQueue || queueId !== this.#loggedQueueId);
  }

  async #registered(result: RegisterQueueResult, reason: ResyncReason | undefined): Promise<void> {
    this.options.onRegistered(result, reason);
    const resync = reason ?? (this.#resyncFirst ? 'QUEUE_EXPIRED' : undefined);
    this.#resyncFirst = false;
    const entries = resync ? [encodeResync(resync, this.poller.featureLevel)] : [];
    if (result.queue_id) entries.push(encodeRegistrationMark(result.queue_id));
    const at = await this.#write(entries, { queueId: result.queue_id!, lastEventId: result.last_event_id });
    this.options.onRegistrationLogged?.(result, reason, { generation: at.generation, seq: at.lastSeq });
    const abandoned = this.#abandoned;
    this.#abandoned = undefined;
    if (abandoned !== undefined && abandoned !== result.queue_id) await discardQueue(this.options.connection, abandoned);
  }

  /** Logs a batch with its queue position; retried until it is written, the lease is lost, or the holder stops. */
  async #write(entries: string[], position: Exclude<QueuePosition, null>): Promise<{ generation: string; lastSeq: number }> {
    for (;;) {
      if (this.stopped) throw new Error('the stream holder stopped');
      try {
        const at = await this.options.stream.append(this.options.token, entries, position);
        this.#loggedQueueId = position.queueId;
        this.options.onLogged(position);
        return at;
      } catch (error) {
        if (error instanceof LeaseLostError) {
          void this.stop();
          this.options.onLost();
          throw error;
        }
        // Unreachable (or refusing): the batch stays unacknowledged upstream until it is logged.
        try {
          await defaultSleep(this.options.retryMs, this.#abort.signal);
        } catch {
          // stopped meanwhile
        }
      }
    }
  }
}
