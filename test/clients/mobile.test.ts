/**
 * docs/clients.md's mobile-style recipe (mobile-recipe.ts, the same text): graphql-request over
 * HTTP asking for compressed answers, against the emulator. Answers above the threshold arrive
 * brotli-compressed; a query, a mutation, and an expected failure with its code.
 */
import { readFileSync } from 'node:fs';
import { ClientError } from 'graphql-request';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { basicAuth, createHarness } from '../helpers/harness.js';
import { chatgraphMobile } from './mobile-recipe.js';

const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const recipe = readFileSync(new URL('./mobile-recipe.ts', import.meta.url), 'utf8');

describe('mobile-style recipe (graphql-request)', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);

  it('is the one docs/clients.md shows', () => {
    expect(docs).toContain(recipe.trim());
  });

  it('gets a compressed answer, sends a mutation, and reads an expected failure\u2019s code', async () => {
    await h.ready;
    const encodings: (string | null)[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      encodings.push(response.headers.get('content-encoding'));
      return response;
    };
    const client = chatgraphMobile(h.url, authorization, recording);
    const data = await client.request<{ me: { id: string }; users: { id: string; fullName: string }[] }>('{ me { id } users { id zulipId fullName email avatarUrl } }');
    expect(data.users.length).toBeGreaterThan(3);
    expect(encodings).toEqual(['br']);
    const sent = await client.request<{ sendMessage: { messageId: number; message: { id: string } } }>(
      'mutation ($c: String!) { sendMessage(channelName: "general", topic: "mobile", content: $c) { messageId message { id } } }',
      { c: 'from the phone' },
    );
    expect(sent.sendMessage.messageId).toBeGreaterThan(0);
    const failure = await client.request('{ user(id: 99999) { id fullName } }').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ClientError);
    expect((failure as ClientError).response.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
