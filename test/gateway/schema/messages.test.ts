/**
 * Messages end to end: GraphQL → gateway → REST → emulator, plus scripted servers for what the
 * emulator cannot show (IDs above 2^31, the legacy newest anchor, ignored parameters, old feature
 * levels). The emulator's own `GET /messages` is the oracle for paging: walking the connection must
 * give exactly the messages one big REST window gives, one upstream request per page.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { addChannel, addUser, insertMessage, subscribe } from '../../../src/emulator/factory.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import type { Message } from '../../../src/zulip/model/messages.js';
import { getMessages } from '../../../src/zulip/routes/messages.js';
import { createHarness, type Harness } from '../../helpers/harness.js';
import { scriptedFetch, success, type ScriptedResponse } from '../../helpers/scripted-fetch.js';

const HAMLET = demoUser('hamlet');
const AS_HAMLET = { as: HAMLET.email };

/** What the emulator itself answers, through the REST client (the oracle). */
function restAs(h: Harness, email: string, apiKey: string): ZulipConnection {
  return new ZulipConnection({
    baseUrl: h.zulipUrl,
    credentials: { email, apiKey },
    fetch: (input, init) => h.emulator.fetch(new Request(input, init)),
  });
}

async function allMessageIds(h: Harness, narrow: { operator: string; operand: string | number | number[] }[] = []): Promise<number[]> {
  const { messages } = await getMessages(restAs(h, HAMLET.email, HAMLET.apiKey), { anchor: 'newest', numBefore: 1000, numAfter: 0, narrow });
  return messages.map((m) => m.id);
}

interface Page {
  edges: { cursor: string; node: { id: number } }[];
  pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean; startCursor: string | null; endCursor: string | null };
  anchor: number | null;
  foundAnchor: boolean;
  foundNewest: boolean;
  foundOldest: boolean;
  historyLimited: boolean;
}

const PAGE = /* GraphQL */ `
  query Page($narrow: NarrowInput, $anchor: MessageAnchorInput, $first: Int, $after: String, $last: Int, $before: String, $includeAnchor: Boolean) {
    messages(narrow: $narrow, anchor: $anchor, first: $first, after: $after, last: $last, before: $before, includeAnchor: $includeAnchor) {
      edges { cursor node { id } }
      pageInfo { hasPreviousPage hasNextPage startCursor endCursor }
      anchor foundAnchor foundNewest foundOldest historyLimited
    }
  }
`;

async function page(h: Harness, variables: Record<string, unknown>): Promise<Page> {
  const { data, errors } = await h.gql<{ messages: Page }>(PAGE, variables, AS_HAMLET);
  expect(errors).toBeUndefined();
  return data!.messages;
}

const ids = (p: Page) => p.edges.map((e) => e.node.id);

