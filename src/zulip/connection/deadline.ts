/**
 * The one deadline of a `request`: every attempt and every wait between attempts must finish before
 * it, so a hung upstream costs a caller at most `deadlineMs`, not attempts × timeout. It also
 * carries the caller's abort signal, and remembers which of the two ended the call.
 */
import { EventEmitter } from 'node:events';
import { defaultSleep } from '../backoff.js';

/** The signal undici's request API takes besides an AbortSignal: an EventEmitter with `aborted` and `reason`. */
export class AbortEmitter extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * Ends the call through an AbortSignal (for a fetch) or an AbortEmitter (for undici), whichever the
 * transport asks for, created on demand: most calls end before their deadline and never need one.
 */
export class Deadline {
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly expiresAt: number;
  private readonly onCallerAbort = () => this.abort(this.caller?.reason);
  private controller: AbortController | undefined;
  private abortEmitter: AbortEmitter | undefined;
  private aborted = false;
  private reason: unknown = undefined;
  timedOut = false;

  constructor(
    deadlineMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.expiresAt = performance.now() + deadlineMs;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new DOMException('The request timed out', 'TimeoutError'));
    }, deadlineMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.abortEmitter?.abort(reason);
  }

  /** Milliseconds left before the deadline (0 once it has passed or the caller aborted). */
  get remainingMs(): number {
    return this.aborted ? 0 : Math.max(0, this.expiresAt - performance.now());
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get emitter(): AbortEmitter {
    if (!this.abortEmitter) {
      this.abortEmitter = new AbortEmitter();
      // Up to three attempts share it; each may leave a listener until undici settles.
      this.abortEmitter.setMaxListeners(0);
      if (this.aborted) this.abortEmitter.abort(this.reason);
    }
    return this.abortEmitter;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted === true && !this.timedOut;
  }

  /** Waits `ms` unless the call ends first; resolves false then. */
  pause(ms: number): Promise<boolean> {
    return defaultSleep(ms, this.signal).then(
      () => true,
      () => false,
    );
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
