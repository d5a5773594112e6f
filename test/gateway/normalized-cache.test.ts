/**
 * A normalized client cache with its defaults: Apollo Client 4's InMemoryCache, no typePolicies,
 * reads the README dashboard (its query, as written there) and stores each message, sender, channel
 * and reacting user once under `__typename:id`, because every object with an identity has a global
 * `id` (schema/node.ts) and the README selects it.
 */
import { readFileSync } from 'node:fs';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness, type Harness } from '../helpers/harness.js';

const readme = readFileSync(new URL('../../docs/examples.md', import.meta.url), 'utf8');
const DASHBOARD = /```graphql\n(query Dashboard \{[\s\S]*?)```/.exec(readme)![1]!;

let h: Harness;
const authorization = basicAuth(DEMO_USERS[0]!);
beforeAll(async () => {
  h = createHarness();
  await h.ready;
});
afterAll(() => h.close());

type Ref = { __ref: string };

describe('Apollo Client 4 with its default cache', () => {
  it('normalizes the README dashboard: one entry per message, user and channel, referenced everywhere else', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: h.url, headers: { authorization } }), cache: new InMemoryCache() });
    const { data, error } = await client.query({ query: gql(DASHBOARD), fetchPolicy: 'network-only' });
    expect(error).toBeUndefined();
    const edges = (data as { messages: { edges: { node: { id: string; sender: { id: string } | null; channel: { id: string } | null } }[] } }).messages.edges;
    expect(edges.length).toBeGreaterThan(0);

    const cache = client.cache.extract() as Record<string, Record<string, unknown>>;
    const keysOf = (typename: string) => Object.keys(cache).filter((k) => k.startsWith(`${typename}:`));
    // Every message, sender and channel is an entry of its own, keyed by its global id.
    expect(keysOf('Message').sort()).toEqual([...new Set(edges.map((e) => `Message:${e.node.id}`))].sort());
    const senders = new Set(edges.flatMap((e) => (e.node.sender ? [`User:${e.node.sender.id}`] : [])));
    const channels = new Set(edges.flatMap((e) => (e.node.channel ? [`Channel:${e.node.channel.id}`] : [])));
    expect(senders.size).toBeGreaterThan(1);
    expect(channels.size).toBeGreaterThan(1);
    for (const key of [...senders, ...channels]) expect(cache[key]).toBeDefined();
    // A message holds references, not copies: a sender changed once is changed in every message.
    for (const edge of edges) {
      const stored = cache[`Message:${edge.node.id}`]!;
      if (edge.node.sender) expect(stored.sender).toEqual({ __ref: `User:${edge.node.sender.id}` } satisfies Ref);
      if (edge.node.channel) expect(stored.channel).toEqual({ __ref: `Channel:${edge.node.channel.id}` } satisfies Ref);
    }
  });
});
