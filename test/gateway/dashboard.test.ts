/**
 * The dashboard bound: the newest messages with each sender's name, avatar and role, each
 * channel's name and description, and each reaction's user name cost at most 3 upstream requests
 * (GET /messages, GET /users, GET /streams) however many distinct senders and channels the page
 * holds. The organization is grown through the emulator's store so that a page has dozens of both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addChannel, addUser, insertMessage, subscribe } from '../../src/emulator/factory.js';
import { DEMO_USERS } from '../../src/emulator/seed.js';
import { createHarness, TEST_LIVE_DIRECTORY } from '../helpers/harness.js';

const DASHBOARD = /* GraphQL */ `
  query Dashboard($last: Int!) {
    messages(last: $last) {
      edges {
        cursor
        node {
          zulipId
          type
          senderId
          channelId
          timestamp
          content
          sender { fullName avatarUrl role }
          channel { name description }
          directMessageRecipients { userId user { fullName } }
          reactions { emojiName userId user { fullName } }
        }
      }
      pageInfo { hasPreviousPage hasNextPage endCursor }
    }
  }
`;

interface DashboardNode {
  id: number;
  type: 'CHANNEL' | 'DIRECT';
  senderId: number;
  channelId: number | null;
  sender: { fullName: string; avatarUrl: string | null; role: string } | null;
  channel: { name: string; description: string } | null;
  directMessageRecipients: { userId: number; user: { fullName: string } | null }[] | null;
  reactions: { emojiName: string; userId: number; user: { fullName: string } | null }[];
}

interface DashboardData {
  messages: { edges: { cursor: string; node: DashboardNode }[]; pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean } };
}

const SENDERS = 45;
const CHANNELS = 12;
const MESSAGES = 140;

describe('dashboard query', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const viewer = DEMO_USERS[0]!; // the harness's default caller (the owner)

  beforeAll(() => {
    const store = h.emulator.store;
    const now = Date.now();
    const viewerId = store.userByEmail(viewer.email)!.user_id;
    const senders = Array.from({ length: SENDERS }, (_, i) =>
      addUser(store, { full_name: `Bench Sender ${i}`, delivery_email: `sender${i}@zulip.example.com` }, now),
    );
    const channels = Array.from({ length: CHANNELS }, (_, i) =>
      addChannel(store, { name: `dash-${i}`, description: `Dashboard channel **${i}**` }, now),
    );
    for (const channel of channels) {
      subscribe(store, channel.stream_id, viewerId);
      for (const sender of senders) subscribe(store, channel.stream_id, sender.user_id);
    }
    const base = Math.floor(now / 1000) - MESSAGES;
    for (let i = 0; i < MESSAGES; i++) {
      const sender = senders[i % SENDERS]!;
      const direct = i % 10 === 3;
      const message = insertMessage(store, {
        sender_id: sender.user_id,
        ...(direct
          ? { to_user_ids: [viewerId] }
          : { stream_id: channels[i % CHANNELS]!.stream_id, topic: `topic ${i % 4}` }),
        content: `Message **${i}**`,
        timestamp: base + i,
      });
      // Reactions from users who sent nothing on this page, so they add distinct users too.
      message.reactions.push({
        emoji_name: 'tada',
        emoji_code: '1f389',
        reaction_type: 'unicode_emoji',
        user_id: senders[(i * 7 + 3) % SENDERS]!.user_id,
      });
    }
  });

  it('costs at most 3 upstream requests, whatever the number of senders and channels', async () => {
    for (const last of [5, 100]) {
      h.resetUpstreamRequests();
      const { data, errors, extensions } = await h.gql<DashboardData>(DASHBOARD, { last });
      expect(errors).toBeUndefined();
      const nodes = data!.messages.edges.map((e) => e.node);
      expect(nodes).toHaveLength(last);
      expect(data!.messages.pageInfo.hasPreviousPage).toBe(true);

      const calls = h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
      expect(calls.length).toBeLessThanOrEqual(3);
      // Per request: one call each. With the live directory, senders, channels and reaction users
      // come from it once it has loaded (test/gateway/directory/live.test.ts: then GET /messages alone).
      if (TEST_LIVE_DIRECTORY) expect(calls.every((c) => ['GET messages', 'GET users', 'GET streams'].includes(c))).toBe(true);
      else expect(new Set(calls)).toEqual(new Set(['GET messages', 'GET users', 'GET streams']));
      expect(calls).toContain('GET messages');
      expect(extensions?.upstreamRequests).toBe(calls.length);

      if (last === 100) {
        const senders = new Set(nodes.map((n) => n.senderId));
        const channels = new Set(nodes.map((n) => n.channelId).filter((id) => id !== null));
        const reactors = new Set(nodes.flatMap((n) => n.reactions.map((r) => r.userId)));
        expect(senders.size).toBeGreaterThanOrEqual(SENDERS);
        expect(channels.size).toBe(CHANNELS);
        expect(reactors.size).toBeGreaterThan(20);
      }
    }
  });

  it('resolves every link to the right record', async () => {
    const { data, errors } = await h.gql<DashboardData>(DASHBOARD, { last: 100 });
    expect(errors).toBeUndefined();
    const store = h.emulator.store;
    for (const node of data!.messages.edges.map((e) => e.node)) {
      const sender = store.users.get(node.senderId)!;
      expect(node.sender).toMatchObject({ fullName: sender.full_name, role: 'MEMBER' });
      expect(node.sender!.avatarUrl).toMatch(/^https?:\/\//);
      for (const reaction of node.reactions) expect(reaction.user?.fullName).toBe(store.users.get(reaction.userId)!.full_name);
    }
  });

  it('resolves `channel` per message on a page that mixes direct and channel messages', async () => {
    const { data, errors } = await h.gql<DashboardData>(DASHBOARD, { last: 100 });
    expect(errors).toBeUndefined();
    const nodes = data!.messages.edges.map((e) => e.node);
    const direct = nodes.filter((n) => n.type === 'DIRECT');
    const inChannels = nodes.filter((n) => n.type === 'CHANNEL');
    expect(direct.length).toBeGreaterThan(5);
    expect(inChannels.length).toBeGreaterThan(50);
    for (const n of direct) {
      expect(n.channel).toBeNull();
      expect(n.channelId).toBeNull();
      const names = n.directMessageRecipients!.map((r) => r.user?.fullName);
      expect(names).toContain(h.emulator.store.users.get(n.senderId)!.full_name);
      expect(names).toContain(viewer.fullName);
    }
    for (const n of inChannels) {
      const channel = h.emulator.store.channels.get(n.channelId!)!;
      expect(n.channel).toEqual({ name: channel.name, description: channel.description });
      expect(n.directMessageRecipients).toBeNull();
    }
  });
});
