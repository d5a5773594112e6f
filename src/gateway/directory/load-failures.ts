/**
 * Why credentials' live directories are not serving (never silently: the operator sees it): a
 * directory that cannot load leaves every lookup of its credential to the per-request path, which
 * is correct but slow and costs upstream calls. Each failure is reported to `onFailure` (the
 * gateway logs and counts it), flagged `first` once per credential and kind of failure so the log
 * says it once, and summarised for /readiness while it lasts.
 *
 * Credentials appear only as a prefix of their HMAC key (ZulipConnection.credentialKey), never
 * the email or API key.
 */

/**
 * - `missing_keys`: the register answer lacks keys the directory needs (a server variant, a proxy);
 * - `invalid`: the register answer has the keys, but not in a shape the directory can load;
 * - `log_lost`: cluster mode: Redis lost or interrupted the credential's event log, so the
 *   directory no longer follows it until the next registration.
 */
export type DirectoryLoadFailureReason = 'missing_keys' | 'invalid' | 'log_lost';

export interface DirectoryLoadFailure {
  reason: DirectoryLoadFailureReason;
  /** The register keys that were missing (`missing_keys` only). */
  missingKeys: readonly string[];
  /** A log-safe name of the credential: the first characters of its HMAC key. */
  credential: string;
  /** The first failure of this credential and kind: log it (later ones only count). */
  first: boolean;
}

/** Kinds of failure remembered as already logged, at most; past it, the oldest are forgotten. */
const MAX_REMEMBERED = 10_000;

export class DirectoryLoadFailures {
  /** Per credential key: what keeps its directory from serving now. */
  readonly #current = new Map<string, { reason: DirectoryLoadFailureReason; missingKeys: readonly string[] }>();
  readonly #logged = new Set<string>();

  constructor(private readonly onFailure?: (failure: DirectoryLoadFailure) => void) {}

  /** A failure of `key`'s directory (its session key: server and credential HMAC). */
  failed(key: string, reason: DirectoryLoadFailureReason, missingKeys: readonly string[] = []): void {
    this.#current.set(key, { reason, missingKeys });
    const kind = `${key} ${reason} ${missingKeys.join(',')}`;
    const first = !this.#logged.has(kind);
    if (first) {
      if (this.#logged.size >= MAX_REMEMBERED) this.#logged.delete(this.#logged.values().next().value!);
      this.#logged.add(kind);
    }
    this.onFailure?.({ reason, missingKeys, credential: credentialLabel(key), first });
  }

  /** `key`'s directory loaded, or is no longer followed: it no longer degrades anything. */
  cleared(key: string): void {
    this.#current.delete(key);
  }

  /** One line per kind of failure lasting now, with how many credentials it affects (for /readiness). */
  detail(): string[] {
    const counts = new Map<string, number>();
    for (const { reason, missingKeys } of this.#current.values()) {
      const what =
        reason === 'missing_keys'
          ? `register answers lack ${missingKeys.join(', ')}`
          : reason === 'invalid'
            ? 'register answers cannot be loaded'
            : 'the Redis event log was lost or interrupted';
      counts.set(what, (counts.get(what) ?? 0) + 1);
    }
    return [...counts].map(([what, n]) => `live directory not loaded for ${n} credential${n === 1 ? '' : 's'} (${what}): lookups go upstream`);
  }
}

/** The session key is `${baseUrl} ${credential HMAC}`: only a prefix of the HMAC names the credential. */
function credentialLabel(key: string): string {
  return key.slice(key.lastIndexOf(' ') + 1, key.lastIndexOf(' ') + 13);
}
