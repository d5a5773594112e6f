/**
 * Each live resource (live/resources.ts), changed upstream by another user, pushes a new result to
 * a `@live` query that reads it, over graphql-ws against a live emulator on loopback. What a query
 * reads comes from its fields' `live` facts and its entity types' `zulip.entity` (gateway/facts.ts).
 * Every collection of COLLECTIONS and every entity kind has a case: a new one fails this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../../src/gateway/live/resources.js';
import { collect, startLiveGateway, until, type Live } from '../../helpers/ws-client.js';

const LATE_MS = 20_000;
let live: Live;

beforeAll(async () => {
  live = await startLiveGateway({ gateway: {} });
});
afterAll(() => live.close());

async function gql<T = Record<string, any>>(login: string, query: string): Promise<T> {
  const response = await fetch(live.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: live.auth(login) },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  expect(body.errors, query).toBeUndefined();
  return body.data!;
}

/** Waits until hamlet's one queue is polled, so that the change made next reaches the query. */
async function polled(): Promise<void> {
  await until(() => {
    const queues = live.emulator.queues.queuesOf(live.userId('hamlet'));
    return live.hub.stats().lingering === 0 && queues.length === 1 && queues[0]!.parked !== null;
  }, 5000, 'hamlet\u2019s queue polled');
}

const general = () => live.emulator.store.channelByName('general')!.stream_id;
let groupId = 0;
let messageId = 0;

interface Case {
  /** The `@live` query hamlet keeps open. */
  query: () => string;
  /** The change, made upstream by another user (iago, an administrator) or by hamlet elsewhere. */
  change: () => Promise<unknown>;
}

const CASES: Record<string, Case> = {
  Users: {
    query: () => 'query @live { users { zulipId } }',
    change: () => gql('iago', `mutation { deactivateUser(user: { id: ${live.userId('othello')} }) { zulipId } }`),
  },
  Channels: {
    query: () => 'query @live { channels { name } }',
    change: () => gql('iago', 'mutation { subscribe(channels: [{ name: "live new channel" }]) { __typename } }'),
  },
  Subscriptions: {
    query: () => 'query @live { subscriptions { channelId color } }',
    change: () => gql('hamlet', `mutation { updateSubscriptionProperty(change: { channelId: ${general()}, color: "#654321" }) { color } }`),
  },
  UserGroups: {
    // The gap of issue 26: the members of a group were never re-run.
    query: () => `query @live { userGroupMembers(groupId: ${groupId}) { userIds } }`,
    change: () => gql('iago', `mutation { updateUserGroupMembers(groupId: ${groupId}, add: [${live.userId('cordelia')}]) { zulipId } }`),
  },
  Presence: {
    query: () => 'query @live { presences { user { zulipId } } }',
    // A user with no presence yet: coming online sends the event (Zulip sends none for an update within a minute).
    change: () => gql('shiva', 'mutation { reportPresence(status: ACTIVE) { __typename } }'),
  },
  Topics: {
    query: () => `query @live { topics(channelId: ${general()}) { name } }`,
    change: () => gql('iago', 'mutation { sendMessage(channelName: "general", topic: "live new topic", content: "a topic") { messageId } }'),
  },
  Unreads: {
    query: () => 'query @live { unreads { total } }',
    change: () => gql('iago', 'mutation { sendMessage(channelName: "general", topic: "live", content: "unread") { messageId } }'),
  },
  'User:<id>': {
    query: () => `query @live { user(id: ${live.userId('iago')}) { fullName } }`,
    change: () => gql('iago', 'mutation { updateSettings(input: { fullName: "Iago, live" }) { __typename } }'),
  },
  'Channel:<id>': {
    query: () => `query @live { channel(id: ${general()}) { description } }`,
    change: () => gql('iago', `mutation { updateChannel(id: ${general()}, description: "live description") { zulipId } }`),
  },
  'Message:<id>': {
    query: () => `query @live { message(id: ${messageId}) { reactions { emojiName } } }`,
    change: () => gql('iago', `mutation { addReaction(messageId: ${messageId}, emojiName: "octopus") { __typename } }`),
  },
  'UserGroup:<id>': {
    query: () => `query @live { userGroup(id: ${groupId}) { name } }`,
    change: () => gql('iago', `mutation { updateUserGroup(id: ${groupId}, name: "live group renamed") { __typename } }`),
  },
  'Narrow:*': {
    query: () => 'query @live { messages(last: 5) { edges { node { zulipId } } } }',
    change: () => gql('iago', 'mutation { sendMessage(channelName: "general", topic: "live", content: "a new message") { messageId } }'),
  },
};

describe('every live resource pushes on change', () => {
  beforeAll(async () => {
    const created = await gql<{ createUserGroup: { zulipId: number } }>(
      'iago',
      `mutation { createUserGroup(name: "live group", description: "live", members: [${live.userId('hamlet')}]) { zulipId } }`,
    );
    groupId = created.createUserGroup.zulipId;
    const sent = await gql<{ sendMessage: { messageId: number } }>('iago', 'mutation { sendMessage(channelName: "general", topic: "live", content: "react here") { messageId } }');
    messageId = sent.sendMessage.messageId;
  });

  it('has a case for every collection and entity kind', () => {
    for (const name of COLLECTIONS) expect(CASES).toHaveProperty([name]);
    for (const entity of ['User', 'Channel', 'Message', 'UserGroup']) expect(CASES).toHaveProperty([`${entity}:<id>`]);
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: a change upstream pushes a new result`, async () => {
      const hamlet = live.client('hamlet');
      try {
        const sub = collect(hamlet, c.query());
        const [first] = await sub.waitFor(1, LATE_MS);
        expect(first!.errors).toBeUndefined();
        await polled();
        await c.change();
        const [, second] = await sub.waitFor(2, LATE_MS);
        expect(second!.errors).toBeUndefined();
      } finally {
        await hamlet.dispose();
      }
    });
  }
});
