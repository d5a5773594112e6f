/** Which failures of a GET are retried, and after how long. */
import { NetworkError, ServerError, ZulipApiError } from '../errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Floor of every retry delay, and the first backoff bound. */
  minDelayMs: number;
  /** Cap of the backoff bound; a 429 asking for longer is not waited for. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, minDelayMs: 100, maxDelayMs: 2000 };

/**
 * How long to wait before retrying a GET, or undefined when the error is not retried. The caller
 * also stops once the call's deadline leaves no room for the wait.
 */
export function retryDelayMs(error: unknown, attempt: number, policy: RetryOptions): number | undefined {
  const transient =
    (error instanceof NetworkError && error.reason !== 'aborted') || error instanceof ServerError;
  const rateLimited = error instanceof ZulipApiError && error.httpStatus === 429;
  if (!transient && !rateLimited) return undefined;
  const backoff = jitteredDelayMs(attempt, policy);
  if (!rateLimited) return backoff;
  const requestedMs = (error.retryAfter ?? 0) * 1000;
  // Waiting longer than our cap would stall the caller; let it see retryAfter instead.
  return requestedMs > policy.maxDelayMs ? undefined : Math.max(backoff, requestedMs);
}

/** Uniform in [min, bound], the bound doubling from min per attempt up to max. */
function jitteredDelayMs(attempt: number, { minDelayMs, maxDelayMs }: RetryOptions): number {
  const bound = Math.min(minDelayMs * 2 ** attempt, maxDelayMs);
  return minDelayMs + Math.random() * Math.max(0, bound - minDelayMs);
}
