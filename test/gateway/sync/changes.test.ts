/**
 * Stamps and `changes(since:)` through the gateway's HTTP handler against the emulator
 * (docs/mobile-sync.md): every kind of change arrives compacted with no upstream call, a stamp
 * past retention (injected clock) or purged asks for a resync, and a query's stamp resumes a
 * subscription without losing or repeating an event while messages flow.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import type { DirectoryClock } from '../../../src/gateway/directory/counters.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import { basicAuth, setupHarness, TEST_LIVE_DIRECTORY, type Harness } from '../../helpers/harness.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { caughtUp } from '../../helpers/unreads.js';
import { until } from '../../helpers/wait.js';

const LOGIN = 'desdemona';

/** A REST call to the emulator as `login` (another client of the same user, or another user). */
async function api(h: Harness, login: string, method: string, path: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const url = `${h.zulipUrl}/api/v1/${path}${method === 'GET' ? `?${body}` : ''}`;
  const response = await h.emulator.fetch(
    new Request(url, {
      method,
      headers: { authorization: basicAuth(demoUser(login)), ...(method !== 'GET' && { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(method !== 'GET' && { body }),
    }),
  );
  const json = (await response.json()) as Record<string, unknown>;
  if (json.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

async function send(h: Harness, login: string, topic: string, content: string, channel = 'general'): Promise<number> {
  return (await api(h, login, 'POST', 'messages', { type: 'stream', to: channel, topic, content })).id as number;
}

/** Moves without the notification bot's messages, so that the new messages are only the test's. */
const QUIET = { send_notification_to_old_thread: false, send_notification_to_new_thread: false };

const CHANGES = /* GraphQL */ `
  query Changes($since: String!, $first: Int) {
    changes(since: $since) {
      stamp resyncRequired
      messages(first: $first) {
        created { zulipId content topic channel { zulipId } starred }
        conversations { type channelId topic newMessages hasMore before }
        edited { messageId content topic channelId }
        deletedIds
      }
      flags { flag set cleared }
      reactions { messageId userId emojiName added }
      unreads { total }
      users { changed { zulipId fullName } removedIds }
      channels { changed { zulipId description } removedIds }
      userGroups { changed { zulipId name } removedIds }
      subscriptions { changed { color channel { zulipId } } removedIds }
      settings { name value }
      otherEvents
    }
  }
`;

interface ChangesData {
  changes: {
    stamp: string | null;
    resyncRequired: boolean;
    messages: {
      created: { zulipId: number; content: string; topic: string; channel: { zulipId: number } | null; starred: boolean }[];
      conversations: { type: string; channelId: number | null; topic: string | null; newMessages: number; hasMore: boolean; before: string | null }[];
      edited: { messageId: number; content: string | null; topic: string | null; channelId: number | null }[];
      deletedIds: number[];
    };
    flags: { flag: string; set: number[]; cleared: number[] }[];
    reactions: { messageId: number; userId: number; emojiName: string; added: boolean }[];
    unreads: { total: number } | null;
    users: { changed: { zulipId: number; fullName: string }[]; removedIds: number[] };
    channels: { changed: { zulipId: number; description: string }[]; removedIds: number[] };
    userGroups: { changed: { zulipId: number; name: string }[]; removedIds: number[] };
    subscriptions: { changed: { color: string; channel: { zulipId: number } }[]; removedIds: number[] };
    settings: { name: string; value: unknown }[];
    otherEvents: { type: string }[];
  };
}

function connectionOf(h: Harness, login: string): ZulipConnection {
  const { email, apiKey } = demoUser(login);
  return new ZulipConnection({ baseUrl: h.zulipUrl, credentials: { email, apiKey } });
}

async function stampOf(h: Harness, query = '{ stamp me { zulipId } }'): Promise<string> {
  const result = await h.gql(query, {}, { as: demoUser(LOGIN).email });
  expect(result.errors).toBeUndefined();
  expect(typeof result.extensions?.stamp).toBe('string');
  return result.extensions!.stamp as string;
}

async function changes(h: Harness, since: string, first?: number): Promise<ChangesData['changes']> {
  const result = await h.gql<ChangesData>(CHANGES, { since, ...(first !== undefined && { first }) }, { as: demoUser(LOGIN).email });
  expect(result.errors).toBeUndefined();
  expect(result.extensions?.stamp).toBe(result.data!.changes.stamp ?? undefined);
  return result.data!.changes;
}

describe.skipIf(!TEST_LIVE_DIRECTORY)('changes(since:)', () => {
  it('answers every kind of change compacted to final states, with 0 upstream calls', async () => {
    const h = setupHarness();
    await h.ready;
    const general = h.channelId('general');
    // Before the stamp: messages that will be edited, moved, deleted, flagged and reacted to.
    const older = await send(h, 'hamlet', 'old', 'to be edited');
    const toMove = await send(h, 'hamlet', 'old', 'to be moved');
    const toDelete = await send(h, 'hamlet', 'old', 'to be deleted');
    await caughtUp(h, LOGIN);
    const since = await stampOf(h);
    const nothing = await changes(h, since);
    expect(nothing.resyncRequired).toBe(false);
    expect(nothing.messages.created).toEqual([]);

    const created = [await send(h, 'hamlet', 'sync a', 'a1'), await send(h, 'hamlet', 'sync a', 'a2'), await send(h, 'hamlet', 'sync a', 'a3')];
    const other = await send(h, 'hamlet', 'sync b', 'b1');
    const fleeting = await send(h, 'hamlet', 'sync b', 'created then deleted');
    await api(h, 'hamlet', 'DELETE', `messages/${fleeting}`);
    for (let i = 1; i <= 5; i++) await api(h, 'hamlet', 'PATCH', `messages/${older}`, { content: `edit ${i}` });
    for (let i = 1; i <= 3; i++) await api(h, 'hamlet', 'PATCH', `messages/${created[0]}`, { content: `a1 edit ${i}` });
    await api(h, 'hamlet', 'PATCH', `messages/${toMove}`, { topic: 'moved here', propagate_mode: 'change_one', ...QUIET });
    await api(h, 'hamlet', 'PATCH', `messages/${created[1]}`, { topic: 'sync c', propagate_mode: 'change_one', ...QUIET });
    await api(h, 'hamlet', 'DELETE', `messages/${toDelete}`);
    // Flags from another client of the same user: set, cleared, set again is one "set".
    await api(h, LOGIN, 'POST', 'messages/flags', { messages: [older], op: 'add', flag: 'starred' });
    await api(h, LOGIN, 'POST', 'messages/flags', { messages: [older], op: 'remove', flag: 'starred' });
    await api(h, LOGIN, 'POST', 'messages/flags', { messages: [older], op: 'add', flag: 'starred' });
    await api(h, LOGIN, 'POST', 'messages/flags', { messages: [older, toMove], op: 'add', flag: 'read' });
    await api(h, 'hamlet', 'POST', `messages/${older}/reactions`, { emoji_name: 'octopus' });
    await api(h, LOGIN, 'PATCH', `streams/${general}`, { description: 'For everything, and more' });
    await api(h, LOGIN, 'POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id: general, property: 'color', value: '#123456' }] });
    await api(h, LOGIN, 'PATCH', 'settings', { twenty_four_hour_time: true });
    await api(h, 'hamlet', 'PATCH', 'settings', { full_name: 'Prince Hamlet' });
    await caughtUp(h, LOGIN);

    h.resetUpstreamRequests();
    const c = await changes(h, since, 1);
    expect(h.upstreamRequests).toEqual([]);
    expect(c.resyncRequired).toBe(false);
    expect(c.stamp).not.toBe(since);

    // New messages: the newest `first` (1) per conversation, at their final place and content.
    const newIds = c.messages.created.map((m) => m.zulipId);
    expect(newIds).toEqual([created[1], created[2], other].sort((a, b) => a - b));
    expect(newIds).not.toContain(fleeting);
    expect(c.messages.created.find((m) => m.zulipId === created[1])!.topic).toBe('sync c');
    const a = c.messages.conversations.find((k) => k.topic === 'sync a')!;
    expect(a).toMatchObject({ type: 'CHANNEL', channelId: general, newMessages: 2, hasMore: true });
    expect(a.before).toEqual(expect.any(String));
    // Older messages: five edits are one entry with the final content; a move is where it is now.
    expect(c.messages.edited).toHaveLength(2);
    expect(c.messages.edited.find((e) => e.messageId === older)!.content).toContain('edit 5');
    expect(c.messages.edited.find((e) => e.messageId === toMove)!.topic).toBe('moved here');
    expect(c.messages.deletedIds).toEqual([toDelete]);
    expect(c.flags.find((f) => f.flag === 'STARRED')).toEqual({ flag: 'STARRED', set: [older], cleared: [] });
    expect(c.flags.find((f) => f.flag === 'READ')!.set).toEqual([older, toMove].sort((x, y) => x - y));
    expect(c.reactions).toEqual([{ messageId: older, userId: h.userId('hamlet'), emojiName: 'octopus', added: true }]);
    expect(c.unreads!.total).toEqual(expect.any(Number));
    expect(c.users.changed).toEqual([{ zulipId: h.userId('hamlet'), fullName: 'Prince Hamlet' }]);
    expect(c.channels.changed).toEqual([{ zulipId: general, description: 'For everything, and more' }]);
    expect(c.subscriptions.changed).toEqual([{ color: '#123456', channel: { zulipId: general } }]);
    expect(c.settings).toContainEqual({ name: 'twentyFourHourTime', value: true });

    // From the new stamp: nothing more.
    const after = await changes(h, c.stamp!);
    expect(after.messages.created).toEqual([]);
    expect(after.messages.edited).toEqual([]);
    expect(after.users.changed).toEqual([]);
  }, 60_000);

  it('asks for a resync for a malformed or unknown stamp, past retention, and once purged', async () => {
    let now = 1_000_000;
    const clock: DirectoryClock = { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined };
    const h = setupHarness({ gateway: { sync: { retentionMs: 3_600_000, clock } } });
    await h.ready;
    const malformed = await changes(h, 'not a stamp');
    expect(malformed).toMatchObject({ resyncRequired: true, messages: { created: [] }, unreads: null });
    const since = await stampOf(h);
    const other = Buffer.from('cg1:someothergeneration:3', 'utf8').toString('base64url');
    expect((await changes(h, other)).resyncRequired).toBe(true);
    expect((await changes(h, since)).resyncRequired).toBe(false); // used: retained from now for an hour

    await send(h, 'hamlet', 'while asleep', 'one');
    await caughtUp(h, LOGIN);
    now += 59 * 60_000;
    h.gateway.sync!.sweep();
    const within = await changes(h, since); // extends the retention to an hour from now
    expect(within.resyncRequired).toBe(false);
    expect(within.messages.created).toHaveLength(1);

    now += 61 * 60_000;
    h.gateway.sync!.sweep();
    const past = await changes(h, since);
    expect(past.resyncRequired).toBe(true);
    expect(past.messages.created).toEqual([]);
    // The new stamp works.
    await send(h, 'hamlet', 'after', 'two');
    await caughtUp(h, LOGIN);
    const fresh = await changes(h, past.stamp!);
    expect(fresh.resyncRequired).toBe(false);
    expect(fresh.messages.created.map((m) => m.content)).toEqual([expect.stringContaining('two')]);

    // Purged (the revocation path on 401): every earlier stamp needs a resync, and nothing is kept.
    h.gateway.sync!.purge(connectionOf(h, LOGIN));
    expect(h.gateway.sync!.bytesOf(connectionOf(h, LOGIN))).toBe(0);
    expect((await changes(h, fresh.stamp!)).resyncRequired).toBe(true);
  }, 60_000);

  it('a query\'s stamp resumes a subscription: nothing lost, nothing twice, while messages flow', async () => {
    const h = setupHarness();
    await h.ready;
    await caughtUp(h, LOGIN);
    const sent: number[] = [];
    let sending = true;
    const flow = (async () => {
      for (let i = 0; i < 60 && sending; i++) sent.push(await send(h, 'hamlet', 'flow', `m${i}`));
    })();
    await until(() => sent.length >= 10, 10_000, 'ten messages sent');
    const query = await h.gql<{ messages: { edges: { node: { zulipId: number } }[] } }>(
      '{ messages(last: 100, narrow: { topic: "flow", channelId: ' + h.channelId('general') + ' }) { edges { node { zulipId } } } }',
      {},
      { as: demoUser(LOGIN).email },
    );
    expect(query.errors).toBeUndefined();
    const stamp = query.extensions!.stamp as string;
    await until(() => sent.length >= 20, 10_000, 'ten more messages sent');
    const stream = sseSubscribe<{ messages: { message?: { zulipId: number } } }>(
      h.url,
      'subscription($after: String) { messages(after: $after) { ... on MessageEvent { message { zulipId } } } }',
      { after: stamp },
      { authorization: basicAuth(demoUser(LOGIN)) },
    );
    sending = false;
    await flow;
    const fromQuery = query.data!.messages.edges.map((e) => e.node.zulipId);
    const fromSubscription = () => stream.results.map((r) => r.data?.messages.message?.zulipId).filter((id): id is number => id !== undefined);
    await until(() => fromQuery.length + fromSubscription().length >= sent.length, 10_000, 'every message by query or subscription');
    stream.close();
    expect([...fromQuery, ...fromSubscription()].sort((a, b) => a - b)).toEqual([...sent].sort((a, b) => a - b));
    // Every subscription event carries its stamp (its cursor).
    for (const result of stream.results) expect(result.extensions?.stamp).toEqual(expect.any(String));
  }, 60_000);
});
