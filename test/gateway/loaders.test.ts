/**
 * Per-request loaders (src/gateway/loaders/) over a fake Zulip that answers by path: how many
 * upstream calls a request makes, what they ask for, and how missing records are reported.
 */
import { describe, expect, it } from 'vitest';
import { contextFromCredentials, type Context } from '../../src/gateway/context.js';
import { UpstreamServer } from '../../src/gateway/upstream/server.js';
import type { Credentials, FetchLike } from '../../src/zulip/connection.js';
import type { Channel } from '../../src/zulip/model/channels.js';
import type { Message } from '../../src/zulip/model/messages.js';
import type { User } from '../../src/zulip/model/users.js';
import { getMessages } from '../../src/zulip/routes/messages.js';

const caller: Credentials = { email: 'desdemona@zulip.example.com', apiKey: 'loaders-test-key' };

interface Call {
  path: string;
  query: Record<string, string>;
  email?: string;
}

type Answer = (query: Record<string, string>) => { status?: number; body: Record<string, unknown> };

/** A fake Zulip answering `GET <path>` from `routes`, recording every call with its Basic user. */
function routedFetch(routes: Record<string, Answer>): FetchLike & { calls: Call[] } {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/api\/v1\//, '');
    const query = Object.fromEntries(url.searchParams);
    const auth = request.headers.get('authorization');
    const email = auth ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[0] : undefined;
    calls.push({ path, query, ...(email !== undefined && { email }) });
    const answer = routes[path];
    const { status = 200, body } = answer
      ? answer(query)
      : { status: 404, body: { result: 'error', msg: 'Not found', code: 'BAD_REQUEST' } };
    const envelope = status === 200 ? { result: 'success', msg: '', ...body } : body;
    return new Response(JSON.stringify(envelope), { status, headers: { 'content-type': 'application/json' } });
  };
  return Object.assign(fetch, { calls });
}

let servers = 0;
function contextFor(fetch: FetchLike, credentials: Credentials | undefined = caller): Context {
  return contextFromCredentials(new UpstreamServer({ baseUrl: `http://loaders-${++servers}.localhost`, fetch }), credentials);
}

function user(id: number, name: string, role: User['role'] = 400): User {
  return {
    user_id: id,
    delivery_email: null,
    email: `user${id}@zulip.example.com`,
    full_name: name,
    date_joined: '2024-01-01T00:00:00Z',
    is_active: true,
    is_owner: role === 100,
    is_admin: role <= 200,
    is_guest: role === 600,
    is_bot: false,
    bot_type: null,
    role,
    timezone: 'UTC',
    avatar_url: `https://avatars.example/${id}.png`,
    avatar_version: 1,
  };
}

function channel(id: number, name: string): Channel {
  const everyone = { direct_members: [], direct_subgroups: [] };
  return {
    stream_id: id,
    name,
    is_archived: false,
    description: `About ${name}`,
    rendered_description: `<p>About ${name}</p>`,
    date_created: 1_700_000_000,
    creator_id: null,
    invite_only: false,
    is_web_public: false,
    stream_post_policy: 1,
    is_announcement_only: false,
    message_retention_days: null,
    history_public_to_subscribers: true,
    first_message_id: 1,
    is_recently_active: true,
    can_add_subscribers_group: everyone,
    can_remove_subscribers_group: everyone,
    can_administer_channel_group: everyone,
    can_send_message_group: everyone,
    can_subscribe_group: everyone,
    stream_weekly_traffic: null,
  };
}

const USERS = [user(1, 'Desdemona', 100), user(2, 'Iago', 200), user(3, 'King Hamlet'), user(4, 'Polonius', 600)];
const CHANNELS = [channel(10, 'general'), channel(11, 'design'), channel(12, 'random')];

/** 100 messages: channel and direct messages from all four users, with reactions from others. */
const MESSAGES: Message[] = Array.from({ length: 100 }, (_, i) => {
  const sender = USERS[i % USERS.length]!;
  const inChannel = i % 5 !== 0;
  return {
    id: 1000 + i,
    avatar_url: sender.avatar_url ?? null,
    client: 'test',
    content: `<p>message ${i}</p>`,
    content_type: 'text/html',
    display_recipient: inChannel ? CHANNELS[i % CHANNELS.length]!.name : [],
    is_me_message: false,
    reactions: i % 3 === 0 ? [{ emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: USERS[(i + 1) % USERS.length]!.user_id }] : [],
    recipient_id: 1,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_id: sender.user_id,
    sender_realm_str: 'zulip',
    ...(inChannel && { stream_id: CHANNELS[i % CHANNELS.length]!.stream_id }),
    subject: inChannel ? 'topic' : '',
    timestamp: 1_700_000_000 + i,
    type: inChannel ? 'stream' : 'private',
    flags: [],
  };
});

function demoServer(featureLevel = 372) {
  return routedFetch({
    server_settings: () => ({ body: { service_feature_level: featureLevel } }),
    users: () => ({ body: { members: USERS } }),
    streams: () => ({ body: { streams: CHANNELS } }),
    user_groups: () => ({ body: { user_groups: [{ id: 30, name: 'design', description: '', members: [2, 3], direct_subgroup_ids: [], is_system_group: false }] } }),
    messages: (query) => {
      if (query.message_ids) {
        const wanted = new Set<number>(JSON.parse(query.message_ids));
        return { body: { found_newest: false, found_oldest: false, found_anchor: false, history_limited: false, messages: MESSAGES.filter((m) => wanted.has(m.id)) } };
      }
      return { body: { anchor: 10_000_000_000_000_000, found_newest: true, found_oldest: true, found_anchor: false, history_limited: false, messages: MESSAGES } };
    },
  });
}

