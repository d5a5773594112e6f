/**
 * Subscriptions end to end: real graphql-ws clients (and an SSE client) against the gateway on a
 * loopback port, with the emulator upstream on another loopback port. Events are caused by other
 * users' GraphQL mutations through the same gateway.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { TEST_LIVE_DIRECTORY } from '../../helpers/harness.js';
import { sseSubscribe } from '../../helpers/sse.js';
import { collect, startLiveGateway, until, type Live, type LiveOptions } from '../../helpers/ws-client.js';

const lives: Live[] = [];
afterEach(async () => {
  await Promise.all(lives.splice(0).map((live) => live.close()));
});

async function start(options: LiveOptions = {}): Promise<Live> {
  const live = await startLiveGateway(options);
  lives.push(live);
  return live;
}

/** A query or mutation over HTTP, as a demo user. */
async function gql<T = Record<string, any>>(live: Live, login: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(live.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: live.auth(login) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data!;
}

async function channelId(live: Live, name: string): Promise<number> {
  return [...live.emulator.store.channels.values()].find((c) => c.name === name)!.stream_id;
}

async function send(live: Live, login: string, channel: string, topic: string, content: string): Promise<number> {
  const data = await gql<{ sendMessage: { messageId: number } }>(
    live,
    login,
    'mutation($c: String!, $t: String!, $m: String!) { sendMessage(channelName: $c, topic: $t, content: $m) { messageId } }',
    { c: channel, t: topic, m: content },
  );
  return data.sendMessage.messageId;
}

const registersOf = (live: Live, login: string) =>
  live.emulator.requests.filter((r) => r.method === 'POST' && r.path === '/register' && r.email === demoUser(login).email).length;

const ALL_EVENTS = `subscription($after: String) { events(after: $after) {
  __typename
  ... on Event { cursor kind }
  ... on MessageEvent { message { zulipId content topic sender { fullName } channel { name } starred } }
  ... on MessageUpdatedEvent { messageId content previousContent editor { fullName } editedMessage { zulipId content } }
  ... on MessageMovedEvent { messageIds previousTopic topic channelId propagateMode }
  ... on MessageDeletedEvent { messageIds }
  ... on ReactionEvent { messageId added reaction { emojiName user { fullName } } }
  ... on TypingEvent { started sender { fullName } channelId topic }
  ... on PresenceEvent { user { fullName } status }
  ... on MessageFlagsEvent { flag added messageIds }
  ... on ResyncEvent { reason featureLevel }
  ... on UnknownEvent { type operation data }
} }`;

type Ev = Record<string, any>;
const events = (results: { data?: unknown }[]): Ev[] => results.map((r) => (r.data as { events: Ev }).events);
const kinds = (list: Ev[]) => list.map((e) => e.kind);

describe('subscriptions over graphql-ws', () => {
  test('a subscriber receives message, edit, move, reaction, typing, presence and flag events caused by another user', async () => {
    const live = await start();
    const client = live.client('hamlet');
    const sub = collect(client, ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    const general = await channelId(live, 'general');

    const id = await send(live, 'othello', 'general', 'plans', 'first **draft**');
    await gql(live, 'othello', 'mutation($id: Long!) { editMessage(messageId: $id, content: "final draft") { __typename } }', { id });
    await gql(live, 'othello', 'mutation($id: Long!) { editMessage(messageId: $id, topic: "decisions", sendNotificationToNewThread: false) { __typename } }', { id });
    await gql(live, 'othello', 'mutation($id: Long!) { addReaction(messageId: $id, emojiName: "octopus") { messageId } }', { id });
    await gql(live, 'othello', 'mutation($c: Long!) { startTyping(to: { channelId: $c, topic: "decisions" }) }', { c: general });
    await gql(live, 'othello', 'mutation { reportPresence(status: ACTIVE, pingOnly: true) { presences { userId } } }');
    await gql(live, 'hamlet', 'mutation($id: Long!) { updateMessageFlags(messageIds: [$id], op: ADD, flag: STARRED) { messageIds } }', { id });

    const received = events(await sub.waitFor(7));
    expect(kinds(received), JSON.stringify(received)).toEqual(['MESSAGE', 'MESSAGE_UPDATED', 'MESSAGE_MOVED', 'REACTION_ADDED', 'TYPING_STARTED', 'PRESENCE', 'FLAGS_ADDED']);
    const [message, edit, move, reaction, typing, presence, flags] = received;
    expect(message).toMatchObject({
      __typename: 'MessageEvent',
      message: { zulipId: id, topic: 'plans', content: '<p>first <strong>draft</strong></p>', sender: { fullName: 'Othello, the Moor of Venice' }, channel: { name: 'general' }, starred: false },
    });
    expect(edit).toMatchObject({ messageId: id, content: '<p>final draft</p>', previousContent: '<p>first <strong>draft</strong></p>', editor: { fullName: 'Othello, the Moor of Venice' } });
    expect(move).toMatchObject({ messageIds: [id], previousTopic: 'plans', topic: 'decisions', channelId: general, propagateMode: 'CHANGE_ONE' });
    expect(reaction).toMatchObject({ messageId: id, added: true, reaction: { emojiName: 'octopus', user: { fullName: 'Othello, the Moor of Venice' } } });
    expect(typing).toMatchObject({ started: true, sender: { fullName: 'Othello, the Moor of Venice' }, channelId: general, topic: 'decisions' });
    expect(presence).toMatchObject({ user: { fullName: 'Othello, the Moor of Venice' }, status: 'ACTIVE' });
    expect(flags).toMatchObject({ flag: 'starred', added: true, messageIds: [id] });
    const cursors = received.map((e) => e.cursor as string);
    expect(new Set(cursors).size).toBe(cursors.length);
    expect(JSON.stringify(received)).not.toContain(demoUser('hamlet').apiKey);
  });

  test('two subscriptions (two sockets and an SSE stream) of one user share one upstream queue', async () => {
    const live = await start();
    const a = collect(live.client('hamlet'), ALL_EVENTS);
    const b = collect(live.client('hamlet'), 'subscription { messages { __typename ... on MessageEvent { message { zulipId } } } }');
    const sse = sseSubscribe(live.url, 'subscription { events { ... on MessageEvent { message { zulipId } } } }', {}, { authorization: live.auth('hamlet') });
    await until(() => live.hub.stats().subscribers === 3);
    const id = await send(live, 'othello', 'general', 'sharing', 'one');
    expect(events(await a.waitFor(1))[0].message.zulipId).toBe(id);
    expect((await b.waitFor(1))[0]!.data).toEqual({ messages: { __typename: 'MessageEvent', message: { zulipId: id } } });
    expect((await sse.waitFor(1))[0]!.data).toEqual({ events: { message: { zulipId: id } } });
    expect(registersOf(live, 'hamlet')).toBe(1);
    expect(live.emulator.queues.queuesOf(live.userId('hamlet'))).toHaveLength(1);
    sse.close();
  });

  test('subscriptions of one credential resolve an upstream batch with the same loaders: one user fetch, not one each', async () => {
    const live = await start();
    const client = live.client('hamlet');
    const a = collect(client, 'subscription { events { ... on MessageEvent { message { zulipId sender { fullName } } } } }');
    const b = collect(client, 'subscription { messages { ... on MessageEvent { message { sender { fullName } } } } }');
    await until(() => live.hub.stats().subscribers === 2);
    const userFetches = () => live.emulator.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/users')).length;
    const before = userFetches();
    await send(live, 'othello', 'general', 'loaders', 'one batch');
    const sender = { fullName: 'Othello, the Moor of Venice' };
    expect((await a.waitFor(1))[0]!.data).toMatchObject({ events: { message: { sender } } });
    expect((await b.waitFor(1))[0]!.data).toEqual({ messages: { message: { sender } } });
    // With the live directory the sender comes from the credential's directory (no fetch at all);
    // without it, one fetch (GET /users/{id}: one user below feature level 384) for both subscriptions.
    expect(userFetches() - before).toBe(TEST_LIVE_DIRECTORY ? 0 : 1);
  });

  test('expiring the queue mid-subscription yields RESYNC, then new events', async () => {
    const live = await start();
    const sub = collect(live.client('hamlet'), ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    const first = await send(live, 'othello', 'general', 'expiry', 'before');
    await sub.waitFor(1);
    live.emulator.queues.expire(live.emulator.queues.queuesOf(live.userId('hamlet'))[0]!.id);
    await until(() => registersOf(live, 'hamlet') === 2 && live.emulator.queues.queuesOf(live.userId('hamlet')).length === 1);
    const second = await send(live, 'othello', 'general', 'expiry', 'after');
    const received = events(await sub.waitFor(3));
    expect(kinds(received)).toEqual(['MESSAGE', 'RESYNC', 'MESSAGE']);
    expect(received[1]).toMatchObject({ __typename: 'ResyncEvent', reason: 'QUEUE_EXPIRED', featureLevel: 372 });
    expect([received[0]!.message.zulipId, received[2]!.message.zulipId]).toEqual([first, second]);
  });

  test('a client away for 5 seconds resumes with its last cursor and gets every missed message exactly once', async () => {
    // The replay buffer's clock is virtual: the client is away 5 s of it, without waiting them.
    let now = 1_000_000;
    const live = await start({ hub: { graceMs: 10_000, replay: { now: () => now } } });
    const client = live.client('hamlet');
    const sub = collect(client, ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    await send(live, 'othello', 'general', 'resume', 'seen');
    const [seen] = events(await sub.waitFor(1));
    await client.dispose();
    await until(() => live.hub.stats().subscribers === 0);

    const missed: number[] = [];
    for (let i = 0; i < 10; i++) {
      missed.push(await send(live, 'othello', 'general', 'resume', `missed ${i}`));
      now += 500;
    }
    // Every missed message reached the hub (the queue acknowledged them) before the client is back.
    const queue = () => live.emulator.queues.queuesOf(live.userId('hamlet'))[0]!;
    await until(() => queue().events.length === 0 && queue().parked !== null, 5000, 'the hub to take the missed messages');
    const resumed = collect(live.client('hamlet'), ALL_EVENTS, { after: seen!.cursor });
    const replayed = events(await resumed.waitFor(missed.length));
    expect(replayed.map((e) => e.message?.zulipId)).toEqual(missed);
    const live2 = await send(live, 'othello', 'general', 'resume', 'live again');
    const sentinel = await send(live, 'othello', 'general', 'resume', 'sentinel');
    const all = events(await resumed.waitFor(missed.length + 2));
    expect(all.map((e) => e.message?.zulipId)).toEqual([...missed, live2, sentinel]); // nothing twice
    expect(registersOf(live, 'hamlet')).toBe(1); // the grace period kept the queue
  });

  test('an upstream restart is survived on the same queue, with nothing lost or repeated', async () => {
    const live = await start();
    const sub = collect(live.client('hamlet'), ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    const before = await send(live, 'othello', 'general', 'restart', 'before');
    await sub.waitFor(1);
    await live.stopUpstream();
    const during = await sendDirect(live, 'othello', 'general', 'restart', 'during');
    await live.startUpstream();
    const after = await send(live, 'othello', 'general', 'restart', 'after');
    const received = events(await sub.waitFor(3));
    expect(received.map((e) => e.message?.zulipId)).toEqual([before, during, after]);
    expect(registersOf(live, 'hamlet')).toBe(1);
  });

  test('a 30-second outage (in backoff time) is survived: retries back off to the cap, then resume the same queue', async () => {
    const live = await start();
    const sub = collect(live.client('hamlet'), ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    await live.stopUpstream();
    const outageStart = live.backoffDelays.length;
    const sent: number[] = [];
    const backedOff = () => live.backoffDelays.slice(outageStart).reduce((a, b) => a + b, 0);
    await until(
      () => {
        if (sent.length < 3 && backedOff() > sent.length * 8000) void sendDirect(live, 'othello', 'general', 'outage', `m${sent.length}`).then((id) => sent.push(id));
        return backedOff() >= 30_000 && sent.length === 3;
      },
      15_000,
      '30 s of backoff',
    );
    const waits = live.backoffDelays.slice(outageStart);
    expect(Math.max(...waits)).toBeLessThanOrEqual(10_000); // capped, jittered
    await live.startUpstream();
    const received = events(await sub.waitFor(3, 10_000));
    expect(received.map((e) => e.message?.zulipId)).toEqual(sent.sort((a, b) => a - b));
    expect(kinds(received)).not.toContain('RESYNC');
    expect(registersOf(live, 'hamlet')).toBe(1);
  }, 30_000);

  test('closing every subscription deletes the queue after the grace period', async () => {
    const live = await start({ hub: { graceMs: 300 } });
    const client = live.client('hamlet');
    const a = collect(client, ALL_EVENTS);
    const b = collect(client, 'subscription { messages { __typename } }');
    await until(() => live.hub.stats().subscribers === 2);
    expect(live.emulator.queues.size()).toBe(1);
    a.dispose();
    await until(() => live.hub.stats().subscribers === 1);
    // One subscription still holds the session: no grace period runs, so nothing can delete the queue.
    expect(live.hub.stats()).toEqual({ sessions: 1, subscribers: 1, lingering: 0 });
    expect(live.emulator.queues.size()).toBe(1);
    b.dispose();
    await until(() => live.hub.stats().lingering === 1, 3000, 'the grace period to start');
    await until(() => live.emulator.queues.size() === 0, 3000, 'the queue to be deleted');
    expect(live.emulator.requests.filter((r) => r.method === 'DELETE' && r.path === '/events')).toHaveLength(1);
    expect(live.hub.stats()).toEqual({ sessions: 0, subscribers: 0, lingering: 0 });
  });

  test('a credential revoked mid-stream ends the subscription with UNAUTHENTICATED', async () => {
    const live = await start();
    const sub = collect(live.client('othello'), ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    const othello = live.emulator.store.userByEmail(demoUser('othello').email)!;
    othello.api_key = 'rotated-key';
    await send(live, 'hamlet', 'general', 'revoked', 'wakes the poll');
    await sub.waitDone();
    const last = sub.results.at(-1)!;
    expect(last.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(JSON.stringify(sub.results)).not.toContain(demoUser('othello').apiKey);
  });

  test('filters: kinds, and a topic narrow that also catches edits of older messages in it', async () => {
    const live = await start();
    const general = await channelId(live, 'general');
    const old = await send(live, 'othello', 'general', 'narrowed', 'sent before subscribing');
    const otherTopic = await send(live, 'othello', 'general', 'elsewhere', 'not in the narrow');
    const client = live.client('hamlet');
    const typingOnly = collect(client, 'subscription { events(filter: { kinds: [TYPING_STARTED] }) { ... on Event { kind } } }');
    const narrowed = collect(
      client,
      `subscription($c: Long!) { messages(narrow: { channelId: $c, topic: "narrowed" }) {
        __typename ... on MessageEvent { message { zulipId } } ... on MessageUpdatedEvent { messageId } } }`,
      { c: general },
    );
    await until(() => live.hub.stats().subscribers === 2);
    await gql(live, 'othello', 'mutation($id: Long!) { editMessage(messageId: $id, content: "edited elsewhere") { __typename } }', { id: otherTopic });
    await gql(live, 'othello', 'mutation($id: Long!) { editMessage(messageId: $id, content: "edited here") { __typename } }', { id: old });
    await send(live, 'othello', 'design', 'narrowed', 'other channel');
    const inNarrow = await send(live, 'othello', 'general', 'Narrowed', 'case-insensitive topic');
    await gql(live, 'othello', 'mutation($c: Long!) { startTyping(to: { channelId: $c, topic: "x" }) }', { c: general });

    const got = (await narrowed.waitFor(2)).map((r) => (r.data as { messages: Ev }).messages);
    expect(got).toEqual([
      { __typename: 'MessageUpdatedEvent', messageId: old },
      { __typename: 'MessageEvent', message: { zulipId: inNarrow } },
    ]);
    expect((await typingOnly.waitFor(1))[0]!.data).toEqual({ events: { kind: 'TYPING_STARTED' } });
    // Sentinels: the next result of each is the one sent last, so nothing else came in between.
    const sentinel = await send(live, 'othello', 'general', 'narrowed', 'sentinel');
    await gql(live, 'othello', 'mutation($c: Long!) { startTyping(to: { channelId: $c, topic: "y" }) }', { c: general });
    expect((await narrowed.waitFor(3)).map((r) => (r.data as { messages: Ev }).messages).slice(2)).toEqual([
      { __typename: 'MessageEvent', message: { zulipId: sentinel } },
    ]);
    expect(narrowed.results).toHaveLength(3);
    expect((await typingOnly.waitFor(2)).map((r) => r.data)).toEqual([{ events: { kind: 'TYPING_STARTED' } }, { events: { kind: 'TYPING_STARTED' } }]);
  });

  test('typing(conversation) reports who is typing as it changes, including expiry', async () => {
    const live = await start({ hub: { typingExpiryMs: 300 } });
    const general = await channelId(live, 'general');
    const sub = collect(live.client('hamlet'), 'subscription($c: Long!) { typing(conversation: { channelId: $c, topic: "t" }) { typistIds typists { fullName } resynced } }', { c: general });
    await until(() => live.hub.stats().subscribers === 1);
    const typing = (login: string, op: 'start' | 'stop', topic = 't') =>
      gql(live, login, `mutation($c: Long!, $t: String!) { ${op}Typing(to: { channelId: $c, topic: $t }) }`, { c: general, t: topic });
    await typing('othello', 'start');
    await typing('iago', 'start', 'another topic');
    await typing('cordelia', 'start');
    await typing('othello', 'stop');
    const states = (await sub.waitFor(4, 3000)).map((r) => (r.data as { typing: Ev }).typing);
    expect(states.slice(0, 3)).toEqual([
      { typistIds: [live.userId('othello')], typists: [{ fullName: 'Othello, the Moor of Venice' }], resynced: false },
      { typistIds: [live.userId('othello'), live.userId('cordelia')], typists: [{ fullName: 'Othello, the Moor of Venice' }, { fullName: 'Cordelia, Lear\u2019s daughter' }], resynced: false },
      { typistIds: [live.userId('cordelia')], typists: [{ fullName: 'Cordelia, Lear\u2019s daughter' }], resynced: false },
    ]);
    // Cordelia never sends stop: her start expires.
    expect(states[3]).toEqual({ typistIds: [], typists: [], resynced: false });
  });

  test('an event this gateway does not model passes through as UnknownEvent with its JSON', async () => {
    const live = await start();
    const sub = collect(live.client('hamlet'), ALL_EVENTS);
    await until(() => live.hub.stats().subscribers === 1);
    live.emulator.queues.notify([live.userId('hamlet')], { type: 'stream', op: 'archive_all', stream_ids: [1], flavour: 'new' });
    const [event] = events(await sub.waitFor(1));
    expect(event).toEqual({
      __typename: 'UnknownEvent',
      cursor: expect.any(String),
      kind: 'UNKNOWN',
      type: 'stream',
      operation: 'archive_all',
      data: { stream_ids: [1], flavour: 'new' },
    });
  });
});

describe('subscriptions over SSE', () => {
  test('an SSE client receives a narrow of messages with the Authorization header', async () => {
    const live = await start();
    const stream = sseSubscribe(
      live.url,
      'subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { cursor message { zulipId sender { fullName } } } } }',
      {},
      { authorization: live.auth('hamlet') },
    );
    await until(() => live.hub.stats().subscribers === 1);
    await send(live, 'othello', 'design', 'sse', 'not this one');
    const id = await send(live, 'othello', 'general', 'sse', 'this one');
    const [first] = await stream.waitFor(1);
    expect(stream.status).toBe(200);
    expect(first!.data).toEqual({ messages: { cursor: expect.any(String), message: { zulipId: id, sender: { fullName: 'Othello, the Moor of Venice' } } } });
    stream.close();
    await until(() => live.hub.stats().subscribers === 0, 3000, 'the SSE subscription to end');
  });

  test('without credentials the subscription is refused with UNAUTHENTICATED', async () => {
    const live = await start();
    const stream = sseSubscribe(live.url, 'subscription { events { __typename } }');
    await stream.waitDone();
    expect(stream.results[0]?.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(live.emulator.requests.filter((r) => r.path === '/register')).toHaveLength(0);
  });
});

/** Sends a message straight to the emulator (no listener needed), as a client of another gateway would. */
async function sendDirect(live: Live, login: string, channel: string, topic: string, content: string): Promise<number> {
  const body = new URLSearchParams({ type: 'stream', to: channel, topic, content });
  const response = await live.emulator.fetch(
    new Request('http://emulator.local/api/v1/messages', {
      method: 'POST',
      headers: { authorization: live.auth(login), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );
  const json = (await response.json()) as { id: number };
  return json.id;
}
