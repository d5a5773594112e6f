/**
 * docs/clients.md's Apollo Client 4 recipe (apollo-recipe.ts, the same text) against the emulator:
 * a query normalized into InMemoryCache, a mutation updating it, `@defer` read by the
 * Defer20220824Handler, and a subscription over graphql-ws.
 */
import { readFileSync } from 'node:fs';
import { gql } from '@apollo/client';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { chatgraphApollo } from './apollo-recipe.js';

const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const recipe = readFileSync(new URL('./apollo-recipe.ts', import.meta.url), 'utf8');

describe('Apollo Client 4 recipe', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);

  it('is the one docs/clients.md shows', () => {
    expect(docs).toContain(recipe.trim());
  });

  it('normalizes a query, and a mutation updates the cached object', async () => {
    await h.ready;
    const client = chatgraphApollo(h.url, authorization);
    const made = await client.mutate({ mutation: gql`mutation { createSavedSnippet(title: "Greeting", content: "Hello") { savedSnippetId } }` });
    expect(made.error).toBeUndefined();
    const LIST = gql`{ savedSnippets { id title } }`;
    const { data } = await client.query<{ savedSnippets: { id: string; title: string }[] }>({ query: LIST });
    const snippet = data!.savedSnippets.find((s) => s.title === 'Greeting')!;
    expect((client.cache.extract() as Record<string, unknown>)[`SavedSnippet:${snippet.id}`]).toMatchObject({ title: 'Greeting' });
    const { savedSnippetId } = (made.data as { createSavedSnippet: { savedSnippetId: number } }).createSavedSnippet;
    await client.mutate({
      mutation: gql`mutation ($id: Long!) { editSavedSnippet(id: $id, title: "Welcome") { savedSnippet { id title } } }`,
      variables: { id: savedSnippetId },
    });
    // No refetch: the list reads the object the mutation's answer updated.
    const cached = client.readQuery<{ savedSnippets: { id: string; title: string }[] }>({ query: LIST });
    expect(cached!.savedSnippets.find((s) => s.id === snippet.id)!.title).toBe('Welcome');
    client.stop();
  });

  it('reads @defer through the Defer20220824Handler', async () => {
    await h.ready;
    const client = chatgraphApollo(h.url, authorization);
    const { data, error } = await client.query<{ me: { id: string }; channels?: { id: string; name: string }[] }>({
      query: gql`query { me { id } ... @defer { channels { id name } } }`,
    });
    expect(error).toBeUndefined();
    expect(data!.me.id).toEqual(expect.any(String));
    expect(data!.channels!.length).toBeGreaterThan(0);
    client.stop();
  });

  it('receives a subscription over graphql-ws', async () => {
    await h.ready;
    const client = chatgraphApollo(h.url, authorization);
    const received = new Promise<string>((resolve, reject) => {
      client
        .subscribe<{ messages: { message?: { id: string; content: string } } }>({
          query: gql`subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { id content } } } }`,
        })
        .subscribe({ next: (r) => r.data?.messages.message && resolve(r.data.messages.message.content), error: reject });
    });
    await expect.poll(() => h.gateway.graphqlSubscriptions.clients, { timeout: 10_000 }).toBeGreaterThan(0);
    await h.gql('mutation { sendMessage(channelName: "general", topic: "apollo", content: "from the recipe") { messageId } }');
    expect(await received).toContain('from the recipe');
    client.stop();
  });
});