describe('loaders', () => {
  it('serve the dashboard (100 newest messages, senders, channels, reaction users) in 3 upstream calls', async () => {
    const fetch = demoServer();
    const ctx = contextFor(fetch);
    // What the dashboard's resolvers do: one page of messages, then each message's relations.
    const { messages } = await getMessages(ctx.connection, { anchor: 'newest', numBefore: 100, numAfter: 0, narrow: [] });
    expect(messages).toHaveLength(100);
    const rows = await Promise.all(
      messages.map(async (m) => ({
        sender: await ctx.loaders.users.load(m.sender_id),
        channel: m.stream_id === undefined ? null : await ctx.loaders.channels.load(m.stream_id),
        reactors: await Promise.all(m.reactions.map((r) => ctx.loaders.users.load(r.user_id))),
      })),
    );
    expect(rows[1]).toMatchObject({ sender: { full_name: 'Iago', role: 200 }, channel: { name: 'design' } });
    expect(rows[3]!.reactors.map((u) => u.full_name)).toEqual(['Desdemona']);
    expect(fetch.calls.map((c) => c.path).sort()).toEqual(['messages', 'streams', 'users']);
    expect(ctx.upstream.requests).toBe(3);
  });

  it('ask for every channel the caller can see, and for avatar URLs', async () => {
    const fetch = demoServer();
    const ctx = contextFor(fetch);
    await Promise.all([ctx.loaders.channels.load(10), ctx.loaders.users.load(1)]);
    const byPath = Object.fromEntries(fetch.calls.map((c) => [c.path, c.query]));
    expect(byPath.streams).toEqual({
      include_all: 'true',
      include_public: 'true',
      include_subscribed: 'true',
      include_web_public: 'true',
      exclude_archived: 'false',
    });
    // The first users batch of a gateway asks for its IDs only (honoured from feature level 384).
    expect(byPath.users).toEqual({ client_gravatar: 'false', user_ids: '[1]' });
  });

  it('make one bulk call per request even across later batches', async () => {
    const fetch = demoServer();
    const ctx = contextFor(fetch);
    await ctx.loaders.users.load(1);
    await ctx.loaders.users.loadMany([2, 3]);
    await ctx.loaders.userGroups.load(30);
    await ctx.loaders.userGroups.load(30);
    expect(fetch.calls.map((c) => c.path)).toEqual(['users', 'user_groups']);
  });

  it('report a missing record as an error for that key only', async () => {
    const fetch = demoServer();
    const ctx = contextFor(fetch);
    const [found, missing] = await ctx.loaders.users.loadMany([2, 999]);
    expect(found).toMatchObject({ full_name: 'Iago' });
    expect(missing).toBeInstanceOf(Error);
    expect(missing).toMatchObject({ message: 'No user with ID 999 exists or is visible to you.', extensions: { code: 'NOT_FOUND' } });
    expect(fetch.calls).toHaveLength(1);
  });

  it('fall back to GET /streams/{id} for a channel missing from the list', async () => {
    const fetch = routedFetch({
      streams: () => ({ body: { streams: [CHANNELS[0]] } }),
      'streams/11': () => ({ body: { stream: CHANNELS[1] } }),
      'streams/99': () => ({ status: 400, body: { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' } }),
    });
    const ctx = contextFor(fetch);
    const [general, design, unknown] = await ctx.loaders.channels.loadMany([10, 11, 99]);
    expect(general).toMatchObject({ name: 'general' });
    expect(design).toMatchObject({ name: 'design' });
    expect(unknown).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect(fetch.calls.map((c) => c.path)).toEqual(['streams', 'streams/11', 'streams/99']);
  });

  it('batch messages by ID into one GET /messages with message_ids as JSON text', async () => {
    const fetch = demoServer();
    const ctx = contextFor(fetch);
    const results = await ctx.loaders.messages.loadMany([1005, 1001, 4242]);
    expect(results[0]).toMatchObject({ id: 1005 });
    expect(results[1]).toMatchObject({ id: 1001 });
    expect(results[2]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    const messageCalls = fetch.calls.filter((c) => c.path === 'messages');
    expect(messageCalls).toEqual([
      { path: 'messages', query: { message_ids: '[1005,1001,4242]', narrow: '[]', client_gravatar: 'false', apply_markdown: 'true' }, email: caller.email },
    ]);
  });

  it('refuse to load messages by ID from a server older than feature level 300', async () => {
    const fetch = demoServer(299);
    const ctx = contextFor(fetch);
    await expect(ctx.loaders.messages.load(1001)).rejects.toMatchObject({
      extensions: { code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 300, featureLevel: 299 },
    });
    expect(fetch.calls.map((c) => c.path)).toEqual(['server_settings']);
  });

  it('are never shared between two requests, even with the same credentials', async () => {
    const fetch = demoServer();
    const baseUrl = 'http://loaders-shared.localhost';
    // This fake answers GET /users only: never fetch a few users one by one (loaders/users.ts; that
    // path is tested in test/gateway/directory/per-request.test.ts).
    const upstream = new UpstreamServer({ baseUrl, fetch, userIdsBatchThreshold: 0 });
    const first = contextFromCredentials(upstream, caller);
    const second = contextFromCredentials(upstream, { email: 'iago@zulip.example.com', apiKey: 'other' });
    await first.loaders.users.load(1);
    await second.loaders.users.load(1);
    expect(fetch.calls.map((c) => [c.path, c.email])).toEqual([
      ['users', caller.email],
      ['users', 'iago@zulip.example.com'],
    ]);
  });
});
