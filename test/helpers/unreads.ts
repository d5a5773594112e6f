/**
 * Unread-count helpers shared by the unreads tests: the gateway's answer and the emulator's own
 * `unread_msgs` (computed afresh from its store) in one comparable shape, and a wait until the
 * caller's directory has applied every event the emulator queued for them.
 */
import { expect } from 'vitest';
import { unreadMessages } from '../../src/emulator/routes/messages/index.js';
import { demoUser } from '../../src/emulator/seed.js';
import { sessionKey } from '../../src/gateway/events/hub.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import type { UnreadMessagesSnapshot } from '../../src/zulip/model/messages.js';
import { TEST_LIVE_DIRECTORY, type Harness } from './harness.js';
import { until } from './wait.js';

/** Upstream calls of one `unreads` request once warm: none from the directory, else register, own user and delete. */
export const UNREADS_CALLS = TEST_LIVE_DIRECTORY ? [] : ['POST register', 'GET users/me', 'DELETE events'];

export const UNREADS = /* GraphQL */ `
  query Unreads {
    unreads {
      total
      mentions
      mentionedMessageIds
      oldUnreadsMissing
      channels { channelId count unmutedCount topics { topic count muted messageIds } }
      directMessages { userIds count messageIds }
    }
  }
`;

/** The same with the linked channels and users (which cost their own lookups when the directory is off). */
export const LINKED = /* GraphQL */ `
  query Linked {
    unreads {
      channels { channelId channel { zulipId name } }
      directMessages { userIds users { zulipId fullName } }
    }
  }
`;

export interface UnreadsAnswer {
  unreads: {
    total: number;
    mentions: number;
    mentionedMessageIds: number[];
    oldUnreadsMissing: boolean;
    channels: {
      channelId: number;
      count: number;
      unmutedCount: number;
      topics: { topic: string; count: number; muted: boolean; messageIds: number[] }[];
    }[];
    directMessages: { userIds: number[]; count: number; messageIds: number[] }[];
  };
}

/** One shape for both sides: the total, the mentions, and the unread IDs by conversation. */
export interface Canonical {
  total: number;
  mentions: number[];
  conversations: Record<string, number[]>;
}

export function fromGateway(answer: UnreadsAnswer['unreads']): Canonical {
  const conversations: Record<string, number[]> = {};
  for (const channel of answer.channels) for (const t of channel.topics) conversations[`${channel.channelId}/${t.topic}`] = t.messageIds;
  for (const dm of answer.directMessages) conversations[`dm:${dm.userIds.join(',')}`] = dm.messageIds;
  return { total: answer.total, mentions: answer.mentionedMessageIds, conversations };
}

export function fromEmulator(h: Harness, login: string): Canonical {
  const self = h.userId(login);
  const fresh = unreadMessages(h.emulator.store, h.emulator.store.users.get(self)!, false) as unknown as UnreadMessagesSnapshot;
  const conversations: Record<string, number[]> = {};
  for (const s of fresh.streams) conversations[`${s.stream_id}/${s.topic}`] = s.unread_message_ids;
  for (const p of fresh.pms) conversations[`dm:${p.other_user_id}`] = p.unread_message_ids;
  for (const g of fresh.huddles) {
    conversations[`dm:${g.user_ids_string.split(',').map(Number).filter((u) => u !== self).join(',')}`] = g.unread_message_ids;
  }
  return { total: fresh.count, mentions: [...fresh.mentions].sort((a, b) => a - b), conversations };
}

/** A REST connection as a demo user, straight to the emulator (not through the gateway). */
export function rest(h: Harness, login: string): ZulipConnection {
  const { email, apiKey } = demoUser(login);
  return new ZulipConnection({ baseUrl: h.zulipUrl, fetch: (i, init) => h.emulator.fetch(new Request(i, init)), credentials: { email, apiKey } });
}

/**
 * Waits until every event the emulator queued for `login` has been applied by their directory (live
 * mode); with the directory off there is nothing to wait for: each request registers afresh.
 */
export async function caughtUp(h: Harness, login: string): Promise<void> {
  if (!TEST_LIVE_DIRECTORY) return;
  const { email, apiKey } = demoUser(login);
  const key = sessionKey(new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } }));
  // The first lookup starts the caller's queue; it is loaded by its registration.
  if (!h.gateway.directories?.registry.get(key)) await unreadsOf(h, login);
  const newest = () => Math.max(-1, ...h.emulator.queues.queuesOf(h.userId(login)).map((q) => q.nextEventId - 1));
  await until(() => {
    const directory = h.gateway.directories?.registry.get(key);
    return directory?.ready === true && directory.lastEventId >= newest();
  }, 5000, `${login}'s directory to apply its events`);
}

export async function unreadsOf(h: Harness, login: string): Promise<UnreadsAnswer['unreads']> {
  const { data, errors } = await h.gql<UnreadsAnswer>(UNREADS, {}, { as: demoUser(login).email });
  expect(errors).toBeUndefined();
  return data!.unreads;
}

/** Asserts the gateway's counts for `login` equal the emulator's fresh ones, at no upstream cost beyond UNREADS_CALLS. */
export async function expectAsZulip(h: Harness, login: string): Promise<UnreadsAnswer['unreads']> {
  await caughtUp(h, login);
  h.resetUpstreamRequests();
  const answer = await unreadsOf(h, login);
  expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(UNREADS_CALLS);
  expect(fromGateway(answer)).toEqual(fromEmulator(h, login));
  return answer;
}
