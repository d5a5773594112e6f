/**
 * Operations over the gateway's limits are refused at validation with a stable code each (and the
 * limit), located at the operation, answered like yoga's own validation errors (HTTP 200 for
 * `Accept: application/json`, 400 for `application/graphql-response+json`), the same over SSE and
 * graphql-ws, with nothing upstream (plugins/limits.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATION_LIMITS } from '../../../src/gateway/plugins/limits.js';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { wsOperation } from '../../helpers/ws-operation.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';

const h = createHarness();
afterAll(() => h.close());

const aliases = Array.from({ length: OPERATION_LIMITS.maxAliases.n + 1 }, (_, i) => `a${i}: me { user { id } }`).join(' ');
const deep = `{ messages(first: 1) { nodes { sender { ${'botOwner { '.repeat(8)}id${' }'.repeat(8)} } } } }`;
const node = '{ nodes { id content sender { fullName email role } channel { name description } reactions { emojiName user { fullName email } } } }';
const costly = ['a', 'b', 'c', 'd'].map((alias) => `${alias}: messages(first: 1000) ${node}`).join(' ');
const directives = '... @include(if: true) { id } '.repeat(OPERATION_LIMITS.maxDirectives.n + 1);
const cases: [string, string, string, number][] = [
  ['too many aliases', `query Aliases { ${aliases} }`, 'MAX_ALIASES_EXCEEDED', OPERATION_LIMITS.maxAliases.n],
  ['too deep', `query Deep ${deep}`, 'MAX_DEPTH_EXCEEDED', OPERATION_LIMITS.maxDepth.n],
  ['too costly', `query Costly { ${costly} }`, 'MAX_COST_EXCEEDED', OPERATION_LIMITS.costLimit.maxCost],
  ['too many directives', `query Directives { me { user { ${directives} } } }`, 'MAX_DIRECTIVES_EXCEEDED', OPERATION_LIMITS.maxDirectives.n],
];

interface Body {
  data?: unknown;
  errors?: { message: string; locations?: unknown[]; extensions?: Record<string, unknown> }[];
}

function expectCoded(body: Body, code: string, limit: number): void {
  expect(body.data ?? null).toBeNull();
  expect(body.errors).toHaveLength(1);
  const [error] = body.errors!;
  expect(error!.extensions).toMatchObject({ code, limit });
  expect(error!.message).not.toMatch(/^Syntax Error/);
  expect(error!.locations).toEqual([{ line: 1, column: 1 }]);
}

async function post(query: string, accept: string): Promise<{ status: number; body: Body }> {
  await h.ready;
  const response = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: basicAuth(DEMO_USERS[0]!) },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

describe('operation limits', () => {
  it.each(cases)('refuses an operation %s with its code over HTTP, as yoga answers validation errors', async (_, query, code, limit) => {
    h.resetUpstreamRequests();
    const json = await post(query, 'application/json');
    const own = await post('{ nope }', 'application/json');
    expect(json.status).toBe(own.status);
    expectCoded(json.body, code, limit);
    const strict = await post(query, 'application/graphql-response+json');
    expect(strict.status).toBe((await post('{ nope }', 'application/graphql-response+json')).status);
    expectCoded(strict.body, code, limit);
    expect(h.upstreamRequests).toEqual([]);
  });

  it.each(cases)('refuses an operation %s over graphql-ws', async (_, query, code, limit) => {
    const outcome = await wsOperation(h, JSON.stringify({ query }), () => h.resetUpstreamRequests());
    expect(outcome.type).toBe('error');
    expectCoded({ errors: outcome.payload as Body['errors'] }, code, limit);
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses a subscription over the limits over SSE', async () => {
    h.resetUpstreamRequests();
    const fields = Array.from({ length: OPERATION_LIMITS.maxAliases.n + 1 }, (_, i) => `a${i}: id`).join(' ');
    const stream = await h.sse(`subscription { events { ... on MessageEvent { message { ${fields} } } } }`);
    const [result] = await stream.waitFor(1);
    stream.close();
    expect(result!.errors?.[0]?.extensions).toMatchObject({ code: 'MAX_ALIASES_EXCEEDED' });
    expect(h.upstreamRequests).toEqual([]);
  });

  it('refuses a document of too many tokens with its code', async () => {
    const query = `{ ${'me { user { id } } '.repeat(400)} }`;
    const { body } = await post(query, 'application/json');
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'MAX_TOKENS_EXCEEDED', limit: OPERATION_LIMITS.maxTokens.n });
    expect(body.errors?.[0]?.message).not.toMatch(/^Syntax Error/);
  });

  it('admits the dashboard query', async () => {
    const { body } = await post('{ messages(last: 100) { edges { node { zulipId sender { fullName } channel { name } reactions { user { fullName } } } } } }', 'application/json');
    expect(body.errors).toBeUndefined();
  });
});
