/**
 * Message mutations end to end: GraphQL → gateway → REST → emulator, checked against the emulator's
 * own state and the upstream round-trips each one costs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { addChannel, addUser, insertMessage, subscribe } from '../../../../src/emulator/factory.js';
import { demoUser } from '../../../../src/emulator/seed.js';
import { createHarness } from '../../../helpers/harness.js';
import { AS_HAMLET, HAMLET, allMessageIds } from './shared.js';

describe('mutations', () => {
  const h = createHarness({ emulatorSettings: { moveMessagesWithinStreamLimitSeconds: 3600 } });
  afterAll(() => h.close());
  const store = h.emulator.store;

  it('sendMessage to a channel and to users, then reads the message back through the loader', async () => {
    const general = store.channelByName('general')!;
    const { data, errors } = await h.gql<{ sendMessage: { messageId: number; message: { content: string; topic: string; channel: { name: string }; sender: { fullName: string } } } }>(
      'mutation($c: Long!) { sendMessage(channelId: $c, topic: "gateway", content: "Hello **there**") { messageId message { content topic channel { name } sender { fullName } } } }',
      { c: general.stream_id },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const sent = store.messages.get(data!.sendMessage.messageId)!;
    expect(sent).toMatchObject({ content: 'Hello **there**', topic: 'gateway', stream_id: general.stream_id });
    expect(data!.sendMessage.message).toEqual({
      content: sent.rendered_content,
      topic: 'gateway',
      channel: { name: 'general' },
      sender: { fullName: 'King Hamlet' },
    });

    const iago = store.userByEmail(demoUser('iago').email)!;
    h.resetUpstreamRequests();
    const dm = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation($to: [Long!]!) { sendMessage(to: $to, content: "psst") { messageId } }',
      { to: [iago.user_id] },
      AS_HAMLET,
    );
    expect(dm.errors).toBeUndefined();
    expect(store.messages.get(dm.data!.sendMessage.messageId)).toMatchObject({ type: 'private', content: 'psst' });
    const post = h.upstreamRequests.find((r) => r.method === 'POST')!;
    expect(post.path).toBe('messages');
  });

  it('sendMessage by channel name, even a name made of digits', async () => {
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    const digits = addChannel(store, { name: '2024' }, Date.now());
    subscribe(store, digits.stream_id, hamletId);
    const { data, errors } = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation { sendMessage(channelName: "2024", topic: "plans", content: "by name") { messageId } }',
      {},
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(store.messages.get(data!.sendMessage.messageId)).toMatchObject({ stream_id: digits.stream_id, topic: 'plans' });
  });

  it('sendMessage refuses an ambiguous destination and maps upstream refusals', async () => {
    const bad = await h.gql('mutation { sendMessage(channelId: 1, to: [2], content: "x") { messageId } }', {}, AS_HAMLET);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const missing = await h.gql('mutation { sendMessage(channelName: "no such channel", topic: "t", content: "x") { messageId } }', {}, AS_HAMLET);
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', route: 'send-message' });
  });

  it('editMessage changes content and reports detached uploads', async () => {
    const mine = insertMessage(store, { sender_id: store.userByEmail(HAMLET.email)!.user_id, stream_id: store.channelByName('general')!.stream_id, topic: 'edits', content: 'before', timestamp: Math.floor(Date.now() / 1000) });
    const { data, errors } = await h.gql<{ editMessage: { __typename: string; messageId: number; detachedUploads: unknown[]; message: { rawContent: string; lastEditTimestamp: number | null } } }>(
      'mutation($id: Long!) { editMessage(messageId: $id, content: "after") { __typename ... on EditMessagePayload { messageId detachedUploads { zulipId } message { rawContent lastEditTimestamp } } } }',
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
      'mutation($c: Long!) { sendMessage(channelId: $c, topic: "all hands", content: "Hello @**all**") { messageId } }',
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
    const { data, errors } = await h.gql<{ updateMessageFlags: { messageIds: number[]; messages: { zulipId: number; starred: boolean }[] } }>(
      'mutation($ids: [Long!]!) { updateMessageFlags(messageIds: $ids, op: ADD, flag: STARRED) { messageIds messages { zulipId starred } } }',
      { ids: targets },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect([...data!.updateMessageFlags.messageIds].sort()).toEqual([...targets].sort());
    expect(data!.updateMessageFlags.messages).toEqual(targets.map((id) => ({ zulipId: id, starred: true })));
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
