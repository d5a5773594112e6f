/**
 * Whether a cluster session is ready (its queue registered or continued, index.ts): settled once,
 * resolved or rejected, and awaited within a time limit by `whenReady`.
 */
export class Readiness {
  readonly #promise: Promise<void>;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;
  #done = false;

  constructor() {
    this.#promise = new Promise<void>((resolve, reject) => ((this.#resolve = resolve), (this.#reject = reject)));
    // A session that stops before anyone waits rejects it: not an unhandled rejection.
    this.#promise.catch(() => undefined);
  }

  /** Whether it was resolved. */
  get done(): boolean {
    return this.#done;
  }

  resolve(): void {
    if (this.#done) return;
    this.#done = true;
    this.#resolve();
  }

  reject(error: unknown): void {
    this.#reject(error);
  }

  /** Settles with it, or rejects with `late()` after `withinMs`; at once when already resolved. */
  within(withinMs: number, late: () => unknown): Promise<void> {
    if (this.#done) return this.#promise;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(late()), withinMs);
      this.#promise.then(
        () => (clearTimeout(timer), resolve()),
        (error: unknown) => (clearTimeout(timer), reject(error)),
      );
    });
  }
}
