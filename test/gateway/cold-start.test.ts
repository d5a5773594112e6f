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

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const COLD_START = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!).find((q) => /query ColdStart\b/.test(q));

const LOGIN = 'desdemona';
const PAGE = 50;

/**
 * Upstream calls, sorted. Warm: only the subscription list (the live directory does not serve the
 * `subscriptions` list), plus the page when the message cache is off. Cold: what each part costs
 * per request. With the directory off every run is cold, and `unreads` registers a queue of its own.
 */
const COLD = TEST_LIVE_DIRECTORY
  ? ['GET messages', 'GET streams', 'GET users', 'GET users/me', 'GET users/me/subscriptions']
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
  expect(Object.keys(initial!.data!).sort()).toEqual(['me', 'subscriptions', 'unreads']);
  const increments = rest.flatMap((p) => p.incremental ?? []);
  expect(increments.flatMap((i) => i.errors ?? [])).toEqual([]);
  expect(increments.map((i) => i.label)).toEqual(['recent']);
  expect(increments[0]!.path).toEqual([]);
  expect(run.parts.at(-1)!.hasNext).toBe(false);
  return { ...initial!.data, ...increments[0]!.data } as unknown as ColdStartData;
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

  it(`costs ${COLD.length} upstream calls cold and ${WARM.length} warm, and the deferred page arrives after the first part`, async () => {
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
