/**
 * The README's mobile cold start (issue 18, "Client conventions"), run exactly as the README prints
 * it through the gateway's HTTP handler against the emulator: cold (the caller's first request),
 * then warm (live directory loaded and caught up, message cache holding the page), with `@defer`
 * over SSE and over multipart HTTP. Each run counts its upstream calls, checks that the initial
 * payload comes without the deferred page and that the deferred part follows, and checks the
 * answer against the chat server's own: the newest page, its conversations and unread counts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { getMessages } from '../../src/zulip/routes/messages.js';
import { getSubscriptions } from '../../src/zulip/routes/subscriptions.js';
import type { Message } from '../../src/zulip/model/messages.js';
import { basicAuth, setupHarness, TEST_MESSAGE_CACHE, TEST_LIVE_DIRECTORY, type Harness } from '../helpers/harness.js';
import { caughtUp, fromEmulator, rest } from '../helpers/unreads.js';

const readme = readFileSync(new URL('../../docs/examples.md', import.meta.url), 'utf8');
const COLD_START = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!).find((q) => /query ColdStart\b/.test(q));

const LOGIN = 'desdemona';
const PAGE = 50;

/**
 * Upstream calls, sorted. Warm: only the subscription list (the live directory does not serve the
 * `subscriptions` list), plus the page when the message cache is off. Cold: what each part costs
 * per request. With the directory off every run is cold, and `unreads` registers a queue of its own.
 */
const COLD = TEST_LIVE_DIRECTORY
  ? // `stamp` waits for the directory to load (its queue's registration): `me`, senders and channels come from it.
    ['GET messages', 'GET users/me/subscriptions']
  : ['DELETE events', 'GET messages', 'GET streams', 'GET users', 'GET users/me', 'GET users/me', 'GET users/me/subscriptions', 'POST register'];
const WARM = !TEST_LIVE_DIRECTORY ? COLD : TEST_MESSAGE_CACHE ? ['GET users/me/subscriptions'] : ['GET messages', 'GET users/me/subscriptions'];

interface Part {
  data?: Record<string, unknown>;
  errors?: unknown[];
  incremental?: { data?: Record<string, unknown>; path?: unknown[]; label?: string; errors?: unknown[] }[];
  hasNext?: boolean;
}

interface Run {
  parts: Part[];
  calls: string[];
}

interface ColdStartData {
  me: { zulipId: number; user: { zulipId: number; fullName: string } };
  unreads: { total: number; mentions: number };
  subscriptions: { channel: { zulipId: number; name: string; unreadCount: number } }[];
  messages: {
    conversations: {
      type: 'CHANNEL' | 'DIRECT';
      topic: string | null;
      unreadCount: number;
      messageCount: number;
      channel: { zulipId: number } | null;
      users: { zulipId: number }[] | null;
      lastMessage: { zulipId: number };
    }[];
    edges: { node: { zulipId: number; sender: { zulipId: number } } }[];
    pageInfo: { hasPreviousPage: boolean };
  };
}

const authorization = () => basicAuth(demoUser(LOGIN));

async function overSse(h: Harness): Promise<Run> {
  h.resetUpstreamRequests();
  const stream = await h.sse(COLD_START!, {}, { headers: { authorization: authorization() } });
  await stream.waitDone(20_000);
  expect(stream.status).toBe(200);
  return { parts: stream.results as Part[], calls: sortedCalls(h) };
}

/** The multipart HTTP form (https://github.com/graphql/graphql-over-http, incremental delivery): one JSON part each. */
async function overMultipart(h: Harness): Promise<Run> {
  h.resetUpstreamRequests();
  const response = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: authorization() },
    body: JSON.stringify({ query: COLD_START }),
  });
  expect(response.status).toBe(200);
  const type = response.headers.get('content-type') ?? '';
  expect(type).toMatch(/^multipart\/mixed/);
  const boundary = /boundary="?([^";]+)"?/.exec(type)![1]!;
  const body = await response.text();
  const parts = body
    .split(`--${boundary}`)
    .map((chunk) => chunk.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim())
    .filter((json) => json.startsWith('{'))
    .map((json) => JSON.parse(json) as Part);
  return { parts, calls: sortedCalls(h) };
}

function sortedCalls(h: Harness): string[] {
  return h.upstreamRequests.map((r) => `${r.method} ${r.path}`).sort();
}

/** The initial payload has everything but the page; the deferred part (label "recent") brings it. */
function merged(run: Run): ColdStartData {
  const [initial, ...rest] = run.parts;
  expect(run.parts.length).toBeGreaterThanOrEqual(2);
  expect(initial!.errors).toBeUndefined();
  expect(initial!.hasNext).toBe(true);
  expect(Object.keys(initial!.data!).sort()).toEqual(['me', 'stamp', 'subscriptions', 'unreads']);
  // The stamp, in the answer and in its extensions: where the caller's event stream was as it was read.
  if (TEST_LIVE_DIRECTORY) expect(initial!.data!.stamp).toEqual(expect.any(String));
  expect((initial as { extensions?: { stamp?: unknown } }).extensions?.stamp).toBe(initial!.data!.stamp ?? undefined);
  const increments = rest.flatMap((p) => p.incremental ?? []);
  expect(increments.flatMap((i) => i.errors ?? [])).toEqual([]);
  expect(increments.map((i) => i.label)).toEqual(['recent']);
  expect(increments[0]!.path).toEqual([]);
  expect(run.parts.at(-1)!.hasNext).toBe(false);
  const { stamp: _stamp, ...data } = initial!.data!;
  return { ...data, ...increments[0]!.data } as unknown as ColdStartData;
}

