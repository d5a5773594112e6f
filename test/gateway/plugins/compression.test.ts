/**
 * Compressed answers (plugins/compression.ts) as a client receives them on the wire: raw bytes over
 * loopback HTTP through undici's `request`, which, unlike `fetch`, does not decompress. Whole answers
 * from the threshold on, in the encoding the client prefers; SSE events each decompressible as soon
 * as they are sent, while the stream stays open.
 */
import { brotliDecompressSync, createGunzip, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../../src/emulator/seed.js';
import { negotiateEncoding } from '../../../src/gateway/plugins/compression.js';
import { basicAuth, createHarness } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';

const LARGE = '{ users { id zulipId fullName email role avatarUrl } channels { id zulipId name description } }';

describe('negotiateEncoding', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
    [' GZIP ; q=1', 'gzip'],
  ])('%j answers %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('compressed answers', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const authorization = basicAuth(DEMO_USERS[0]!);

  async function post(query: string, acceptEncoding?: string) {
    await h.ready;
    const response = await request(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization, ...(acceptEncoding !== undefined && { 'accept-encoding': acceptEncoding }) },
      body: JSON.stringify({ query }),
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, bytes };
  }

  it('compresses a large answer with brotli or gzip, as the client asks, to the same JSON', async () => {
    const plain = await post(LARGE);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    expect(plain.bytes.byteLength).toBeGreaterThan(1024);
    const text = plain.bytes.toString('utf8');
    expect(JSON.parse(text)).toMatchObject({ data: { users: expect.any(Array) } });

    const gz = await post(LARGE, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(gz.bytes.byteLength);
    expect(gunzipSync(gz.bytes).toString('utf8')).toBe(text);

    const br = await post(LARGE, 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).toString('utf8')).toBe(text);
    expect(br.bytes.byteLength).toBeLessThan(text.length / 2);
    expect(gz.bytes.byteLength).toBeLessThan(text.length / 2);
  });

  it('sends a small answer as it is', async () => {
    const small = await post('{ __typename }', 'gzip, br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8'))).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('flushes every SSE event: each is readable while the stream is still open', async () => {
    await h.ready;
    const response = await request(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'gzip', authorization },
      body: JSON.stringify({ query: 'subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { id content } } } }' }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    let text = '';
    let wire = 0;
    const gunzip = createGunzip();
    gunzip.on('data', (chunk: Buffer) => void (text += chunk.toString('utf8')));
    response.body.on('data', (chunk: Buffer) => {
      wire += chunk.byteLength;
      gunzip.write(chunk);
    });
    await until(() => h.gateway.hub.stats().subscribers > 0, 10_000, 'the subscription to start');
    for (const content of ['first event', 'second event']) {
      const sent = await h.gql('mutation ($c: String!) { sendMessage(channelName: "general", topic: "gzip", content: $c) { messageId } }', { c: content });
      expect(sent.errors).toBeUndefined();
      await until(() => text.includes(content), 10_000, `"${content}" to be readable from the compressed stream`);
    }
    expect(wire).toBeGreaterThan(0);
    response.body.destroy();
    gunzip.destroy();
    await until(() => h.gateway.hub.stats().subscribers === 0, 10_000, 'the subscription to end when the client leaves');
  });
});
