/**
 * Fault injection per route, for reliability tests: added latency, 5xx HTML pages, dropped
 * connections, malformed bodies, 429 with Retry-After, or a request that never answers.
 */
export interface Fault {
  /** Added before the request is handled (or before the fault below). */
  latencyMs?: number;
  /** Answer with this status and an HTML error page, as a proxy in front of Zulip would. */
  status?: number;
  /** Drop the connection (fetch rejects as on ECONNRESET). */
  reset?: boolean;
  /** Answer 200 with a truncated JSON body. */
  malformed?: boolean;
  /** Answer 429 RATE_LIMIT_HIT with this Retry-After (seconds). */
  rateLimit?: { retryAfter: number };
  /** Never answer (until the client gives up). */
  hang?: boolean;
  /** How many requests it applies to. @default Infinity */
  times?: number;
}

interface Rule {
  method: string;
  pathPrefix: string;
  fault: Fault;
  remaining: number;
}

export class Faults {
  private rules: Rule[] = [];

  /**
   * @param match `'*'` for every request, or `'METHOD /path'` matching paths under /api/v1 by prefix,
   * e.g. `'GET /messages'` or `'GET /events'`; the method may be `*`.
   */
  inject(match: string, fault: Fault): void {
    const [method, pathPrefix] = match === '*' ? ['*', '/'] : match.split(' ', 2);
    this.rules.push({ method: method!, pathPrefix: pathPrefix ?? '/', fault, remaining: fault.times ?? Infinity });
  }

  clear(): void {
    this.rules = [];
  }

  /** The fault for this request, if any, consuming one use of it. */
  take(method: string, path: string): Fault | undefined {
    const rule = this.rules.find(
      (r) => r.remaining > 0 && (r.method === '*' || r.method === method) && path.startsWith(r.pathPrefix),
    );
    if (!rule) return undefined;
    rule.remaining--;
    return rule.fault;
  }
}
