/** Persisted operations through real HTTP: automatic persisted queries and trusted documents. */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PersistedQueryStore,
  parseTrustedDocuments,
  usePersistedOperations,
  resolveTrusted,
} from '../../../src/gateway/plugins/persisted-operations.js';
import { CSRF_HEADER } from '../../../src/gateway/yoga.js';
import { createHarness } from '../../helpers/harness.js';
import { post, startTestServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => server?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

describe('automatic persisted queries', () => {
  it('answers an unknown hash with PersistedQueryNotFound, stores the query sent with it, then serves the hash alone', async () => {
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'apq', apqMaxEntries: 10 })!.plugin] });
    const query = 'query Hello { hello }';
    const hash = sha256(query);
    const first = await post(server.url, { extensions: apq(hash) });
    expect(first.response.status).toBe(200);
    expect(first.body.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }]);
    expect((await post(server.url, { query, extensions: apq(hash) })).body).toEqual({ data: { hello: 'world' } });
    expect((await post(server.url, { extensions: apq(hash) })).body).toEqual({ data: { hello: 'world' } });
    // GET works too (the cacheable form clients use).
    const get = await fetch(`${server.url}?extensions=${encodeURIComponent(JSON.stringify(apq(hash)))}`, { headers: { accept: 'application/json' } });
    expect(await get.json()).toEqual({ data: { hello: 'world' } });
  });

  it('refuses a query that does not match its hash, and a malformed extension, without storing', async () => {
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'apq', apqMaxEntries: 10 })!.plugin] });
    const hash = sha256('{ hello }');
    const mismatch = await post(server.url, { query: '{ fail }', extensions: apq(hash) });
    expect(mismatch.body.errors![0]).toMatchObject({ message: 'provided sha does not match query', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } });
    expect((await post(server.url, { extensions: apq(hash) })).body.errors![0]!.extensions!.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const bad = await post(server.url, { extensions: { persistedQuery: { version: 2, sha256Hash: hash } } });
    expect(bad.body.errors![0]!.extensions!.code).toBe('PERSISTED_QUERY_INVALID');
    expect(bad.response.status).toBe(400);
  });

  it('leaves ordinary requests alone', async () => {
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'apq', apqMaxEntries: 10 })!.plugin] });
    expect((await post(server.url, { query: '{ hello }' })).body).toEqual({ data: { hello: 'world' } });
  });

  it('bounds the store by entries and bytes, dropping the least recently used', () => {
    const store = new PersistedQueryStore(2, 1000);
    store.set('a', 'A');
    store.set('b', 'B');
    store.get('a');
    store.set('c', 'C');
    expect([store.get('a'), store.get('b'), store.get('c')]).toEqual(['A', undefined, 'C']);
    const small = new PersistedQueryStore(10, 10);
    small.set('x', '123456');
    small.set('y', '123456');
    expect([small.get('x'), small.get('y'), small.size]).toEqual([undefined, '123456', 1]);
  });

  it('runs a large query sent with its hash without storing it', async () => {
    const store = new PersistedQueryStore();
    store.set('big', `{ hello } # ${'x'.repeat(store.maxQueryLength)}`);
    expect([store.get('big'), store.size]).toEqual([undefined, 0]);
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'apq' })!.plugin] });
    const query = `{ hello } # ${'x'.repeat(100_000)}`;
    const hash = sha256(query);
    expect((await post(server.url, { query, extensions: apq(hash) })).body).toEqual({ data: { hello: 'world' } });
    expect((await post(server.url, { extensions: apq(hash) })).body.errors![0]!.extensions).toEqual({ code: 'PERSISTED_QUERY_NOT_FOUND' });
  });
});

describe('trusted documents', () => {
  const hello = 'query Hello { hello }';
  const codegen = JSON.stringify({ [sha256(hello)]: hello });
  const relay = JSON.stringify([{ id: '6f1d2c3b4a5e6f708192a3b4c5d6e7f8', text: hello }]);

  it.each([
    ['graphql-codegen persisted-documents.json', codegen, { documentId: sha256(hello) }],
    ['the APQ extension of a codegen client', codegen, { extensions: apq(sha256(hello)) }],
    ['Relay (doc_id)', relay, { doc_id: '6f1d2c3b4a5e6f708192a3b4c5d6e7f8' }],
  ])('serves a document of %s by id', async (_, manifest, body) => {
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'trusted', documents: parseTrustedDocuments(manifest) })!.plugin] });
    expect((await post(server.url, body)).body).toEqual({ data: { hello: 'world' } });
  });

  it('refuses any other operation with a stable code', async () => {
    server = await startTestServer({ plugins: [usePersistedOperations({ mode: 'trusted', documents: parseTrustedDocuments(codegen) })!.plugin] });
    const arbitrary = await post(server.url, { query: hello });
    expect(arbitrary.response.status).toBe(400);
    expect(arbitrary.body.errors![0]!.extensions).toEqual({ code: 'PERSISTED_QUERY_ONLY' });
    expect((await post(server.url, { documentId: 'f'.repeat(64) })).body.errors![0]!.extensions).toEqual({ code: 'PERSISTED_QUERY_NOT_FOUND' });
    expect((await post(server.url, {})).body.errors![0]!.extensions).toEqual({ code: 'PERSISTED_QUERY_ID_REQUIRED' });
  });

  it.each([
    ['documentId', (id: string) => `documentId=${id}`],
    ['Relay\'s doc_id', (id: string) => `doc_id=${id}`],
  ])('serves a document by id over GET with %s, through the gateway', async (_, search) => {
    const query = 'query Realm { serverSettings { realmName } }';
    const id = sha256(query);
    const h = createHarness({ gateway: { persistedOperations: { mode: 'trusted', documents: parseTrustedDocuments(JSON.stringify({ [id]: query })) } } });
    try {
      await h.ready;
      const get = (params: string) => fetch(`${h.url}?${params}`, { headers: { [CSRF_HEADER]: '1', accept: 'application/json' } });
      const served = await get(search(id));
      expect(served.status).toBe(200);
      expect(((await served.json()) as { data: { serverSettings: { realmName: string } } }).data.serverSettings.realmName).toBeTruthy();
      expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
      // Still only trusted documents: an unknown id, a query text, or no id at all.
      expect((await (await get(search('f'.repeat(64)))).json()).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await (await get(`query=${encodeURIComponent(query)}`)).json()).errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
      expect((await (await get('operationName=Realm')).json()).errors[0].extensions.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
      expect(h.upstreamRequests).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('refuses a bad manifest at startup, naming the entry', () => {
    expect(() => parseTrustedDocuments('not json', 'docs.json')).toThrow('docs.json is not valid JSON.');
    expect(() => parseTrustedDocuments('{}', 'docs.json')).toThrow('docs.json holds no documents');
    expect(() => parseTrustedDocuments('{"abc":"query {"}', 'docs.json')).toThrow('docs.json: document abc does not parse as GraphQL.');
    expect(() => parseTrustedDocuments('{"abc":42}', 'docs.json')).toThrow('docs.json: entry "abc" must map an id to a document string.');
  });

  it('offers the same rule to transports outside yoga (graphql-ws)', () => {
    const documents = parseTrustedDocuments(codegen);
    expect(resolveTrusted({ documentId: sha256(hello) }, documents).query).toBe(hello);
    expect(() => resolveTrusted({ query: hello }, documents)).toThrow(/only trusted documents/);
  });
});
