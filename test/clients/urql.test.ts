/**
 * docs/clients.md's urql recipe (urql-recipe.ts, the same text) against the emulator: a query
 * normalized into graphcache, a mutation updating it, a typed expected error, `@defer`, and a
 * subscription over graphql-ws.
 */
import { readFileSync } from 'node:fs';
import { gql } from '@urql/core';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { HAMLET, MOVE_LIMIT, topicPastTheLimit } from './time-limit.js';
import { chatgraphUrql } from './urql-recipe.js';

const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const recipe = readFileSync(new URL('./urql-recipe.ts', import.meta.url), 'utf8');

/** What a client project keeps: the introspection of chatgraph's schema (schema/schema.graphql). */
const schema = introspectionFromSchema(buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8')));

const SNIPPETS = gql`
  query Snippets {
    savedSnippets { id title }
  }
`;

describe('urql with graphcache recipe', () => {
  const h = createHarness({ emulatorSettings: MOVE_LIMIT });
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);

  it('is the one docs/clients.md shows', () => {
    expect(docs).toContain(recipe.trim());
  });

  it('normalizes a query, and a mutation updates the cached object', async () => {
    await h.ready;
    const client = chatgraphUrql(h.url, authorization, schema);
    const made = await client.mutation(gql`mutation { createSavedSnippet(title: "Greeting", content: "Hello") { savedSnippetId } }`, {}).toPromise();
    expect(made.error).toBeUndefined();
    const listed = await client.query(SNIPPETS, {}).toPromise();
    expect(listed.error).toBeUndefined();
    const snippet = (listed.data as { savedSnippets: { id: string; title: string }[] }).savedSnippets.find((s) => s.title === 'Greeting')!;
    const { savedSnippetId } = (made.data as { createSavedSnippet: { savedSnippetId: number } }).createSavedSnippet;
    h.resetUpstreamRequests();
    await client.mutation(gql`mutation ($id: Long!) { editSavedSnippet(id: $id, title: "Welcome") { savedSnippet { id title } } }`, { id: savedSnippetId }).toPromise();
    // The list, read from the cache alone, shows the object the mutation's answer updated.
    const cached = client.readQuery(SNIPPETS, {}, { requestPolicy: 'cache-only' });
    expect((cached!.data as { savedSnippets: { id: string; title: string }[] }).savedSnippets.find((s) => s.id === snippet.id)!.title).toBe('Welcome');
    // The edit's own calls, and no refetch of the list.
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH saved_snippets/${savedSnippetId}`, 'GET saved_snippets']);
  });

  it('reads an expected failure as typed data', async () => {
    await h.ready;
    const client = chatgraphUrql(h.url, HAMLET, schema);
    const messageId = topicPastTheLimit(h, 'urql limits');
    const result = await client
      .mutation(
        gql`
          mutation ($id: Long!) {
            editMessage(messageId: $id, topic: "moved", propagateMode: CHANGE_ALL) {
              __typename
              ... on EditMessagePayload { messageId }
              ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }
            }
          }
        `,
        { id: messageId },
      )
      .toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({
      editMessage: { __typename: 'MoveMessagesTimeLimitExceededError', code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', message: expect.any(String), totalMessagesAllowedToMove: 1 },
    });
  });

  it('reads @defer: the first result, then the deferred part', async () => {
    await h.ready;
    const client = chatgraphUrql(h.url, authorization, schema);
    const seen: { data: unknown; hasNext: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      // network-only: with a schema, graphcache 9.0.2 answers a deferred query it has not cached
      // from the cache alone under cache-first, and never sends it (docs/clients.md says so).
      client.query(gql`query Deferred { me { id } ... @defer { channels { id name } } }`, {}, { requestPolicy: 'network-only' }).subscribe((result) => {
        if (result.error) return reject(result.error);
        seen.push({ data: structuredClone(result.data), hasNext: result.hasNext });
        if (!result.hasNext) resolve();
      });
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]!.data).not.toHaveProperty('channels');
    expect((seen.at(-1)!.data as { channels: unknown[] }).channels.length).toBeGreaterThan(0);
    // Normalized: the deferred channels are in the cache, for a cache-only read.
    const cached = client.readQuery(gql`query Channels { channels { id name } }`, {}, { requestPolicy: 'cache-only' });
    expect((cached!.data as { channels: unknown[] }).channels).toEqual((seen.at(-1)!.data as { channels: unknown[] }).channels);
  });

  it('receives a subscription over graphql-ws', async () => {
    await h.ready;
    const client = chatgraphUrql(h.url, authorization, schema);
    const received = new Promise<string>((resolve, reject) => {
      const { unsubscribe } = client
        .subscription(gql`subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { id content } } } }`, {})
        .subscribe((result) => {
          if (result.error) return reject(result.error);
          const message = (result.data as { messages: { message?: { content: string } } }).messages.message;
          if (message) {
            unsubscribe();
            resolve(message.content);
          }
        });
    });
    await expect.poll(() => h.gateway.graphqlSubscriptions.clients, { timeout: 10_000 }).toBeGreaterThan(0);
    await h.gql('mutation { sendMessage(channelName: "general", topic: "urql", content: "from the recipe") { messageId } }');
    expect(await received).toContain('from the recipe');
  });
});
