/** Shared by the ZulipConnection tests: a connection over a scripted fetch, and a rejection catcher. */
import { ZulipConnection, type ConnectionOptions, type ResponseInfo } from '../../../src/zulip/index.js';
import { scriptedFetch, type ScriptedResponse } from '../../helpers/scripted-fetch.js';

export const BASE = 'http://127.0.0.1:9991';
export const IAGO = { email: 'iago@zulip.example', apiKey: 'SECRETKEY0123456789abcdef' };
export const FAST_RETRY = { maxRetries: 2, minDelayMs: 1, maxDelayMs: 5 };

export function connect(responses: ScriptedResponse[], options: Partial<ConnectionOptions> = {}) {
  const fetch = scriptedFetch(responses);
  const seen: ResponseInfo[] = [];
  const connection = new ZulipConnection({
    baseUrl: BASE,
    credentials: IAGO,
    fetch,
    retry: FAST_RETRY,
    onResponse: (info) => seen.push(info),
    ...options,
  });
  return { connection, fetch, seen };
}

/** Runs `promise`, expecting it to reject, and returns the rejection. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}
