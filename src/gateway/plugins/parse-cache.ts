/**
 * yoga's parse-and-validation cache, bounded in bytes. yoga's default keeps 1,024 documents for an
 * hour keyed by their full text, whatever their size; comments are not tokens, so documents of
 * megabytes pass the token limit (plugins/limits.ts), and a client without credentials
 * (`{ __typename }` is public) could pin a gigabyte or more with distinct padded documents.
 *
 * Here a document over `maxDocumentLength` characters is never cached (it is parsed on each
 * request, as the body limit allows), and the cached texts together stay under `maxTotalLength`,
 * least recently used dropped first. The parsed document holds its source text (token values
 * are slices of it), so the text's length is what the bound counts. Parse errors are cached the
 * same way, in a cache of their own; validation results live in yoga's WeakMap keyed by the
 * cached document, so they go with it.
 */
import type { DocumentNode } from 'graphql';

/** The defaults: every ordinary operation is cached, and all of them together stay a few MB. */
export const PARSE_CACHE_LIMITS = {
  /** Longer documents are parsed each time, never cached. */
  maxDocumentLength: 32_768,
  /** Characters of document text the cache holds in all. */
  maxTotalLength: 4_194_304,
  /** Documents the cache holds (yoga's own default). */
  maxEntries: 1024,
} as const;

export type ParseCacheLimits = { -readonly [K in keyof typeof PARSE_CACHE_LIMITS]: number };

/** A least-recently-used map from a document's text to what it parsed to, bounded by entries and by text length. */
export class DocumentTextCache<T> {
  readonly #entries = new Map<string, T>();
  #length = 0;

  constructor(readonly limits: ParseCacheLimits = PARSE_CACHE_LIMITS) {}

  get(text: string): T | undefined {
    const value = this.#entries.get(text);
    if (value !== undefined) {
      this.#entries.delete(text); // most recently used last
      this.#entries.set(text, value);
    }
    return value;
  }

  set(text: string, value: T): void {
    if (text.length > this.limits.maxDocumentLength || this.#entries.has(text)) return;
    this.#entries.set(text, value);
    this.#length += text.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.limits.maxEntries && this.#length <= this.limits.maxTotalLength) break;
      this.#entries.delete(oldest);
      this.#length -= oldest.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Characters of document text held. */
  get length(): number {
    return this.#length;
  }
}

/** yoga's `parserAndValidationCache` option with both caches bounded. */
export function boundedParseCache(limits: Partial<ParseCacheLimits> = {}): {
  documentCache: DocumentTextCache<DocumentNode>;
  errorCache: DocumentTextCache<unknown>;
  validationCache: true;
} {
  const bounds = { ...PARSE_CACHE_LIMITS, ...limits };
  return { documentCache: new DocumentTextCache(bounds), errorCache: new DocumentTextCache(bounds), validationCache: true };
}