/** What the chat server itself says the answer is. */
async function expected(h: Harness) {
  const server = rest(h, LOGIN);
  const self = h.userId(LOGIN);
  const { messages } = await getMessages(server, { anchor: 'newest', numBefore: PAGE, numAfter: 0, narrow: [], applyMarkdown: true, clientGravatar: false });
  const { subscriptions } = await getSubscriptions(server, {});
  const unread = fromEmulator(h, LOGIN);
  const participants = (m: Message) => (Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).sort((a, b) => a - b) : []);
  const others = (m: Message) => (participants(m).length > 1 ? participants(m).filter((id) => id !== self) : participants(m));
  const byConversation = new Map<string, Message[]>();
  for (const m of messages) {
    const key = m.type === 'stream' ? `${m.stream_id}/${m.subject.toLowerCase()}` : `dm:${others(m).join(',')}`;
    byConversation.set(key, [...(byConversation.get(key) ?? []), m]);
  }
  const conversations = [...byConversation.values()]
    .map((ms) => ms.at(-1)!)
    .sort((a, b) => b.id - a.id)
    .map((last) => ({
      type: last.type === 'stream' ? 'CHANNEL' : 'DIRECT',
      topic: last.type === 'stream' ? last.subject : null,
      channel: last.stream_id === undefined ? null : { zulipId: last.stream_id },
      users: last.type === 'stream' ? null : others(last).map((zulipId) => ({ zulipId })),
      lastMessage: { zulipId: last.id },
      messageCount: byConversation.get(last.type === 'stream' ? `${last.stream_id}/${last.subject.toLowerCase()}` : `dm:${others(last).join(',')}`)!.length,
      unreadCount: (last.type === 'stream' ? unread.conversations[`${last.stream_id}/${last.subject}`] : unread.conversations[`dm:${others(last).join(',')}`])?.length ?? 0,
    }));
  return { self, messages, subscriptions, unread, conversations };
}

function checkAnswer(data: ColdStartData, truth: Awaited<ReturnType<typeof expected>>): void {
  expect(data.me).toMatchObject({ zulipId: truth.self, user: { zulipId: truth.self, fullName: demoUser(LOGIN).fullName } });
  expect(data.unreads.total).toBe(truth.unread.total);
  expect(data.subscriptions.map((s) => s.channel.zulipId)).toEqual(truth.subscriptions.map((s) => s.stream_id));
  for (const s of data.subscriptions) {
    const channelUnreads = Object.entries(truth.unread.conversations).filter(([key]) => key.startsWith(`${s.channel.zulipId}/`));
    expect(s.channel.unreadCount).toBe(channelUnreads.reduce((n, [, ids]) => n + ids.length, 0));
  }
  expect(data.messages.edges.map((e) => e.node.zulipId)).toEqual(truth.messages.map((m) => m.id));
  expect(data.messages.edges.map((e) => e.node.sender.zulipId)).toEqual(truth.messages.map((m) => m.sender_id));
  const ids = <T extends { zulipId: number }>(o: T | null) => (o === null ? null : { zulipId: o.zulipId });
  const conversations = data.messages.conversations.map((c) => ({
    type: c.type,
    topic: c.topic,
    channel: ids(c.channel),
    users: c.users && c.users.map(ids),
    lastMessage: ids(c.lastMessage),
    messageCount: c.messageCount,
    unreadCount: c.unreadCount,
  }));
  expect(conversations).toEqual(truth.conversations);
}

describe('the README mobile cold start', () => {
  it('is in the README, with @defer', () => {
    expect(COLD_START).toBeDefined();
    expect(COLD_START).toMatch(/@defer\b/);
  });

  it(`carries a stamp and costs ${COLD.length} upstream calls cold and ${WARM.length} warm, and the deferred page arrives after the first part`, async () => {
    const h = setupHarness();
    await h.ready;
    // A direct message among the channel messages, so that the conversations have both kinds.
    await h.emulator.fetch(
      new Request(`${h.zulipUrl}/api/v1/messages`, {
        method: 'POST',
        headers: { authorization: basicAuth(demoUser('hamlet')), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ type: 'direct', to: JSON.stringify([h.userId(LOGIN)]), content: 'Cold start check' }),
      }),
    );

    const cold = await overSse(h);
    expect(cold.calls).toEqual(COLD);
    const coldData = merged(cold);
    const truth = await expected(h);
    expect(truth.conversations.some((c) => c.type === 'DIRECT')).toBe(true);
    checkAnswer(coldData, truth);

    // Warm: the directory loaded and caught up, then the page fetched once into the message cache.
    await caughtUp(h, LOGIN);
    await overSse(h);
    const warm = await overSse(h);
    expect(warm.calls).toEqual(WARM);
    expect(merged(warm)).toEqual(coldData);

    const warmMultipart = await overMultipart(h);
    expect(warmMultipart.calls).toEqual(WARM);
    expect(merged(warmMultipart)).toEqual(coldData);
  }, 60_000);
});