describe('messages connection', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('walks backward from the newest message, one upstream request per page', async () => {
    const expected = await allMessageIds(h);
    expect(expected.length).toBeGreaterThan(8);
    h.resetUpstreamRequests();
    const seen: number[] = [];
    let before: string | null = null;
    let pages = 0;
    for (; pages < 50; pages++) {
      const p: Page = await page(h, before ? { last: 3, before } : { last: 3 });
      expect(p.edges.length).toBeLessThanOrEqual(3);
      seen.unshift(...ids(p));
      if (!p.pageInfo.hasPreviousPage) break;
      expect(p.edges).toHaveLength(3);
      before = p.pageInfo.startCursor;
    }
    expect(seen).toEqual(expected);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(pages + 1).fill('GET messages'));
    // The window asks for one extra message on each side, so the flags are exact.
    expect(h.upstreamRequests[0]!.query).toMatchObject({ anchor: 'newest', num_before: '4', num_after: '1' });
    // The cursor message is fetched and dropped: Zulip only excludes the anchor at an end of the range.
    expect(h.upstreamRequests[1]!.query).toMatchObject({ include_anchor: 'true', num_before: '4', num_after: '1' });
  });

  it('walks forward from the oldest message', async () => {
    const expected = await allMessageIds(h);
    const seen: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const p: Page = await page(h, after ? { first: 4, after } : { first: 4 });
      seen.push(...ids(p));
      if (pages === 0) expect(p.pageInfo.hasPreviousPage).toBe(false);
      else expect(p.pageInfo.hasPreviousPage).toBe(true);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
  });

  it('reports exact page flags when the page ends exactly at the last message', async () => {
    const expected = await allMessageIds(h);
    const p = await page(h, { last: expected.length });
    expect(ids(p)).toEqual(expected);
    expect(p.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
  });

  it('places a window around an anchor: `last` before it, `first` from it on', async () => {
    const all = await allMessageIds(h);
    const middle = all[Math.floor(all.length / 2)]!;
    const p = await page(h, { anchor: { messageId: middle }, last: 2, first: 3 });
    const at = all.indexOf(middle);
    expect(ids(p)).toEqual(all.slice(at - 2, at + 3));
    expect(p).toMatchObject({ anchor: middle, foundAnchor: true });
    expect(p.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: at + 3 < all.length });

    const without = await page(h, { anchor: { messageId: middle }, first: 2, includeAnchor: false });
    expect(ids(without)).toEqual(all.slice(at + 1, at + 3));
    expect(without.foundAnchor).toBe(false);
  });

  it('starts at the first unread message', async () => {
    const unread = await allMessageIds(h, [{ operator: 'is', operand: 'unread' }]);
    expect(unread.length).toBeGreaterThan(0);
    const p = await page(h, { anchor: { named: 'FIRST_UNREAD' }, first: 2 });
    expect(ids(p)[0]).toBe(unread[0]);
    expect(p.anchor).toBe(unread[0]);
  });

  it('serializes the legacy "newest" anchor value without overflowing', async () => {
    const p = await page(h, { last: 1 });
    expect(p.anchor === null || Number.isSafeInteger(p.anchor) || p.anchor === 10_000_000_000_000_000).toBe(true);
    expect(p.foundNewest).toBe(true);
  });

  it('narrows by channel and topic with the modern operator names', async () => {
    const general = h.emulator.store.channelByName('general')!;
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messages: { nodes: { channelId: number; topic: string; channel: { name: string } }[] } }>(
      `query($narrow: NarrowInput) { messages(narrow: $narrow, last: 50) { nodes { channelId topic channel { name } } } }`,
      { narrow: { channelId: general.stream_id, topic: 'greetings' } },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const nodes = data!.messages.nodes;
    expect(nodes.length).toBeGreaterThan(1);
    for (const n of nodes) expect(n).toEqual({ channelId: general.stream_id, topic: 'greetings', channel: { name: 'general' } });
    const request = h.upstreamRequests.find((r) => r.path === 'messages')!;
    expect(JSON.parse(request.query.narrow!)).toEqual([
      { operator: 'channel', operand: general.stream_id },
      { operator: 'topic', operand: 'greetings' },
    ]);
  });

  it('negates every condition under `not`, and combines is/has/sender/search', async () => {
    const iago = h.emulator.store.userByEmail(demoUser('iago').email)!;
    const { data, errors } = await h.gql<{ messages: { nodes: { senderId: number; type: string }[] } }>(
      `query($narrow: NarrowInput) { messages(narrow: $narrow, last: 100) { nodes { senderId type } } }`,
      { narrow: { not: { senderId: iago.user_id, is: ['DM'] } } },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.messages.nodes.length).toBeGreaterThan(0);
    for (const n of data!.messages.nodes) {
      expect(n.senderId).not.toBe(iago.user_id);
      expect(n.type).toBe('CHANNEL');
    }
    const sent = h.upstreamRequests.at(-1)!;
    expect(JSON.parse(sent.query.narrow!)).toEqual([
      { operator: 'sender', operand: iago.user_id, negated: true },
      { operator: 'is', operand: 'dm', negated: true },
    ]);

    const starred = await h.gql<{ messages: { nodes: { starred: boolean; content: string }[] } }>(
      '{ messages(narrow: { is: [STARRED] }, last: 10) { nodes { starred content } } }',
      {},
      AS_HAMLET,
    );
    expect(starred.errors).toBeUndefined();
    expect(starred.data!.messages.nodes.length).toBeGreaterThan(0);
    for (const n of starred.data!.messages.nodes) expect(n.starred).toBe(true);

    const search = await h.gql<{ messages: { nodes: { content: string }[] } }>(
      '{ messages(narrow: { search: "rollback", has: [LINK] }, last: 10) { nodes { content } } }',
      {},
      AS_HAMLET,
    );
    expect(search.errors).toBeUndefined();
    expect(search.data!.messages.nodes).toHaveLength(1);
    expect(search.data!.messages.nodes[0]!.content).toContain('rollback');
  });

  it('reports an invalid narrow with the upstream code', async () => {
    const { data, errors } = await h.gql('{ messages(narrow: { channelId: 987654 }, last: 5) { nodes { id } } }', {}, AS_HAMLET);
    expect(data).toEqual({ messages: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_NARROW', route: 'get-messages', httpStatus: 400 });
  });

  it('refuses contradictory narrows, bad cursors and oversized pages before calling upstream', async () => {
    h.resetUpstreamRequests();
    const cases: [string, Record<string, unknown>][] = [
      ['{ messages(narrow: { channelId: 1, channelName: "general" }, last: 5) { nodes { id } } }', {}],
      ['{ messages(narrow: { not: { not: { senderId: 1 } } }, last: 5) { nodes { id } } }', {}],
      ['{ messages(narrow: { dmUserIds: [] }, last: 5) { nodes { id } } }', {}],
      ['{ messages(first: 1001) { nodes { id } } }', {}],
      ['{ messages(last: -1) { nodes { id } } }', {}],
      ['{ messages { nodes { id } } }', {}],
      ['{ messages(first: 2, last: 2) { nodes { id } } }', {}],
      ['{ messages(first: 2, after: "bm9wZQ") { nodes { id } } }', {}],
      ['{ messages(last: 2, after: "bWVzc2FnZToz") { nodes { id } } }', {}],
      ['{ messages(first: 2, anchor: { messageId: 3, named: NEWEST }) { nodes { id } } }', {}],
    ];
    for (const [query, variables] of cases) {
      const { data, errors } = await h.gql(query, variables, AS_HAMLET);
      expect(data, query).toEqual({ messages: null });
      expect(errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
    }
    const capped = await h.gql('{ messages(last: 5000) { nodes { id } } }', {}, AS_HAMLET);
    expect(capped.errors?.[0]).toMatchObject({
      message: expect.stringContaining('between 0 and 1000'),
      extensions: { code: 'BAD_USER_INPUT', argument: 'last', maxPageSize: 1000 },
    });
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('message fields', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const FIELDS = /* GraphQL */ `
    id type senderId senderFullName senderEmail senderRealmStr avatarUrl
    sender { fullName }
    channelId channelName channel { name } topic topicLinks { text url }
    directMessageRecipients { userId email fullName isMirrorDummy user { fullName } }
    recipientId content contentType timestamp client isMeMessage lastEditTimestamp lastMovedTimestamp
    editHistory { userId user { fullName } timestamp prevContent prevRenderedContent prevTopic topic prevChannelId channelId prevChannel { name } channel { name } }
    flags flagNames read starred mentioned submessages { id msgType content senderId }
    matchContent matchTopic
  `;

  it('exposes every wire field, for channel and direct messages', async () => {
    const { data, errors } = await h.gql<{ messages: { nodes: Record<string, unknown>[] } }>(
      `{ messages(last: 100) { nodes { ${FIELDS} } } }`,
      {},
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const nodes = data!.messages.nodes;
    const store = h.emulator.store;
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;

    const welcome = nodes.find((n) => String(n.content).includes('Welcome to'))!;
    expect(welcome).toMatchObject({
      type: 'CHANNEL',
      channelName: 'general',
      channel: { name: 'general' },
      topic: 'greetings',
      contentType: 'HTML',
      directMessageRecipients: null,
      read: true,
      starred: true,
      client: expect.any(String),
      isMeMessage: false,
      sender: { fullName: 'Desdemona' },
      senderFullName: 'Desdemona',
    });
    expect(welcome.flags).toEqual(expect.arrayContaining(['READ', 'STARRED']));
    expect(welcome.content).toMatch(/<strong>Zulip Dev<\/strong>/);

    const direct = nodes.find((n) => n.type === 'DIRECT' && (n.directMessageRecipients as unknown[]).length === 3)!;
    expect(direct).toMatchObject({ channel: null, channelId: null, channelName: null, topic: '' });
    const recipients = direct.directMessageRecipients as { userId: number; fullName: string; user: { fullName: string } }[];
    expect(recipients.map((r) => r.userId)).toContain(hamletId);
    for (const r of recipients) expect(r.user.fullName).toBe(r.fullName);

    const edited = nodes.find((n) => String(n.content).includes('teal'))!;
    expect(edited.lastEditTimestamp).toEqual(expect.any(Number));
    expect(edited.editHistory).toEqual([
      expect.objectContaining({ prevContent: 'I like teal.', prevRenderedContent: '<p>I like teal.</p>', user: { fullName: 'Cordelia, Lear\u2019s daughter' }, prevTopic: null, prevChannel: null }),
    ]);

    const mentioning = nodes.find((n) => String(n.content).includes('glad to be here'))!;
    expect(mentioning.mentioned).toBe(false); // Hamlet mentions Desdemona, not himself
    const untouched = nodes.find((n) => n.id !== edited.id && n.editHistory === null);
    expect(untouched).toBeDefined();
  });

  it('fetches Markdown per page in one extra request, and never for message(id)', async () => {
    // Warm the (per-process) feature level so the count below is about messages only.
    await h.gql('{ messagesByIds(ids: []) { id } }', {}, AS_HAMLET);
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messages: { nodes: { id: number; content: string; rawContent: string; renderedContent: string }[] } }>(
      '{ messages(last: 20) { nodes { id content rawContent renderedContent } } }',
      {},
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const store = h.emulator.store;
    for (const n of data!.messages.nodes) {
      expect(n.rawContent).toBe(store.messages.get(n.id)!.content);
      expect(n.renderedContent).toBe(n.content);
    }
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['messages', 'messages']);
    expect(h.upstreamRequests[1]!.query).toMatchObject({ apply_markdown: 'false' });
    expect(JSON.parse(h.upstreamRequests[1]!.query.message_ids!)).toEqual(data!.messages.nodes.map((n) => n.id));

    h.resetUpstreamRequests();
    const markdown = await h.gql<{ messages: { nodes: { id: number; content: string; contentType: string; rawContent: string; renderedContent: string }[] } }>(
      '{ messages(last: 3, applyMarkdown: false) { nodes { id content contentType rawContent renderedContent } } }',
      {},
      AS_HAMLET,
    );
    expect(markdown.errors).toBeUndefined();
    for (const n of markdown.data!.messages.nodes) {
      expect(n).toMatchObject({ contentType: 'MARKDOWN', content: store.messages.get(n.id)!.content, rawContent: n.content });
      expect(n.renderedContent).toBe(store.messages.get(n.id)!.rendered_content);
    }
    expect(h.upstreamRequests).toHaveLength(2);

    const id = markdown.data!.messages.nodes[0]!.id;
    h.resetUpstreamRequests();
    const single = await h.gql<{ message: { id: number; rawContent: string; content: string } }>(
      'query($id: Long!) { message(id: $id) { id rawContent content } }',
      { id },
      AS_HAMLET,
    );
    expect(single.errors).toBeUndefined();
    expect(single.data!.message).toEqual({ id, rawContent: store.messages.get(id)!.content, content: store.messages.get(id)!.rendered_content });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET messages/${id}`]);
  });

  it('message(id) reports an invisible message with the upstream code', async () => {
    const iagoCordelia = [...h.emulator.store.messages.values()].find(
      (m) => m.type === 'private' && !m.dm_user_ids!.includes(h.emulator.store.userByEmail(demoUser('othello').email)!.user_id),
    )!;
    const { data, errors } = await h.gql('query($id: Long!) { message(id: $id) { id } }', { id: iagoCordelia.id }, { as: demoUser('othello').email });
    expect(data).toEqual({ message: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', route: 'get-message' });
  });

  it('messagesByIds keeps the order asked, with null for what is missing, in one request', async () => {
    const all = await allMessageIds(h);
    const wanted = [all[3]!, 999_999, all[0]!, all[3]!];
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messagesByIds: ({ id: number } | null)[] }>(
      'query($ids: [Long!]!) { messagesByIds(ids: $ids) { id } }',
      { ids: wanted },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.messagesByIds).toEqual([{ id: all[3] }, null, { id: all[0] }, { id: all[3] }]);
    const calls = h.upstreamRequests.filter((r) => r.path === 'messages');
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.query.message_ids!)).toEqual([all[3], 999_999, all[0]]);
  });
});

describe('a server at feature level 240', () => {
  const h = createHarness({ emulatorSettings: { featureLevel: 240 } });
  afterAll(() => h.close());

  it('messagesByIds fails with UNSUPPORTED_BY_SERVER (needs 300) without asking for messages', async () => {
    const { data, errors } = await h.gql('{ messagesByIds(ids: [1, 2]) { id } }', {}, AS_HAMLET);
    expect(data).toEqual({ messagesByIds: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 300, featureLevel: 240 });
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
  });

  it('narrows with `stream` (before 250) and an integer `id` operand (since 194)', async () => {
    const general = h.emulator.store.channelByName('general')!;
    const { errors } = await h.gql('query($n: NarrowInput) { messages(narrow: $n, last: 2) { nodes { id } } }', { n: { channelId: general.stream_id, id: 3 } }, AS_HAMLET);
    expect(errors).toBeUndefined();
    const sent = h.upstreamRequests.filter((r) => r.path === 'messages').at(-1)!;
    expect(JSON.parse(sent.query.narrow!)).toEqual([
      { operator: 'stream', operand: general.stream_id },
      { operator: 'id', operand: 3 },
    ]);
  });
});

describe('mutations', () => {
  const h = createHarness({ emulatorSettings: { moveMessagesWithinStreamLimitSeconds: 3600 } });
  afterAll(() => h.close());
  const store = h.emulator.store;

  it('sendMessage to a channel and to users, then reads the message back through the loader', async () => {
    const general = store.channelByName('general')!;
    const { data, errors } = await h.gql<{ sendMessage: { id: number; message: { content: string; topic: string; channel: { name: string }; sender: { fullName: string } } } }>(
      'mutation($c: Long!) { sendMessage(channelId: $c, topic: "gateway", content: "Hello **there**") { id message { content topic channel { name } sender { fullName } } } }',
      { c: general.stream_id },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const sent = store.messages.get(data!.sendMessage.id)!;
    expect(sent).toMatchObject({ content: 'Hello **there**', topic: 'gateway', stream_id: general.stream_id });
    expect(data!.sendMessage.message).toEqual({
      content: sent.rendered_content,
      topic: 'gateway',
      channel: { name: 'general' },
      sender: { fullName: 'King Hamlet' },
    });

    const iago = store.userByEmail(demoUser('iago').email)!;
    h.resetUpstreamRequests();
    const dm = await h.gql<{ sendMessage: { id: number } }>(
      'mutation($to: [Long!]!) { sendMessage(to: $to, content: "psst") { id } }',
      { to: [iago.user_id] },
      AS_HAMLET,
    );
    expect(dm.errors).toBeUndefined();
    expect(store.messages.get(dm.data!.sendMessage.id)).toMatchObject({ type: 'private', content: 'psst' });
    const post = h.upstreamRequests.find((r) => r.method === 'POST')!;
    expect(post.path).toBe('messages');
  });

  it('sendMessage by channel name, even a name made of digits', async () => {
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    const digits = addChannel(store, { name: '2024' }, Date.now());
    subscribe(store, digits.stream_id, hamletId);
    const { data, errors } = await h.gql<{ sendMessage: { id: number } }>(
      'mutation { sendMessage(channelName: "2024", topic: "plans", content: "by name") { id } }',
      {},
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(store.messages.get(data!.sendMessage.id)).toMatchObject({ stream_id: digits.stream_id, topic: 'plans' });
  });

  it('sendMessage refuses an ambiguous destination and maps upstream refusals', async () => {
    const bad = await h.gql('mutation { sendMessage(channelId: 1, to: [2], content: "x") { id } }', {}, AS_HAMLET);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const missing = await h.gql('mutation { sendMessage(channelName: "no such channel", topic: "t", content: "x") { id } }', {}, AS_HAMLET);
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', route: 'send-message' });
  });

  it('editMessage changes content and reports detached uploads', async () => {
    const mine = insertMessage(store, { sender_id: store.userByEmail(HAMLET.email)!.user_id, stream_id: store.channelByName('general')!.stream_id, topic: 'edits', content: 'before', timestamp: Math.floor(Date.now() / 1000) });
    const { data, errors } = await h.gql<{ editMessage: { __typename: string; messageId: number; detachedUploads: unknown[]; message: { rawContent: string; lastEditTimestamp: number | null } } }>(
      'mutation($id: Long!) { editMessage(messageId: $id, content: "after") { __typename ... on EditMessagePayload { messageId detachedUploads { id } message { rawContent lastEditTimestamp } } } }',
      { id: mine.id },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.editMessage).toMatchObject({ __typename: 'EditMessagePayload', messageId: mine.id, detachedUploads: [], message: { rawContent: 'after' } });
    expect(data!.editMessage.message.lastEditTimestamp).toEqual(expect.any(Number));
    expect(store.messages.get(mine.id)!.content).toBe('after');
  });

  it('editMessage returns MOVE_MESSAGES_TIME_LIMIT_EXCEEDED as a result the client can retry from', async () => {
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    const channel = store.channelByName('design')!;
    const now = Math.floor(Date.now() / 1000);
    const old = [1, 2].map((i) => insertMessage(store, { sender_id: hamletId, stream_id: channel.stream_id, topic: 'time limits', content: `old ${i}`, timestamp: now - 7200 - i }));
    const recent = [1, 2, 3].map((i) => insertMessage(store, { sender_id: hamletId, stream_id: channel.stream_id, topic: 'time limits', content: `new ${i}`, timestamp: now - 60 + i }));

    const MOVE = /* GraphQL */ `
      mutation($id: Long!, $mode: PropagateMode!) {
        editMessage(messageId: $id, topic: "moved", propagateMode: $mode, sendNotificationToOldThread: false, sendNotificationToNewThread: false) {
          __typename
          ... on MoveMessagesTimeLimitExceededError { code message firstMessageIdAllowedToMove totalMessagesAllowedToMove totalMessagesInTopic }
          ... on EditMessagePayload { messageId }
        }
      }
    `;
    const refused = await h.gql<{ editMessage: Record<string, unknown> }>(MOVE, { id: recent[2]!.id, mode: 'CHANGE_ALL' }, AS_HAMLET);
    expect(refused.errors).toBeUndefined();
    expect(refused.data!.editMessage).toEqual({
      __typename: 'MoveMessagesTimeLimitExceededError',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      message: expect.any(String),
      firstMessageIdAllowedToMove: recent[0]!.id,
      totalMessagesAllowedToMove: 3,
      totalMessagesInTopic: 5,
    });
    expect([...old, ...recent].every((m) => store.messages.get(m.id)!.topic === 'time limits')).toBe(true);

    const retried = await h.gql<{ editMessage: Record<string, unknown> }>(
      MOVE,
      { id: refused.data!.editMessage.firstMessageIdAllowedToMove, mode: 'CHANGE_LATER' },
      AS_HAMLET,
    );
    expect(retried.errors).toBeUndefined();
    expect(retried.data!.editMessage).toEqual({ __typename: 'EditMessagePayload', messageId: recent[0]!.id });
    expect(recent.map((m) => store.messages.get(m.id)!.topic)).toEqual(['moved', 'moved', 'moved']);
    expect(old.map((m) => store.messages.get(m.id)!.topic)).toEqual(['time limits', 'time limits']);

    const moved = await h.gql<{ message: { topic: string; lastMovedTimestamp: number | null; editHistory: { prevTopic: string; topic: string; user: { fullName: string } }[] } }>(
      'query($id: Long!) { message(id: $id) { topic lastMovedTimestamp editHistory { prevTopic topic user { fullName } } } }',
      { id: recent[1]!.id },
      AS_HAMLET,
    );
    expect(moved.errors).toBeUndefined();
    expect(moved.data!.message).toMatchObject({
      topic: 'moved',
      lastMovedTimestamp: expect.any(Number),
      editHistory: [{ prevTopic: 'time limits', topic: 'moved', user: { fullName: 'King Hamlet' } }],
    });
  });

  it('sendMessage maps a refused channel wildcard mention to its code', async () => {
    const now = Date.now();
    const crowded = addChannel(store, { name: 'crowded' }, now);
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    subscribe(store, crowded.stream_id, hamletId);
    for (let i = 0; i < store.realm.settings.wildcard_mention_large_stream_threshold + 1; i++) {
      subscribe(store, crowded.stream_id, addUser(store, { full_name: `Crowd ${i}`, delivery_email: `crowd${i}@zulip.example.com` }, now).user_id);
    }
    const { data, errors } = await h.gql(
      'mutation($c: Long!) { sendMessage(channelId: $c, topic: "all hands", content: "Hello @**all**") { id } }',
      { c: crowded.stream_id },
      AS_HAMLET,
    );
    expect(data).toBeNull();
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED', route: 'send-message', httpStatus: 400 });
  });

  it('editMessage maps other refusals to GraphQL errors with the upstream code', async () => {
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    const mine = insertMessage(store, { sender_id: hamletId, stream_id: store.channelByName('general')!.stream_id, topic: 'x', content: 'y', timestamp: Math.floor(Date.now() / 1000) });
    const both = await h.gql('mutation($id: Long!, $c: Long!) { editMessage(messageId: $id, content: "z", channelId: $c) { __typename } }', { id: mine.id, c: store.channelByName('design')!.stream_id }, AS_HAMLET);
    expect(both.data).toBeNull();
    expect(both.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', route: 'update-message' });

    const othersMessage = [...store.messages.values()].find((m) => m.sender_id !== hamletId && m.type === 'stream')!;
    const notMine = await h.gql('mutation($id: Long!) { editMessage(messageId: $id, content: "hijack") { __typename } }', { id: othersMessage.id }, AS_HAMLET);
    expect(notMine.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('updateMessageFlags stars messages by ID', async () => {
    const all = await allMessageIds(h);
    const targets = all.slice(-2);
    const { data, errors } = await h.gql<{ updateMessageFlags: { messageIds: number[]; messages: { id: number; starred: boolean }[] } }>(
      'mutation($ids: [Long!]!) { updateMessageFlags(messageIds: $ids, op: ADD, flag: STARRED) { messageIds messages { id starred } } }',
      { ids: targets },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect([...data!.updateMessageFlags.messageIds].sort()).toEqual([...targets].sort());
    expect(data!.updateMessageFlags.messages).toEqual(targets.map((id) => ({ id, starred: true })));
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    for (const id of targets) expect(store.hasFlag(hamletId, id, 'starred')).toBe(true);
  });

  it('updateMessageFlagsForNarrow marks a narrow read and reports skipped channels as Channels', async () => {
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    const general = store.channelByName('general')!;
    const unreadBefore = [...store.messages.values()].filter((m) => m.stream_id === general.stream_id && !store.hasFlag(hamletId, m.id, 'read'));
    expect(unreadBefore.length).toBeGreaterThan(0);
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ updateMessageFlagsForNarrow: Record<string, unknown> }>(
      `mutation($n: NarrowInput) {
        updateMessageFlagsForNarrow(narrow: $n, anchor: { named: OLDEST }, numBefore: 0, numAfter: 1000, op: ADD, flag: READ) {
          processedCount updatedCount firstProcessedId lastProcessedId foundOldest foundNewest ignoredBecauseNotSubscribedChannelIds
        }
      }`,
      { n: { channelId: general.stream_id, is: ['UNREAD'] } },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.updateMessageFlagsForNarrow).toMatchObject({
      processedCount: unreadBefore.length,
      updatedCount: unreadBefore.length,
      firstProcessedId: unreadBefore[0]!.id,
      lastProcessedId: unreadBefore.at(-1)!.id,
      foundNewest: true,
      ignoredBecauseNotSubscribedChannelIds: [],
    });
    for (const m of unreadBefore) expect(store.hasFlag(hamletId, m.id, 'read')).toBe(true);
    const post = h.upstreamRequests.find((r) => r.method === 'POST')!;
    expect(post.path).toBe('messages/flags/narrow');

    // Hamlet can read the public `legacy` channel without being subscribed to it.
    const legacy = store.channelByName('legacy')!;
    const removed = await h.gql<{ updateMessageFlagsForNarrow: { ignoredBecauseNotSubscribedChannelIds: number[]; ignoredBecauseNotSubscribedChannels: { name: string }[] } }>(
      `mutation($n: NarrowInput) {
        updateMessageFlagsForNarrow(narrow: $n, anchor: { named: NEWEST }, numBefore: 100, numAfter: 0, op: REMOVE, flag: READ) {
          ignoredBecauseNotSubscribedChannelIds ignoredBecauseNotSubscribedChannels { name }
        }
      }`,
      { n: { channelId: legacy.stream_id } },
      AS_HAMLET,
    );
    expect(removed.errors).toBeUndefined();
    expect(removed.data!.updateMessageFlagsForNarrow).toEqual({
      ignoredBecauseNotSubscribedChannelIds: [legacy.stream_id],
      ignoredBecauseNotSubscribedChannels: [{ name: 'legacy' }],
    });
  });

  it('updateMessageFlagsForNarrow validates its window locally', async () => {
    const before = h.upstreamRequests.length;
    const { errors } = await h.gql('mutation { updateMessageFlagsForNarrow(anchor: { named: NEWEST }, numBefore: -1, numAfter: 0, op: ADD, flag: READ) { updatedCount } }', {}, AS_HAMLET);
    expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // Zulip only excludes the anchor at an end of the range: refused here, not upstream.
    const middle = await h.gql(
      'mutation { updateMessageFlagsForNarrow(anchor: { messageId: 1 }, includeAnchor: false, numBefore: 1, numAfter: 1, op: ADD, flag: READ) { updatedCount } }',
      {},
      AS_HAMLET,
    );
    expect(middle.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'includeAnchor' });
    expect(h.upstreamRequests.length).toBe(before);
  });
});

// ---- scripted servers --------------------------------------------------------------------------------

function scriptedGateway(...responses: ScriptedResponse[]) {
  const fetch = scriptedFetch(responses);
  const gateway = createGateway({ zulipUrl: `http://scripted-${Math.random().toString(36).slice(2)}.localhost`, fetch, logging: false });
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('a@b.c:key').toString('base64')}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
  };
  return { fetch, gql };
}

function wireMessage(id: number, extra: Partial<Message> = {}): Message {
  return {
    id,
    avatar_url: 'https://example.com/a.png',
    client: 'test',
    content: `<p>${id}</p>`,
    content_type: 'text/html',
    display_recipient: 'general',
    is_me_message: false,
    reactions: [],
    recipient_id: 3_000_000_000,
    sender_email: 'a@b.c',
    sender_full_name: 'A',
    sender_id: 7,
    sender_realm_str: 'zulip',
    stream_id: 5,
    subject: 't',
    timestamp: 1_700_000_000,
    type: 'stream',
    flags: ['read', 'some_future_flag'],
    ...extra,
  };
}

describe('scripted servers', () => {
  it('handles IDs above 2^31 in results, cursors and the newest anchor 10000000000000000', async () => {
    const big = 2 ** 32 + 5;
    const { fetch, gql } = scriptedGateway(
      success({ anchor: 10_000_000_000_000_000, found_anchor: false, found_newest: true, found_oldest: false, history_limited: false, messages: [wireMessage(big - 1), wireMessage(big)] }),
      success({ anchor: big, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [wireMessage(big - 1)] }),
    );
    const first = await gql('{ messages(last: 1) { anchor edges { cursor node { id recipientId flags flagNames } } pageInfo { hasPreviousPage startCursor } } }');
    expect(first.errors).toBeUndefined();
    expect(first.data!.messages).toMatchObject({
      anchor: 10_000_000_000_000_000,
      edges: [{ node: { id: big, recipientId: 3_000_000_000, flags: ['READ'], flagNames: ['read', 'some_future_flag'] } }],
      pageInfo: { hasPreviousPage: true },
    });
    const second = await gql('query($c: String!) { messages(last: 5, before: $c) { nodes { id } pageInfo { hasPreviousPage hasNextPage } } }', {
      c: first.data!.messages.pageInfo.startCursor,
    });
    expect(second.errors).toBeUndefined();
    expect(fetch.requests[1]!.query).toMatchObject({ anchor: String(big), include_anchor: 'true', num_before: '6', num_after: '1' });
    // Nothing follows the cursor strictly (Relay: the `before` edge itself does not count).
    expect(second.data!.messages).toEqual({ nodes: [{ id: big - 1 }], pageInfo: { hasPreviousPage: false, hasNextPage: false } });
    expect(fetch.remaining).toBe(0);
  });

  it('puts ignored_parameters_unsupported in the response extensions', async () => {
    const { gql } = scriptedGateway(
      success({ anchor: 1, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [], ignored_parameters_unsupported: ['allow_empty_topic_name', 'include_anchor'] }),
    );
    const result = await gql('{ messages(last: 5, allowEmptyTopicName: true) { nodes { id } } }');
    expect(result.errors).toBeUndefined();
    expect(result.extensions).toMatchObject({ upstreamRequests: 1, ignoredParametersUnsupported: ['allow_empty_topic_name', 'include_anchor'] });
  });

  it('encodes narrows for servers before feature level 177 with pm-with and is:private, and refuses dmIncluding', async () => {
    const { fetch, gql } = scriptedGateway(
      success({ zulip_feature_level: 150 }),
      success({ anchor: 1, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [] }),
    );
    const ok = await gql('{ messages(narrow: { dmUserIds: [3, 4], is: [DM], channels: PUBLIC }, last: 5) { nodes { id } } }');
    expect(ok.errors).toBeUndefined();
    expect(JSON.parse(fetch.requests[1]!.query.narrow!)).toEqual([
      { operator: 'streams', operand: 'public' },
      { operator: 'pm-with', operand: [3, 4] },
      { operator: 'is', operand: 'private' },
    ]);
    const refused = await gql('{ messages(narrow: { dmIncluding: 3 }, last: 5) { nodes { id } } }');
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 177 });
    expect(fetch.requests).toHaveLength(2);
  });
});
