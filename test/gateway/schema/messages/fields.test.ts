/**
 * Message fields end to end (GraphQL → gateway → REST → emulator), and what an older server at
 * feature level 240 answers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { createHarness } from '../../../helpers/harness.js';
import { AS_HAMLET, HAMLET, allMessageIds } from './shared.js';

describe('message fields', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const FIELDS = /* GraphQL */ `
    zulipId type senderId senderFullName senderEmail senderRealmStr avatarUrl
    sender { fullName }
    channelId channelName channel { name } topic topicLinks { text url }
    directMessageRecipients { userId email fullName isMirrorDummy user { fullName } }
    recipientId content contentType timestamp client isMeMessage lastEditTimestamp lastMovedTimestamp
    editHistory { userId user { fullName } timestamp prevContent prevRenderedContent prevTopic topic prevChannelId channelId prevChannel { name } channel { name } }
    flags flagNames read starred mentioned submessages { zulipId msgType content senderId }
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
    const untouched = nodes.find((n) => n.zulipId !== edited.zulipId && n.editHistory === null);
    expect(untouched).toBeDefined();
  });

  it('fetches Markdown per page in one extra request, and never for message(id)', async () => {
    // Warm the (per-process) feature level so the count below is about messages only.
    await h.gql('{ messagesByIds(ids: []) { zulipId } }', {}, AS_HAMLET);
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messages: { nodes: { zulipId: number; content: string; rawContent: string; renderedContent: string }[] } }>(
      '{ messages(last: 20) { nodes { zulipId content rawContent renderedContent } } }',
      {},
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const store = h.emulator.store;
    for (const n of data!.messages.nodes) {
      expect(n.rawContent).toBe(store.messages.get(n.zulipId)!.content);
      expect(n.renderedContent).toBe(n.content);
    }
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['messages', 'messages']);
    expect(h.upstreamRequests[1]!.query).toMatchObject({ apply_markdown: 'false' });
    expect(JSON.parse(h.upstreamRequests[1]!.query.message_ids!)).toEqual(data!.messages.nodes.map((n) => n.zulipId));

    h.resetUpstreamRequests();
    const markdown = await h.gql<{ messages: { nodes: { zulipId: number; content: string; contentType: string; rawContent: string; renderedContent: string }[] } }>(
      '{ messages(last: 3, applyMarkdown: false) { nodes { zulipId content contentType rawContent renderedContent } } }',
      {},
      AS_HAMLET,
    );
    expect(markdown.errors).toBeUndefined();
    for (const n of markdown.data!.messages.nodes) {
      expect(n).toMatchObject({ contentType: 'MARKDOWN', content: store.messages.get(n.zulipId)!.content, rawContent: n.content });
      expect(n.renderedContent).toBe(store.messages.get(n.zulipId)!.rendered_content);
    }
    expect(h.upstreamRequests).toHaveLength(2);

    const id = markdown.data!.messages.nodes[0]!.zulipId;
    h.resetUpstreamRequests();
    const single = await h.gql<{ message: { zulipId: number; rawContent: string; content: string } }>(
      'query($id: Long!) { message(id: $id) { zulipId rawContent content } }',
      { id },
      AS_HAMLET,
    );
    expect(single.errors).toBeUndefined();
    expect(single.data!.message).toEqual({ zulipId: id, rawContent: store.messages.get(id)!.content, content: store.messages.get(id)!.rendered_content });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET messages/${id}`]);
  });

  it('message(id) reports an invisible message with the upstream code', async () => {
    const iagoCordelia = [...h.emulator.store.messages.values()].find(
      (m) => m.type === 'private' && !m.dm_user_ids!.includes(h.emulator.store.userByEmail(demoUser('othello').email)!.user_id),
    )!;
    const { data, errors } = await h.gql('query($id: Long!) { message(id: $id) { zulipId } }', { id: iagoCordelia.id }, { as: demoUser('othello').email });
    expect(data).toEqual({ message: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', route: 'get-message' });
  });

  it('messagesByIds keeps the order asked, with null for what is missing, in one request', async () => {
    const all = await allMessageIds(h);
    const wanted = [all[3]!, 999_999, all[0]!, all[3]!];
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messagesByIds: ({ zulipId: number } | null)[] }>(
      'query($ids: [Long!]!) { messagesByIds(ids: $ids) { zulipId } }',
      { ids: wanted },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.messagesByIds).toEqual([{ zulipId: all[3] }, null, { zulipId: all[0] }, { zulipId: all[3] }]);
    const calls = h.upstreamRequests.filter((r) => r.path === 'messages');
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.query.message_ids!)).toEqual([all[3], 999_999, all[0]]);
  });
});

describe('a server at feature level 240', () => {
  const h = createHarness({ emulatorSettings: { featureLevel: 240 } });
  afterAll(() => h.close());

  it('messagesByIds fails with UNSUPPORTED_BY_SERVER (needs 300) without asking for messages', async () => {
    const { data, errors } = await h.gql('{ messagesByIds(ids: [1, 2]) { zulipId } }', {}, AS_HAMLET);
    expect(data).toEqual({ messagesByIds: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 300, featureLevel: 240 });
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
  });

  it('narrows with `stream` (before 250) and an integer `id` operand (since 194)', async () => {
    const general = h.emulator.store.channelByName('general')!;
    const { errors } = await h.gql('query($n: NarrowInput) { messages(narrow: $n, last: 2) { nodes { zulipId } } }', { n: { channelId: general.stream_id, id: 3 } }, AS_HAMLET);
    expect(errors).toBeUndefined();
    const sent = h.upstreamRequests.filter((r) => r.path === 'messages').at(-1)!;
    expect(JSON.parse(sent.query.narrow!)).toEqual([
      { operator: 'stream', operand: general.stream_id },
      { operator: 'id', operand: 3 },
    ]);
  });
});
