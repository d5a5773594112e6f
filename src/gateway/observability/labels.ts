/**
 * Label values for metrics. Labels never hold credentials, user ids or free text, and their
 * cardinality is bounded: client-chosen operation names are checked against a strict pattern and
 * capped per gateway instance; everything else comes from closed sets.
 */

const NAME = /^[A-Za-z0-9_]{1,64}$/;
const CODE = /^[A-Z0-9_]{1,64}$/;
const ROUTE = /^[A-Za-z0-9_\-]{1,64}$/;

/** Operation names seen by one gateway instance, at most `max` of them. */
export class OperationNames {
  readonly #seen = new Set<string>();
  constructor(private readonly max = 100) {}

  /** `anonymous`, `invalid` (not [A-Za-z0-9_]{1,64}), `other` (over the cap), or the name. */
  label(name: string | null | undefined): string {
    if (name == null || name === '') return 'anonymous';
    if (!NAME.test(name)) return 'invalid';
    if (this.#seen.has(name)) return name;
    if (this.#seen.size >= this.max) return 'other';
    this.#seen.add(name);
    return name;
  }
}

/** An error code (Zulip's or ours): upper-case identifiers only, else `other`; none: `NONE`. */
export function codeLabel(code: unknown): string {
  if (code == null) return 'NONE';
  return typeof code === 'string' && CODE.test(code) ? code : 'other';
}

/** A REST route name as the routes module names it (e.g. `get-messages`). */
export function routeLabel(route: string): string {
  return ROUTE.test(route) ? route : 'other';
}

/** An HTTP status, or `none` when no response came (timeout, network error). */
export function statusLabel(status: number | undefined): string {
  return status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'none';
}
