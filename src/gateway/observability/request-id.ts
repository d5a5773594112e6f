/**
 * Request ids: the client's `x-request-id` when it is sane (a proxy or client that already
 * assigned one keeps its correlation), else a fresh one. "Sane" is short printable ASCII without
 * spaces, so an id can go into logs and upstream headers without escaping or log injection.
 */
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

const SANE = /^[A-Za-z0-9._:@\-]{1,128}$/;

/** The id to use for a request carrying `header` (null when absent). */
export function requestIdFrom(header: string | null | undefined): string {
  return header != null && SANE.test(header) ? header : randomUUID();
}
