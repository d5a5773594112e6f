/**
 * Persisted operations, two modes (config PERSISTED_OPERATIONS):
 *
 * - `apq`: automatic persisted queries (Apollo's protocol, which graphql-codegen and urql speak
 *   too). A client sends `extensions.persistedQuery.sha256Hash` alone; an unknown hash answers
 *   PERSISTED_QUERY_NOT_FOUND (message `PersistedQueryNotFound`, which the clients look for), and
 *   the client retries with the query, whose SHA-256 is checked before it is stored. The store is
 *   per gateway instance, in memory, bounded by entries and bytes (least recently used dropped).
 *   Hand-written rather than @graphql-yoga/plugin-apq, whose peer dependency range excludes our
 *   @graphql-tools/utils 11; @graphql-yoga/plugin-persisted-operations cannot register (it only
 *   looks operations up), so it would need this hook anyway.
 * - `trusted`: only the operations of a manifest loaded at startup (graphql-codegen client preset
 *   `persisted-documents.json`, or Relay's `{ id: text }` / `[{ id, text }]` output); anything else
 *   is refused with PERSISTED_QUERY_ONLY. Served by @graphql-yoga/plugin-persisted-operations.
 *
 * `resolveApq` / `resolveTrusted` are the same logic for transports that bypass yoga's onParams
 * (graphql-ws); `persistedOperations` builds both for a configured mode.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { usePersistedOperations as useYogaPersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GatewayErrorCode } from '../errors.js';
import { PARSE_CACHE_LIMITS } from './parse-cache.js';

const SHA256_HEX = /^[a-f0-9]{64}$/;

/**
 * A bounded LRU of query texts by SHA-256. A query longer than `maxQueryLength` is run but not
 * stored (as the parse cache does not cache it, plugins/parse-cache.ts): its client's next
 * hash-only request gets PersistedQueryNotFound and sends the query again, which is what the
 * protocol has clients do.
 */
export class PersistedQueryStore {
  readonly #entries = new Map<string, string>();
  #bytes = 0;

  constructor(
    readonly maxEntries = 1000,
    readonly maxBytes = 16 * 1_048_576,
    readonly maxQueryLength = PARSE_CACHE_LIMITS.maxDocumentLength,
  ) {}

  get(hash: string): string | undefined {
    const query = this.#entries.get(hash);
    if (query !== undefined) {
      this.#entries.delete(hash); // most recently used last
      this.#entries.set(hash, query);
    }
    return query;
  }

  set(hash: string, query: string): void {
    if (query.length > this.maxBytes || query.length > this.maxQueryLength) return;
    if (this.#entries.has(hash)) return void this.get(hash);
    this.#entries.set(hash, query);
    this.#bytes += query.length;
    for (const [oldest, text] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= text.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

function refuse(message: string, code: GatewayErrorCode, status = 400): never {
  throw createGraphQLError(message, { extensions: { code, http: { status } } });
}

type Params = GraphQLParams & { documentId?: unknown; doc_id?: unknown; id?: unknown };

/**
 * APQ: returns the params to execute (the stored query filled in), or throws a GraphQLError with
 * one of the GatewayErrorCode persistedQuery* codes. Params without a persistedQuery extension pass unchanged.
 */
function resolveApq(params: Params, store: PersistedQueryStore): Params {
  const pq = (params.extensions as { persistedQuery?: unknown } | undefined)?.persistedQuery;
  if (pq == null) return params;
  const { version, sha256Hash } = pq as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) refuse('Only persistedQuery version 1 is supported.', GatewayErrorCode.persistedQueryInvalid);
  if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash)) {
    refuse('persistedQuery.sha256Hash must be 64 lower-case hexadecimal digits.', GatewayErrorCode.persistedQueryInvalid);
  }
  if (typeof params.query === 'string') {
    if (createHash('sha256').update(params.query).digest('hex') !== sha256Hash) {
      refuse('provided sha does not match query', GatewayErrorCode.persistedQueryHashMismatch);
    }
    store.set(sha256Hash, params.query);
    return params;
  }
  const query = store.get(sha256Hash);
  // Status 200: Apollo's and urql's clients read the error from the body and retry with the query.
  if (query === undefined) refuse('PersistedQueryNotFound', GatewayErrorCode.persistedQueryNotFound, 200);
  return { ...params, query };
}

function useAutomaticPersistedQueries(store: PersistedQueryStore): Plugin {
  return {
    onParams({ params, setParams }) {
      const resolved = resolveApq(params as Params, store);
      if (resolved !== params) setParams(resolved);
    },
  };
}

/** Document id → operation text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

/**
 * Reads a manifest: `{ "<hash or id>": "<document>" }` (graphql-codegen client preset
 * persisted-documents.json; Relay's persisted queries file) or `[{ "id", "text" | "query" }]`.
 * Every document must parse; the error names the entry, never its text.
 */
export function parseTrustedDocuments(json: string, source = 'manifest'): TrustedDocuments {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new Error(`${source} is not valid JSON.`);
  }
  const entries: [string, unknown][] = Array.isArray(data)
    ? data.map((item: { id?: unknown; text?: unknown; query?: unknown }) => [String(item?.id), item?.text ?? item?.query])
    : data !== null && typeof data === 'object'
      ? Object.entries(data)
      : [];
  if (entries.length === 0) throw new Error(`${source} holds no documents (expected { "<id>": "<document>" }).`);
  const documents = new Map<string, string>();
  for (const [id, text] of entries) {
    if (!/^[A-Za-z0-9_:.\-]{1,128}$/.test(id) || typeof text !== 'string') {
      throw new Error(`${source}: entry ${JSON.stringify(id.slice(0, 40))} must map an id to a document string.`);
    }
    try {
      parse(text);
    } catch {
      throw new Error(`${source}: document ${id} does not parse as GraphQL.`);
    }
    documents.set(id, text);
  }
  return documents;
}

