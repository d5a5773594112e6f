/** Which failures of a GET are retried, and after how long. */
import { Backoff } from '../backoff.js';
import { NetworkError, ServerError, ZulipApiError } from '../errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Floor of every retry delay, and the first backoff bound. */
  minDelayMs: number;
  /** Cap of the backoff bound; a 429 asking for longer is not waited for. */
  maxDelayMs: number;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, minDelayMs: 100, maxDelayMs: 2000 };

/**
 * The delays between the retries of one call: uniform in [min, bound], the bound doubling from min
 * per retry up to max (the jittered backoff of backoff.ts, with a floor).
 */
export function retryBackoff({ minDelayMs, maxDelayMs, random }: RetryOptions): Backoff {
  return new Backoff({ firstBoundMs: minDelayMs, maxBoundMs: maxDelayMs, floorMs: minDelayMs, ...(random && { random }) });
}

/**
 * How long to wait before retrying a GET, or undefined when the error is not retried (then
 * `backoff` does not advance). The caller also stops once the call's deadline leaves no room for
 * the wait.
 */
export function retryDelayMs(error: unknown, backoff: Backoff, policy: RetryOptions): number | undefined {
  const transient =
    (error instanceof NetworkError && error.reason !== 'aborted') || error instanceof ServerError;
  const rateLimited = error instanceof ZulipApiError && error.httpStatus === 429;
  if (!transient && !rateLimited) return undefined;
  const delay = backoff.nextDelayMs();
  if (!rateLimited) return delay;
  const requestedMs = (error.retryAfter ?? 0) * 1000;
  // Waiting longer than our cap would stall the caller; let it see retryAfter instead.
  return requestedMs > policy.maxDelayMs ? undefined : Math.max(delay, requestedMs);
}
