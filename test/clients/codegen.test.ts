/**
 * docs/clients.md's graphql-codegen recipe: the client preset with persisted documents and
 * chatgraph's scalars (codegen/codegen.ts), its documents (codegen/operations.ts) sent by the urql
 * recipe with persistedDocuments() (codegen-recipe.ts) to a gateway that runs only the generated
 * persisted-documents.json (PERSISTED_OPERATIONS=trusted). A query normalized into graphcache, a
 * mutation updating it, a typed expected error, `@defer`, a subscription: each by its hash alone.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness, type Harness } from '../helpers/harness.js';
import config from './codegen/codegen.js';
import type { CodegenMoveTopicMutation } from './codegen/gql/graphql.js';
import { DeferredQuery, MessagesSubscription, MoveTopicMutation, RenameSnippetMutation, SnippetsQuery } from './codegen/operations.js';
import { persistedDocuments } from './codegen-recipe.js';
import { HAMLET, MOVE_LIMIT, topicPastTheLimit } from './time-limit.js';
import { chatgraphUrql } from './urql-recipe.js';

const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const GENERATED = fileURLToPath(new URL('./codegen/gql/', import.meta.url));
/** Setup straight through the chat server's REST API: the gateway runs only persisted documents. */
async function zulip(h: Harness, path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await h.emulator.fetch(
    new Request(`${h.zulipUrl}/api/v1/${path}`, {
      method: 'POST',
      headers: { authorization: basicAuth(DEMO_USERS[0]!), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    }),
  );
  return (await response.json()) as Record<string, unknown>;
}

const schema = introspectionFromSchema(buildSchema(read('../../schema/schema.graphql')));

describe('graphql-codegen client preset recipe, with persisted documents', () => {
  const h = createHarness({
    emulatorSettings: MOVE_LIMIT,
    gateway: { logging: false, persistedOperations: { mode: 'trusted', file: join(GENERATED, 'persisted-documents.json') } },
  });
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);
  const client = (as = authorization) => chatgraphUrql(h.url, as, schema, [persistedDocuments()]);

  it('is the one docs/clients.md shows', () => {
    expect(docs).toContain(read('./codegen-recipe.ts').trim());
    expect(docs).toContain(read('./codegen/codegen.ts').trim());
  });

  it('has its generated files as codegen writes them', async () => {
    const out = mkdtempSync(join(tmpdir(), 'codegen-'));
    try {
      const [[, target]] = Object.entries(config.generates) as [[string, object]];
      await generate({ ...config, silent: true, generates: { [`${out}/`]: target } }, true);
      const files = readdirSync(GENERATED).sort();
      expect(readdirSync(out).sort()).toEqual(files);
      for (const file of files) expect(readFileSync(join(out, file), 'utf8'), file).toBe(readFileSync(join(GENERATED, file), 'utf8'));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('maps chatgraph\u2019s scalars', () => {
    // Long is a number, and a mutation's expected errors are a union of typed results.
    expectTypeOf<Extract<CodegenMoveTopicMutation['editMessage'], { __typename: 'MoveMessagesTimeLimitExceededError' }>['totalMessagesAllowedToMove']>().toEqualTypeOf<number>();
    expectTypeOf<Extract<CodegenMoveTopicMutation['editMessage'], { __typename: 'EditMessagePayload' }>['messageId']>().toEqualTypeOf<number>();
  });

  it('refuses a document that is not persisted', async () => {
    await h.ready;
    const result = await chatgraphUrql(h.url, authorization, schema).query(SnippetsQuery, {}).toPromise();
    expect(result.error?.graphQLErrors[0]?.extensions?.['code']).toBe('PERSISTED_QUERY_ONLY');
  });

  it('normalizes a query, and a mutation updates the cached object, by hash', async () => {
    await h.ready;
    const urql = client();
    const { saved_snippet_id: savedSnippetId } = (await zulip(h, 'saved_snippets', { title: 'Greeting', content: 'Hello' })) as { saved_snippet_id: number };
    const listed = await urql.query(SnippetsQuery, {}).toPromise();
    expect(listed.error).toBeUndefined();
    const snippet = listed.data!.savedSnippets!.find((s) => s.title === 'Greeting')!;
    h.resetUpstreamRequests();
    const renamed = await urql.mutation(RenameSnippetMutation, { id: savedSnippetId, title: 'Welcome' }).toPromise();
    expect(renamed.error).toBeUndefined();
    const cached = urql.readQuery(SnippetsQuery, {}, { requestPolicy: 'cache-only' });
    expect(cached!.data!.savedSnippets!.find((s) => s.id === snippet.id)!.title).toBe('Welcome');
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH saved_snippets/${savedSnippetId}`, 'GET saved_snippets']);
  });

  it('reads an expected failure as typed data', async () => {
    await h.ready;
    const id = topicPastTheLimit(h, 'codegen limits');
    const result = await client(HAMLET).mutation(MoveTopicMutation, { id, topic: 'moved' }).toPromise();
    expect(result.error).toBeUndefined();
    const edit = result.data!.editMessage;
    if (edit.__typename !== 'MoveMessagesTimeLimitExceededError') throw new Error(`moved: ${edit.__typename}`);
    expect(edit).toEqual({ __typename: 'MoveMessagesTimeLimitExceededError', code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', message: expect.any(String), totalMessagesAllowedToMove: 1 });
  });

  it('reads @defer', async () => {
    await h.ready;
    const seen: { channels?: unknown[] }[] = [];
    await new Promise<void>((resolve, reject) => {
      client()
        .query(DeferredQuery, {}, { requestPolicy: 'network-only' })
        .subscribe((result) => {
          if (result.error) return reject(result.error);
          seen.push(structuredClone(result.data) as { channels?: unknown[] });
          if (!result.hasNext) resolve();
        });
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).not.toHaveProperty('channels');
    expect(seen.at(-1)!.channels!.length).toBeGreaterThan(0);
  });

  it('receives a subscription', async () => {
    await h.ready;
    const received = new Promise<{ content: string; timestamp: number }>((resolve, reject) => {
      const { unsubscribe } = client()
        .subscription(MessagesSubscription, {})
        .subscribe((result) => {
          if (result.error) return reject(result.error);
          const event = result.data!.messages;
          if (event.__typename === 'MessageEvent') {
            unsubscribe();
            resolve(event.message);
          }
        });
    });
    await expect.poll(() => h.gateway.graphqlSubscriptions.clients, { timeout: 10_000 }).toBeGreaterThan(0);
    await zulip(h, 'messages', { type: 'stream', to: 'general', topic: 'codegen', content: 'from the recipe' });
    const message = await received;
    expect(message.content).toContain('from the recipe');
    expectTypeOf(message.timestamp).toEqualTypeOf<number>();
  });
});
