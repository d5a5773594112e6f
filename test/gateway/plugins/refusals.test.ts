/**
 * Every refusal is well-formed HTTP whatever the Accept header, and every error in it has a code:
 * the gateway on a loopback port (transport/http.ts, as `npm start` serves it), asked by three
 * clients that read HTTP differently: undici's `request`, Node's `fetch`, and curl. undici and
 * Node's fetch refuse a response with both Content-Length and Transfer-Encoding (what a
 * validation error with `Accept: multipart/mixed` once got); curl shows the raw headers.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { DEMO_USERS } from '../../../src/emulator/seed.js';

const run = promisify(execFile);
const h = createHarness();
afterAll(() => h.close());
beforeAll(() => h.ready);

const AUTH = basicAuth(DEMO_USERS[0]!);

interface Case {
  name: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The code at least one error must carry. */
  code: string;
}

const CASES: Case[] = [
  { name: 'a validation error', body: JSON.stringify({ query: '{ nope }' }), code: 'GRAPHQL_VALIDATION_FAILED' },
  {
    name: 'a variable its type refuses',
    body: JSON.stringify({ query: 'query($id: Long!) { user(id: $id) { fullName } }', variables: { id: 'x' } }),
    code: 'BAD_USER_INPUT',
  },
  { name: 'a missing variable', body: JSON.stringify({ query: 'query($id: Long!) { user(id: $id) { fullName } }' }), code: 'BAD_USER_INPUT' },
  { name: 'an unknown operation name', body: JSON.stringify({ query: 'query A { __typename }', operationName: 'B' }), code: 'OPERATION_RESOLUTION_FAILURE' },
  { name: 'malformed JSON', body: '{"query":', code: 'BAD_REQUEST' },
  { name: 'a method the path does not serve', method: 'PUT', body: '{}', code: 'METHOD_NOT_ALLOWED' },
  { name: 'a content type the gateway does not read', headers: { 'content-type': 'application/xml' }, body: '<q/>', code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'a cross-site form post', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=x', code: 'CSRF_REFUSED' },
  { name: 'another path', path: '/elsewhere', body: '{}', code: 'ROUTE_NOT_FOUND' },
  { name: 'a body over the limit', body: JSON.stringify({ query: `{ __typename }${' '.repeat(2_100_000)}` }), code: 'REQUEST_ENTITY_TOO_LARGE' },
  { name: 'an unusable Authorization header', headers: { authorization: 'Digest x' }, body: JSON.stringify({ query: '{ me { zulipId } }' }), code: 'UNAUTHENTICATED' },
];

const ACCEPTS = [
  undefined,
  'application/json',
  'application/graphql-response+json',
  'multipart/mixed',
  'multipart/mixed; deferSpec=20220824, application/json',
  'text/event-stream',
  'image/png',
  '*/*',
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function requestOf(c: Case, accept: string | undefined): { url: string; method: string; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: AUTH, ...c.headers };
  if (accept !== undefined) headers.accept = accept;
  return { url: h.url.replace(/\/graphql$/, c.path ?? '/graphql'), method: c.method ?? 'POST', headers, body: c.body ?? '' };
}

const clients: Record<string, (c: Case, accept: string | undefined) => Promise<Answer>> = {
  async undici(c, accept) {
    const r = requestOf(c, accept);
    const response = await request(r.url, { method: r.method as 'POST', headers: r.headers, body: r.body });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) headers[name] = String(value);
    return { status: response.statusCode, headers, body: await response.body.text() };
  },
  async fetch(c, accept) {
    const r = requestOf(c, accept);
    const response = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  },
  async curl(c, accept) {
    const r = requestOf(c, accept);
    const args = ['-sS', '-i', '--http1.1', '-X', r.method, r.url, '--data-binary', '@-'];
    for (const [name, value] of Object.entries(r.headers)) args.push('-H', `${name}: ${value}`);
    const child = run('curl', args, { maxBuffer: 16 * 1024 * 1024 });
    child.child.stdin!.end(r.body);
    const { stdout } = await child;
    // Each response head (an interim 100 Continue included) ends with a blank line; the last one is the answer's.
    let rest = stdout;
    let head = '';
    do {
      const end = rest.indexOf('\r\n\r\n');
      head = rest.slice(0, end);
      rest = rest.slice(end + 4);
    } while (/^HTTP\/1\.1 1\d\d/.test(head));
    const [statusLine, ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      // A header sent twice is a malformed answer too: keep both to see it.
      headers[name] = name in headers ? `${headers[name]}, ${line.slice(colon + 1).trim()}` : line.slice(colon + 1).trim();
    }
    return { status: Number(statusLine!.split(' ')[1]), headers, body: rest };
  },
};

/** The GraphQL results a body holds: one JSON document, or the parts of a multipart or SSE stream. */
function resultsOf(answer: Answer): { errors?: { message: string; extensions?: { code?: unknown } }[] }[] {
  const type = answer.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    return answer.body
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)));
  }
  if (type.startsWith('multipart/mixed')) {
    return answer.body
      .split(/\r\n---/)
      .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
      .filter((json) => json.startsWith('{'))
      .map((json) => JSON.parse(json));
  }
  expect(type).toMatch(/json/);
  return [JSON.parse(answer.body)];
}

describe.each(Object.keys(clients))('refusals read by %s', (client) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: well-formed and coded whatever the Accept header', async (_name, c) => {
    for (const accept of ACCEPTS) {
      const answer = await clients[client]!(c, accept);
      const where = `${c.name}, Accept ${accept ?? '(none)'}`;
      // Exactly one framing: never Content-Length and Transfer-Encoding together (RFC 9112 §6.3).
      expect('content-length' in answer.headers && 'transfer-encoding' in answer.headers, where).toBe(false);
      expect(answer.headers['content-length'] ?? '', where).not.toContain(',');
      if ('content-length' in answer.headers) expect(Buffer.byteLength(answer.body), where).toBe(Number(answer.headers['content-length']));
      const results = resultsOf(answer);
      const errors = results.flatMap((r) => r.errors ?? []);
      expect(errors.length, where).toBeGreaterThan(0);
      for (const error of errors) expect(typeof error.extensions?.code, `${where}: ${error.message}`).toBe('string');
      // An Accept header that allows no answer the gateway writes is refused as such first.
      const codes = errors.map((e) => e.extensions!.code);
      if (accept === 'image/png' && codes.includes('NOT_ACCEPTABLE')) expect(answer.status, where).toBe(406);
      else expect(codes, where).toContain(c.code);
    }
  });
});

describe('variable coercion errors', () => {
  it('carry BAD_USER_INPUT on every transport, and nothing is sent upstream', async () => {
    h.resetUpstreamRequests();
    const { errors, status } = await h.gql('query($id: Long!) { user(id: $id) { fullName } }', { id: 1.5 });
    expect(status).toBe(400);
    expect(errors).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT' } }]);
    const stream = await h.sse('subscription($k: [EventKind!]!) { events(filter: { kinds: $k }) { __typename } }', { k: ['NOT_A_KIND'] });
    const [first] = await stream.waitFor(1);
    expect(first?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    stream.close();
    expect(h.upstreamRequests).toEqual([]);
  });
});
