/**
 * Unread counts end to end: `unreads`, `Channel.unreadCount` and `Topic.unreadCount` against the
 * emulator, after messages, reads, mutes, moves and deletions done through the emulator's REST API
 * by other users and through the gateway by the caller. "What Zulip would compute" is the
 * emulator's own `unread_msgs`, computed afresh from its store after each step.
 *
 * With the live directory on (the default), the counts are kept by the caller's queue: 0 upstream
 * calls once loaded. With CHATGRAPH_TEST_LIVE_DIRECTORY=off, each request registers a queue of its
 * own and deletes it (loaders/unreads.ts): 3 upstream calls.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { sendMessage, updateMessage, updateMessageFlags } from '../../../src/zulip/routes/messages.js';
import { subscribe, updateSubscriptionSettings } from '../../../src/zulip/routes/subscriptions.js';
import { setupHarness } from '../../helpers/harness.js';
import { caughtUp, expectAsZulip, fromEmulator, LINKED, rest, UNREADS, UNREADS_CALLS, unreadsOf } from '../../helpers/unreads.js';

describe('unreads', () => {
  it('equal what Zulip computes after messages, reads, mutes, moves and deletions', async () => {
    const h = setupHarness();
    const hamlet = h.userId('hamlet');
    const [general, design] = [h.channelId('general'), h.channelId('design')];
    const [othello, iago, cordelia] = [rest(h, 'othello'), rest(h, 'iago'), rest(h, 'cordelia')];
    const as = { as: demoUser('hamlet').email };

    // Loaded from the registration: the seed's unreads.
    const seeded = await expectAsZulip(h, 'hamlet');
    expect(seeded.total).toBeGreaterThan(0);

    // New messages: channel, one-on-one, group, a direct mention, a wildcard mention.
    const plain = await sendMessage(othello, { type: 'stream', to: general, topic: 'plans', content: 'Plans for tonight.' });
    const mention = await sendMessage(iago, { type: 'stream', to: general, topic: 'plans', content: 'What do you say, @**King Hamlet**?' });
    await sendMessage(cordelia, { type: 'stream', to: design, topic: 'fonts', content: 'Serif or not, @**all**?' });
    await sendMessage(othello, { type: 'private', to: [hamlet], content: 'A word in private.' });
    await sendMessage(cordelia, { type: 'private', to: [hamlet, h.userId('othello')], content: 'The three of us.' });
    const afterSends = await expectAsZulip(h, 'hamlet');
    expect(afterSends.total).toBe(seeded.total + 5);
    expect(afterSends.mentionedMessageIds).toContain(mention.id);
    const linked = await h.gql<{
      unreads: { channels: { channelId: number; channel: { zulipId: number; name: string } }[]; directMessages: { userIds: number[]; users: { zulipId: number }[] }[] };
    }>(LINKED, {}, as);
    expect(linked.errors).toBeUndefined();
    expect(linked.data!.unreads.channels.map((c) => c.channel.name)).toContain('general');
    for (const c of linked.data!.unreads.channels) expect(c.channel.zulipId).toBe(c.channelId);
    for (const dm of linked.data!.unreads.directMessages) expect(dm.users.map((u) => u.zulipId)).toEqual(dm.userIds);

    // The caller mutes a topic (through the gateway) and a channel (straight through REST): muted
    // messages leave the total, a wildcard mention in them leaves the mentions, a direct one stays.
    const muted = await h.gql(`mutation { setTopicVisibility(channelId: ${general}, topic: "plans", policy: MUTED) { topic } }`, {}, as);
    expect(muted.errors).toBeUndefined();
    await updateSubscriptionSettings(rest(h, 'hamlet'), { subscriptionData: [{ streamId: design, property: 'is_muted', value: true }] });
    const afterMutes = await expectAsZulip(h, 'hamlet');
    expect(afterMutes.channels.find((c) => c.channelId === general)!.topics.find((t) => t.topic === 'plans')!.muted).toBe(true);
    expect(afterMutes.mentionedMessageIds).toContain(mention.id);

    // Reads through the gateway: marking read, then one unread again.
    const read = await h.gql(`mutation { updateMessageFlags(messageIds: [${plain.id}, ${mention.id}], op: ADD, flag: READ) { messageIds } }`, {}, as);
    expect(read.errors).toBeUndefined();
    await expectAsZulip(h, 'hamlet');
    const unread = await h.gql(`mutation { updateMessageFlags(messageIds: [${mention.id}], op: REMOVE, flag: READ) { messageIds } }`, {}, as);
    expect(unread.errors).toBeUndefined();
    await expectAsZulip(h, 'hamlet');

    // Moves: a whole topic renamed (out of the muted topic), then moved to another channel.
    const more = await sendMessage(othello, { type: 'stream', to: general, topic: 'plans', content: 'And tomorrow?' });
    await updateMessage(iago, { messageId: more.id, topic: 'schedule', propagateMode: 'change_all', sendNotificationToOldThread: false, sendNotificationToNewThread: false });
    await expectAsZulip(h, 'hamlet');
    await updateMessage(iago, { messageId: more.id, streamId: design, propagateMode: 'change_all', sendNotificationToOldThread: false, sendNotificationToNewThread: false });
    const afterMoves = await expectAsZulip(h, 'hamlet');
    expect(afterMoves.channels.find((c) => c.channelId === design)!.topics.map((t) => t.topic)).toContain('schedule');

    // Deletion, as the caller sees it: the topic moves to a private channel they cannot read.
    await subscribe(iago, { subscriptions: [{ name: 'back room' }], inviteOnly: true });
    const backRoom = h.channelId('back room');
    await updateMessage(iago, { messageId: more.id, streamId: backRoom, propagateMode: 'change_all', sendNotificationToOldThread: false, sendNotificationToNewThread: false });
    const afterDelete = await expectAsZulip(h, 'hamlet');
    expect(JSON.stringify(afterDelete)).not.toContain(String(more.id));

    // Everything read at once (`all`), then the caller's counts are empty.
    await updateMessageFlags(rest(h, 'hamlet'), { messages: afterDelete.channels.flatMap((c) => c.topics.flatMap((t) => t.messageIds)), op: 'add', flag: 'read' });
    const end = await expectAsZulip(h, 'hamlet');
    expect(end.channels).toEqual([]);
  });

  it('rise by exactly one when another user sends a readable message, and fall when the caller reads it', async () => {
    const h = setupHarness();
    const as = { as: demoUser('hamlet').email };
    const before = await expectAsZulip(h, 'hamlet');
    const sent = await sendMessage(rest(h, 'othello'), { type: 'stream', to: h.channelId('general'), topic: 'news', content: 'Fresh news.' });

    await caughtUp(h, 'hamlet');
    h.resetUpstreamRequests();
    const risen = await unreadsOf(h, 'hamlet');
    expect(risen.total).toBe(before.total + 1);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(UNREADS_CALLS);

    const read = await h.gql(`mutation { updateMessageFlags(messageIds: [${sent.id}], op: ADD, flag: READ) { messageIds } }`, {}, as);
    expect(read.errors).toBeUndefined();
    // Read-your-writes: the caller's next query sees its own read, without waiting in the test.
    h.resetUpstreamRequests();
    const fallen = await unreadsOf(h, 'hamlet');
    expect(fallen.total).toBe(before.total);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(UNREADS_CALLS);
  });

  it('are on channels and topics too', async () => {
    const h = setupHarness();
    const general = h.channelId('general');
    await sendMessage(rest(h, 'othello'), { type: 'stream', to: general, topic: 'news', content: 'One.' });
    await sendMessage(rest(h, 'othello'), { type: 'stream', to: general, topic: 'news', content: 'Two.' });
    await caughtUp(h, 'hamlet');
    const { data, errors } = await h.gql<{ channel: { unreadCount: number; topics: { name: string; unreadCount: number }[] } }>(
      `query { channel(id: ${general}) { unreadCount topics { name unreadCount } } }`,
      {},
      { as: demoUser('hamlet').email },
    );
    expect(errors).toBeUndefined();
    const fresh = fromEmulator(h, 'hamlet');
    const inGeneral = Object.entries(fresh.conversations).filter(([k]) => k.startsWith(`${general}/`));
    expect(data!.channel.unreadCount).toBe(inGeneral.reduce((n, [, ids]) => n + ids.length, 0));
    expect(data!.channel.topics.find((t) => t.name === 'news')!.unreadCount).toBe(2);
  });

  it('need credentials', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(UNREADS, {}, { as: null });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(h.upstreamRequests).toEqual([]);
    // Refused credentials: the refusal, without waiting for a directory that will never load.
    const refused = await h.gql(UNREADS, {}, { as: { email: demoUser('hamlet').email, apiKey: 'not-the-key' } });
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
