/**
 * Variables nested thousands of levels deep are refused as BAD_USER_INPUT before graphql-js walks
 * them (its variable coercion recurses and overflowed the stack: HTTP 500), with nothing upstream,
 * on HTTP, SSE and graphql-ws (plugins/variables-depth.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonDepth, MAX_VARIABLES_DEPTH } from '../../../src/gateway/plugins/variables-depth.js';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { wsOperation } from '../../helpers/ws-operation.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';

const h = createHarness();
afterAll(() => h.close());

const DEPTH = 10_000;
// Built as text: JSON.stringify itself recurses, and would overflow on the client side.
const deepList = `${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}`;
const deepNarrow = `${'{"not":'.repeat(DEPTH)}{"topic":"greetings"}${'}'.repeat(DEPTH)}`;
const cases = [
  ['a list', 'query Deep($x: [Long!]) { messages(narrow: { dmUserIds: $x }, first: 1) { nodes { zulipId } } }', `{"x":${deepList}}`],
  ['a NarrowInput.not chain', 'query Deep($n: NarrowInput) { messages(narrow: $n, first: 1) { nodes { zulipId } } }', `{"n":${deepNarrow}}`],
] as const;

const payload = (query: string, variables: string) => `{"query":${JSON.stringify(query)},"variables":${variables}}`;

function expectRefusal(errors: { extensions?: Record<string, unknown> }[] | undefined): void {
  expect(errors).toHaveLength(1);
  expect(errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', maxDepth: MAX_VARIABLES_DEPTH });
}

describe('deeply nested variables', () => {
  it('measures depth without recursion', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({ a: [1, { b: [] }] })).toBe(4);
    expect(jsonDepth(JSON.parse(deepList))).toBe(DEPTH);
  });

  it.each(cases)('refuses %s over HTTP with BAD_USER_INPUT, nothing upstream', async (_, query, variables) => {
    await h.ready;
    h.resetUpstreamRequests();
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: basicAuth(DEMO_USERS[0]!) },
      body: payload(query, variables),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
    expectRefusal(body.errors);
    expect(h.upstreamRequests).toEqual([]);
  });

  it.each(cases)('refuses %s over SSE', async (_, _query, variables) => {
    await h.ready;
    h.resetUpstreamRequests();
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: basicAuth(DEMO_USERS[0]!) },
      body: payload('subscription Deep($n: NarrowInput) { events(filter: { narrow: $n }) { __typename } }', variables.replace(/^\{"x"/, '{"n"')),
    });
    const text = await response.text();
    const data = /^data: (.*)$/m.exec(text)![1]!;
    expectRefusal((JSON.parse(data) as { errors?: { extensions?: Record<string, unknown> }[] }).errors);
    expect(h.upstreamRequests).toEqual([]);
  });

  it.each(cases)('refuses %s over graphql-ws', async (_, query, variables) => {
    const outcome = await wsOperation(h, payload(query, variables), () => h.resetUpstreamRequests());
    const errors = outcome.type === 'error' ? (outcome.payload as never) : (outcome.payload as { errors: never }).errors;
    expectRefusal(errors);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('runs variables of ordinary depth', async () => {
    const { errors } = await h.gql('query ($n: NarrowInput) { messages(narrow: $n, first: 1) { nodes { zulipId } } }', {
      n: { channelName: 'general', not: { topic: 'greetings' } },
    });
    expect(errors).toBeUndefined();
  });
});
