/**
 * docs/clients.md's Relay recipe (relay-recipe.ts, the same text) against the emulator, with the
 * operations of relay/operations.ts compiled by relay-compiler (relay/relay.config.json): a query
 * normalized into Relay's store, a mutation updating it, a typed expected error, `@defer`, and a
 * subscription whose events land in the store.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commitMutation, createOperationDescriptor, fetchQuery, requestSubscription, type Environment } from 'relay-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import deferredQuery, { type operationsDeferredQuery } from './relay/__generated__/operationsDeferredQuery.graphql.js';
import messagesSubscription, { type operationsMessagesSubscription } from './relay/__generated__/operationsMessagesSubscription.graphql.js';
import moveTopicMutation, { type operationsMoveTopicMutation } from './relay/__generated__/operationsMoveTopicMutation.graphql.js';
import renameSnippetMutation, { type operationsRenameSnippetMutation } from './relay/__generated__/operationsRenameSnippetMutation.graphql.js';
import snippetsQuery, { type operationsSnippetsQuery } from './relay/__generated__/operationsSnippetsQuery.graphql.js';
import { chatgraphRelay } from './relay-recipe.js';
import { HAMLET, MOVE_LIMIT, topicPastTheLimit } from './time-limit.js';

const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const recipe = readFileSync(new URL('./relay-recipe.ts', import.meta.url), 'utf8');
const relayDir = fileURLToPath(new URL('./relay/', import.meta.url));

/** A record of Relay's store, by its data id (the global id). */
const record = (environment: Environment, id: string) => environment.getStore().getSource().get(id);

function mutate<T extends { response: unknown; variables: Record<string, unknown> }>(
  environment: Environment,
  mutation: Parameters<typeof commitMutation>[1]['mutation'],
  variables: T['variables'],
): Promise<T['response']> {
  return new Promise((resolve, reject) => {
    commitMutation(environment, { mutation, variables, onCompleted: (response, errors) => (errors?.length ? reject(new Error(JSON.stringify(errors))) : resolve(response as T['response'])), onError: reject });
  });
}

describe('Relay recipe', () => {
  const h = createHarness({ emulatorSettings: MOVE_LIMIT });
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);

  it('is the one docs/clients.md shows', () => {
    expect(docs).toContain(recipe.trim());
  });

  it('has its artifacts as relay-compiler writes them from relay/operations.ts', () => {
    const run = spawnSync(process.execPath, [fileURLToPath(new URL('../../node_modules/relay-compiler/cli.js', import.meta.url)), '--validate', '--output', 'quiet-with-errors', 'relay.config.json'], { cwd: relayDir, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr + run.stdout).toBe('');
    expect(run.status).toBe(0);
  });

  it('normalizes a query into the store, and a mutation updates the stored object', async () => {
    await h.ready;
    const environment = chatgraphRelay(h.url, authorization);
    const made = await h.gql<{ createSavedSnippet: { savedSnippetId: number } }>('mutation { createSavedSnippet(title: "Greeting", content: "Hello") { savedSnippetId } }');
    const listed = await fetchQuery<operationsSnippetsQuery>(environment, snippetsQuery, {}).toPromise();
    const snippet = listed!.savedSnippets!.find((s) => s.title === 'Greeting')!;
    expect(record(environment, snippet.id)).toMatchObject({ __typename: 'SavedSnippet', title: 'Greeting' });
    h.resetUpstreamRequests();
    await mutate<operationsRenameSnippetMutation>(environment, renameSnippetMutation, { id: made.data!.createSavedSnippet.savedSnippetId, title: 'Welcome' });
    expect(record(environment, snippet.id)).toMatchObject({ title: 'Welcome' });
    // Read from the store alone: the list shows the renamed snippet, and nothing was fetched again.
    const stored = environment.lookup(createOperationDescriptor(snippetsQuery, {}).fragment).data as operationsSnippetsQuery['response'];
    expect(stored.savedSnippets!.find((s) => s.id === snippet.id)!.title).toBe('Welcome');
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH saved_snippets/${made.data!.createSavedSnippet.savedSnippetId}`, 'GET saved_snippets']);
  });

  it('reads an expected failure as typed data', async () => {
    await h.ready;
    const environment = chatgraphRelay(h.url, HAMLET);
    const id = topicPastTheLimit(h, 'relay limits');
    const { editMessage } = await mutate<operationsMoveTopicMutation>(environment, moveTopicMutation, { id, topic: 'moved' });
    // The generated union type narrows on __typename.
    if (editMessage.__typename !== 'MoveMessagesTimeLimitExceededError') throw new Error(`moved: ${editMessage.__typename}`);
    expect(editMessage).toEqual({ __typename: 'MoveMessagesTimeLimitExceededError', code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', message: expect.any(String), totalMessagesAllowedToMove: 1 });
  });

  it('receives @defer: the query, then the deferred fragment into the store', async () => {
    await h.ready;
    const environment = chatgraphRelay(h.url, authorization);
    const operation = createOperationDescriptor(deferredQuery, {});
    const seen: boolean[] = [];
    await new Promise<void>((resolve, reject) => {
      fetchQuery<operationsDeferredQuery>(environment, deferredQuery, {}).subscribe({
        // Each payload: whether the deferred channels are in the store yet.
        next: () => seen.push(environment.getStore().getSource().get('client:root')?.['channels'] !== undefined),
        error: reject,
        complete: resolve,
      });
    });
    expect(seen[0]).toBe(false);
    expect(seen.at(-1)).toBe(true);
    expect(environment.check(operation)).toMatchObject({ status: 'available' });
    const root = environment.getStore().getSource().get('client:root')!;
    const channelIds = (root['channels'] as { __refs: string[] }).__refs;
    expect(channelIds.length).toBeGreaterThan(0);
    expect(record(environment, channelIds[0]!)).toMatchObject({ __typename: 'Channel', name: expect.any(String) });
  });

  it('receives a subscription, and its message lands in the store', async () => {
    await h.ready;
    const environment = chatgraphRelay(h.url, authorization);
    let dispose = () => {};
    const received = new Promise<string>((resolve, reject) => {
      dispose = requestSubscription<operationsMessagesSubscription>(environment, {
        subscription: messagesSubscription,
        variables: {},
        onNext: (response) => response?.messages.__typename === 'MessageEvent' && resolve(response.messages.message.id),
        onError: reject,
      }).dispose;
    });
    await expect.poll(() => h.gateway.graphqlSubscriptions.clients, { timeout: 10_000 }).toBeGreaterThan(0);
    await h.gql('mutation { sendMessage(channelName: "general", topic: "relay", content: "from the recipe") { messageId } }');
    const id = await received;
    expect(record(environment, id)).toMatchObject({ __typename: 'Message', content: expect.stringContaining('from the recipe') });
    dispose();
  });
});