export function loadTrustedDocuments(file: string): TrustedDocuments {
  return parseTrustedDocuments(readFileSync(file, 'utf8'), file);
}

/** The parameters that may carry a document id: GraphQL over HTTP's `documentId`, Relay's `doc_id` and `id`. */
const ID_PARAMETERS = ['documentId', 'doc_id', 'id'] as const;

/** The document id of a request: `documentId`, Relay's `doc_id`/`id`, or the APQ hash. */
function documentIdOf(params: Params): string | null {
  for (const name of ID_PARAMETERS) if (typeof params[name] === 'string') return params[name];
  const pq = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return typeof pq?.sha256Hash === 'string' ? pq.sha256Hash : null;
}

/** Trusted mode, for transports outside yoga's onParams: the query to run, or a refusal. */
export function resolveTrusted(params: Params, documents: TrustedDocuments): Params {
  if (typeof params.query === 'string' && params.query !== '') refuse(TRUSTED_ONLY_MESSAGE, GatewayErrorCode.persistedQueryOnly);
  const id = documentIdOf(params);
  if (id === null) refuse(ID_REQUIRED_MESSAGE, GatewayErrorCode.persistedQueryIdRequired);
  const query = documents.get(id);
  if (query === undefined) refuse(NOT_TRUSTED_MESSAGE, GatewayErrorCode.persistedQueryNotFound);
  return { ...params, query };
}

const TRUSTED_ONLY_MESSAGE = 'This gateway runs only trusted documents: send the document id (documentId) instead of the query text.';
const ID_REQUIRED_MESSAGE = 'Send the id of a trusted document (documentId, or extensions.persistedQuery.sha256Hash).';
const NOT_TRUSTED_MESSAGE = 'PersistedQueryNotFound: this document id is not in the trusted documents.';

/** A GET's document id, from its query string. */
function documentIdOfSearch(url: string): string | null {
  const search = new URL(url, 'http://localhost').searchParams;
  for (const name of ID_PARAMETERS) {
    const value = search.get(name);
    if (value) return value;
  }
  return null;
}

function useTrustedDocuments(documents: TrustedDocuments): Plugin {
  const status = { http: { status: 400 } };
  return useYogaPersistedOperations({
    getPersistedOperation: (id) => documents.get(id) ?? null,
    // yoga's GET parser keeps only query, variables, operationName and extensions: a GET's
    // document id is read from its query string here.
    extractPersistedOperationId: (params, request) => documentIdOf(params as Params) ?? (request.method === 'GET' ? documentIdOfSearch(request.url) : null),
    customErrors: {
      notFound: { message: NOT_TRUSTED_MESSAGE, extensions: { code: GatewayErrorCode.persistedQueryNotFound, ...status } },
      keyNotFound: { message: ID_REQUIRED_MESSAGE, extensions: { code: GatewayErrorCode.persistedQueryIdRequired, ...status } },
      persistedQueryOnly: { message: TRUSTED_ONLY_MESSAGE, extensions: { code: GatewayErrorCode.persistedQueryOnly, ...status } },
    },
  }) as Plugin;
}

/** Persisted-operations settings (GatewayOptions.persistedOperations). */
export interface PersistedOperationsOptions {
  mode: 'off' | 'apq' | 'trusted';
  /** Trusted mode: the manifest to load when `documents` is not given. */
  file?: string;
  documents?: TrustedDocuments;
  /** APQ: entries kept in the store. @default 1000 */
  apqMaxEntries?: number;
}

/**
 * The plugin for a configured mode, and the same rule for transports outside yoga's onParams
 * (graphql-ws); undefined for `off`.
 */
export function usePersistedOperations(
  options: PersistedOperationsOptions | undefined,
): { plugin: Plugin; resolve: (params: GraphQLParams) => GraphQLParams } | undefined {
  if (!options || options.mode === 'off') return undefined;
  if (options.mode === 'apq') {
    const store = new PersistedQueryStore(options.apqMaxEntries ?? 1000);
    return { plugin: useAutomaticPersistedQueries(store), resolve: (params) => resolveApq(params, store) };
  }
  const documents = options.documents ?? loadTrustedDocuments(options.file!);
  return { plugin: useTrustedDocuments(documents), resolve: (params) => resolveTrusted(params, documents) };
}
