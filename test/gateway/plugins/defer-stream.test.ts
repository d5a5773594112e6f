/**
 * `@defer` and `@stream` (yoga's defer-stream plugin) with real clients over a loopback port:
 * Apollo Client 4 (core, HttpLink, the 2022-08-24 incremental format) and urql (`@urql/core`,
 * fetchExchange) over multipart HTTP, and yoga's SSE. Each test asserts that the response arrives
 * in parts: the initial payload without the deferred fields, then the deferred part. The operation
 * limits accept the directives, and an error in a deferred part keeps its code.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { Client, fetchExchange } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../../src/emulator/seed.js';
import { basicAuth, createHarness, type Harness } from '../../helpers/harness.js';

const DEFERRED = /* GraphQL */ `
  query Cold {
    me { user { zulipId fullName } }
    ... @defer(label: "unreads") { unreads { total } }
  }
`;

const STREAMED = /* GraphQL */ `
  query Users {
    users @stream(initialCount: 2) { zulipId fullName }
  }
`;

let h: Harness;
const authorization = basicAuth(DEMO_USERS[0]!);
beforeAll(async () => {
  h = createHarness();
  await h.ready;
});
afterAll(() => h.close());

/** urql POSTs JSON (its default GET of queries is a request the CSRF check refuses without its header). */
const urql = () => new Client({ url: h.url, exchanges: [fetchExchange], preferGetMethod: false, fetchOptions: { headers: { authorization } } });

describe('@defer and @stream', () => {
  it('Apollo Client 4 receives the initial payload, then the deferred part', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: h.url, headers: { authorization } }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const seen: { data: unknown; dataState: string }[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = client.watchQuery({ query: gql(DEFERRED), fetchPolicy: 'network-only' }).subscribe({
        next: (result) => {
          seen.push({ data: result.data, dataState: result.dataState });
          if (result.dataState === 'complete') {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    const streaming = seen.filter((r) => r.dataState === 'streaming');
    expect(streaming.length).toBeGreaterThan(0);
    // The initial payload: `me`, not yet the deferred `unreads`.
    expect(streaming[0]!.data).toMatchObject({ me: { user: { fullName: 'Desdemona' } } });
    expect(streaming[0]!.data).not.toHaveProperty('unreads');
    const complete = seen.at(-1)!.data as { unreads: { total: number } };
    expect(typeof complete.unreads.total).toBe('number');
    client.stop();
  });

  it('urql receives the initial payload, then the deferred part', async () => {
    const client = urql();
    const seen: { data: unknown; hasNext: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      client.query(DEFERRED, {}, { requestPolicy: 'network-only' }).subscribe((result) => {
        if (result.error) return reject(result.error);
        seen.push({ data: structuredClone(result.data), hasNext: result.hasNext });
        // Not unsubscribed here: that would abort the response before its closing boundary is read.
        if (!result.hasNext) resolve();
      });
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]!.hasNext).toBe(true);
    expect(seen[0]!.data).toMatchObject({ me: { user: { fullName: 'Desdemona' } } });
    expect(seen[0]!.data).not.toHaveProperty('unreads');
    expect(seen.at(-1)!.data).toMatchObject({ unreads: { total: expect.any(Number) } });
  });

  it('streams a list with urql: the initial items first, the rest in later parts', async () => {
    const client = urql();
    const lengths: number[] = [];
    let hasNext = true;
    await new Promise<void>((resolve, reject) => {
      client.query(STREAMED, {}, { requestPolicy: 'network-only' }).subscribe((result) => {
        if (result.error) return reject(result.error);
        lengths.push((result.data as { users: unknown[] }).users.length);
        hasNext = result.hasNext;
        // Not unsubscribed here: that would abort the response before its closing boundary is read.
        if (!result.hasNext) resolve();
      });
    });
    expect(hasNext).toBe(false);
    expect(lengths[0]).toBe(2);
    expect(lengths.at(-1)).toBe(h.emulator.store.users.size - 1); // GET /users leaves the internal notification bot out
  });

  it('sends the parts over SSE, and an error in a deferred part keeps its code', async () => {
    const stream = await h.sse<Record<string, unknown>>(
      /* GraphQL */ `
        query ColdSse($bad: Int!) {
          me { user { zulipId } }
          ... @defer(label: "page") { messages(last: $bad) { nodes { zulipId } } }
        }
      `,
      { bad: -1 },
      { headers: { authorization } },
    );
    await stream.waitDone();
    expect(stream.status).toBe(200);
    expect(stream.results.length).toBeGreaterThanOrEqual(2);
    const [initial, ...rest] = stream.results as Record<string, unknown>[];
    expect(initial).toMatchObject({ data: { me: { user: { zulipId: expect.any(Number) } } }, hasNext: true });
    const errors = rest.flatMap((r) => ((r.incremental as { errors?: { extensions?: { code?: string } }[] }[] | undefined) ?? []).flatMap((i) => i.errors ?? []));
    expect(errors.map((e) => e.extensions?.code)).toContain('BAD_USER_INPUT');
  });
});