/** The cold start's bytes on the wire over multipart HTTP (headers not counted), as the client's Accept-Encoding asks. */
async function wireBytes(h: Harness, acceptEncoding: string): Promise<{ bytes: number; encoding: string | undefined }> {
  const { request } = await import('undici');
  const response = await request(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: authorization(), 'accept-encoding': acceptEncoding },
    body: JSON.stringify({ query: COLD_START }),
  });
  expect(response.statusCode).toBe(200);
  const body = Buffer.from(await response.body.arrayBuffer());
  return { bytes: body.byteLength, encoding: response.headers['content-encoding'] as string | undefined };
}

/** The figures README.md states ("Mobile cold start": "N bytes ... gzip G ... brotli B"). */
function readmeFigures(): { plain: number; gzip: number; br: number } {
  const m = /(\d[\d,]*) bytes\s+uncompressed, ([\d,]+) with gzip and ([\d,]+) with brotli/.exec(readme);
  expect(m, 'README states the cold start\u2019s bytes on the wire').not.toBeNull();
  const n = (s: string) => Number(s.replaceAll(',', ''));
  return { plain: n(m![1]!), gzip: n(m![2]!), br: n(m![3]!) };
}

describe('the mobile cold start on the wire', () => {
  it('is compressed about fivefold with gzip or brotli, as README.md says', async () => {
    const h = setupHarness();
    await h.ready;
    const plain = await wireBytes(h, 'identity');
    const gzip = await wireBytes(h, 'gzip');
    const br = await wireBytes(h, 'br');
    expect([plain.encoding, gzip.encoding, br.encoding]).toEqual([undefined, 'gzip', 'br']);
    const measured = { plain: plain.bytes, gzip: gzip.bytes, br: br.bytes };
    console.info('cold start on the wire (bytes):', measured);
    expect(gzip.bytes).toBeLessThan(plain.bytes / 3);
    expect(br.bytes).toBeLessThan(plain.bytes / 3);
    // Timestamps and ids vary a little between runs: within 10% of the README's figures.
    const stated = readmeFigures();
    for (const key of ['plain', 'gzip', 'br'] as const) expect(Math.abs(measured[key] - stated[key]) / stated[key]).toBeLessThan(0.1);
  }, 60_000);
});

describe('the mobile reopen after idle', () => {
  it.skipIf(!TEST_LIVE_DIRECTORY)('costs what README.md says: the live directory dropped for idleness, the app opens again', async () => {
    let now = Date.now();
    const clock = { now: () => now, setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout) };
    const h = setupHarness({ gateway: { liveDirectory: { idleMs: 60_000, clock } } });
    await h.ready;
    const first = h.emulator.requests.length;
    const cold = await overSse(h);
    await caughtUp(h, LOGIN);
    const coldAll = h.emulator.requests.slice(first).map((r) => `${r.method} ${r.path}`);
    await overSse(h);
    // Idle: the directory (and its message cache) is dropped, as after LIVE_DIRECTORY_IDLE_MS.
    now += 60_000;
    h.gateway.directories!.registry.sweep();
    expect(h.gateway.directories!.stats()).toMatchObject({ directories: 0 });
    const seen = h.emulator.requests.length;
    const reopen = await overSse(h);
    merged(reopen);
    // Every call the emulator answered, the directory's own (registering its queue again, polling) included.
    await caughtUp(h, LOGIN);
    const all = h.emulator.requests.slice(seen).map((r) => `${r.method} ${r.path}`);
    // Not the queue's long polls (one may still be open when counted), nor the deletion of the queue
    // the idle directory released (the hub's cleanup, whenever its grace period ends).
    const counted = (calls: string[]) => calls.filter((c) => c !== 'GET /events' && c !== 'DELETE /events');
    console.info('upstream calls:', { cold: cold.calls, coldAll: counted(coldAll), reopen: reopen.calls, reopenAll: counted(all) });
    // The answer costs no more than the cold start's; the directory's own queue calls come on top of both.
    expect(reopen.calls.length).toBeLessThanOrEqual(cold.calls.length);
    const stated = /reopen\s+after\s+idle\s+costs\s+\*\*(\d+)\s+upstream\s+calls\*\*\s+for\s+the\s+answer\s+and\s+(\d+)\s+in\s+all/.exec(readme);
    expect(stated, 'README states the reopen\u2019s upstream calls').not.toBeNull();
    expect([reopen.calls.length, counted(all).length]).toEqual([Number(stated![1]), Number(stated![2])]);
    expect(counted(coldAll).length).toBe(Number(/cold\s+start\s+costs\s+\*\*(\d+)\s+upstream\s+calls\*\*\s+for\s+the\s+answer\s+and\s+(\d+)\s+in\s+all/.exec(readme)?.[2]));
  }, 60_000);
});
