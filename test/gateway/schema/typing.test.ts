/**
 * Typing end to end: the `startTyping` / `stopTyping` mutations for direct conversations and channel
 * topics, observed as `typing` events in the emulator's queues; the `type` sent per feature level;
 * the feature-level gate; input and server errors.
 */
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { ZulipConnection } from '../../../src/zulip/connection.js';
import type { RawEvent } from '../../../src/zulip/model/events.js';
import { getEvents, registerQueue } from '../../../src/zulip/routes/events.js';
import { closeWhenDone, setupEmulator } from '../../helpers/emulator.js';
import { basicAuth, setupHarness, type Harness } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

/** A queue of `login` in the emulator, and what it received so far (ids dropped). */
async function watch(emulator: Emulator, login: string, eventTypes = ['typing']) {
  const fetch = (input: string | URL | Request, init?: RequestInit) => emulator.fetch(new Request(input, init));
  const conn = new ZulipConnection({ baseUrl: 'http://emulator.test', credentials: { email: demoUser(login).email, apiKey: demoUser(login).apiKey }, fetch });
  const { queue_id } = await registerQueue(conn, {
    eventTypes,
    clientCapabilities: { notification_settings_null: true, stream_typing_notifications: true },
  });
  return async () => (await getEvents(conn, { queueId: queue_id!, lastEventId: -1, dontBlock: true })).events.map(({ id: _id, ...e }) => e as Omit<RawEvent, 'id'>);
}

function harness(featureLevel?: number): Harness {
  return setupHarness(featureLevel === undefined ? {} : { emulatorSettings: { featureLevel } });
}

const person = (h: Harness, login: string) => {
  const u = h.emulator.store.userByEmail(demoUser(login).email)!;
  return { user_id: u.user_id, email: u.email };
};

describe('startTyping / stopTyping in a direct conversation', () => {
  it('sends the typing event to every participant', async () => {
    const h = harness();
    const iago = await watch(h.emulator, 'iago');
    const iagoId = person(h, 'iago').user_id;
    const { data, errors } = await h.gql<{ startTyping: boolean }>(
      'mutation($ids: [Long!]) { startTyping(to: { userIds: $ids }) }',
      { ids: [iagoId] },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ startTyping: true });
    const stop = await h.gql('mutation($ids: [Long!]) { stopTyping(to: { userIds: $ids }) }', { ids: [iagoId] }, { as: HAMLET });
    expect(stop.data).toEqual({ stopTyping: true });
    const recipients = [person(h, 'iago'), person(h, 'hamlet')];
    expect(await iago()).toEqual([
      { type: 'typing', op: 'start', message_type: 'direct', sender: person(h, 'hamlet'), recipients },
      { type: 'typing', op: 'stop', message_type: 'direct', sender: person(h, 'hamlet'), recipients },
    ]);
    // Direct typing needs no feature level: one upstream call each.
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST typing', 'POST typing']);
  });

  it('maps server refusals: unknown users, an empty list', async () => {
    const h = harness();
    const unknown = await h.gql('mutation { startTyping(to: { userIds: [9999] }) }', {}, { as: HAMLET });
    expect(unknown.errors?.[0]).toMatchObject({
      message: 'Invalid user ID 9999',
      path: ['startTyping'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'set-typing-status' },
    });
    const empty = await h.gql('mutation { startTyping(to: { userIds: [] }) }', {}, { as: HAMLET });
    expect(empty.errors?.[0]).toMatchObject({ message: "Empty 'to' list", extensions: { code: 'BAD_REQUEST' } });
  });
});

describe('startTyping / stopTyping in a channel topic', () => {
  it('sends type "channel" from feature level 248 and reaches the other subscribers', async () => {
    const h = harness();
    const iago = await watch(h.emulator, 'iago');
    const general = h.emulator.store.channelByName('general')!.stream_id;
    const { data, errors } = await h.gql(
      'mutation($c: Long!) { startTyping(to: { channelId: $c, topic: "(no topic)" }) }',
      { c: general },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ startTyping: true });
    expect(await iago()).toEqual([
      { type: 'typing', op: 'start', message_type: 'stream', sender: person(h, 'hamlet'), stream_id: general, topic: '' },
    ]);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET server_settings', 'POST typing']);
  });

  it('sends type "stream" to servers from 215 to 247, and refuses below 215', async () => {
    for (const [level, expected] of [
      [230, 'stream'],
      [248, 'channel'],
    ] as const) {
      const { emulator } = setupEmulator({ settings: { featureLevel: level } });
      const forms: Record<string, string>[] = [];
      const gateway = createGateway({
        zulipUrl: `http://typing-${level}.localhost`,
        logging: false,
        fetch: async (input, init) => {
          const request = new Request(input, init);
          if (request.method === 'POST') forms.push(Object.fromEntries(new URLSearchParams(await request.clone().text())));
          return emulator.fetch(request);
        },
      });
      closeWhenDone(async () => void (await gateway.dispose()));
      const channel = emulator.store.channelByName('design')!.stream_id;
      const response = await gateway.fetch('http://gateway.localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basicAuth(demoUser('hamlet')) },
        body: JSON.stringify({ query: `mutation { stopTyping(to: { channelId: ${channel}, topic: "colors" }) }` }),
      });
      expect(await response.json()).toMatchObject({ data: { stopTyping: true } });
      expect(forms).toEqual([{ type: expected, op: 'stop', stream_id: String(channel), topic: 'colors' }]);
    }
  });

  it('fails with UNSUPPORTED_BY_SERVER below feature level 215, before calling the typing endpoint', async () => {
    const h = harness(214);
    const { data, errors } = await h.gql('mutation { startTyping(to: { channelId: 1, topic: "t" }) }', {}, { as: HAMLET });
    expect(data).toBeNull();
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 215, featureLevel: 214 });
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    // Direct typing still works there.
    const direct = await h.gql('mutation { startTyping(to: { userIds: [1] }) }', {}, { as: HAMLET });
    expect(direct.errors).toBeUndefined();
  });

  it('maps server refusals: missing topic, unknown channel, topic too long', async () => {
    const h = harness();
    const missing = await h.gql('mutation { startTyping(to: { channelId: 1 }) }', {}, { as: HAMLET });
    expect(missing.errors?.[0]).toMatchObject({ message: 'Missing topic', extensions: { code: 'BAD_REQUEST', route: 'set-typing-status' } });
    const unknown = await h.gql('mutation { startTyping(to: { channelId: 9999, topic: "t" }) }', {}, { as: HAMLET });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Invalid channel ID', extensions: { code: 'BAD_REQUEST' } });
    const long = await h.gql('mutation($t: String) { startTyping(to: { channelId: 1, topic: $t }) }', { t: 'x'.repeat(61) }, { as: HAMLET });
    // Over max_topic_length: refused by the gateway itself (plugins/input-bounds.ts), as the server would.
    expect(long.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'TypingTarget.topic', maxLength: 60 });
  });
});

describe('typing input', () => {
  it('needs exactly one of userIds or channelId, and a topic only with a channel', async () => {
    const h = harness();
    for (const to of ['{}', '{ userIds: [1], channelId: 1, topic: "t" }', '{ userIds: [1], topic: "t" }']) {
      const { data, errors } = await h.gql(`mutation { stopTyping(to: ${to}) }`, {}, { as: HAMLET });
      expect(data).toBeNull();
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('startTypingMessageEdit / stopTypingMessageEdit', () => {
  const EDIT = 'mutation ($id: Long!) { startTypingMessageEdit(messageId: $id) }';
  async function sent(h: Harness) {
    const { data } = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation ($c: Long!) { sendMessage(channelId: $c, topic: "plans", content: "draft") { messageId } }',
      { c: h.channelId('general') },
      { as: HAMLET },
    );
    h.resetUpstreamRequests();
    return data!.sendMessage.messageId;
  }

  it('tells the channel in one call, as a typing_edit_message event', async () => {
    const h = harness();
    const id = await sent(h);
    const iago = await watch(h.emulator, 'iago', ['typing_edit_message']);
    const { data, errors } = await h.gql(EDIT, { id }, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ startTypingMessageEdit: true });
    expect(await iago()).toEqual([
      { type: 'typing_edit_message', op: 'start', sender_id: h.userId('hamlet'), message_id: id, recipient: { type: 'channel', channel_id: h.channelId('general'), topic: 'plans' } },
    ]);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET server_settings', `POST messages/${id}/typing`]);
    const stop = await h.gql('mutation ($id: Long!) { stopTypingMessageEdit(messageId: $id) }', { id }, { as: HAMLET });
    expect(stop.data).toEqual({ stopTypingMessageEdit: true });
    expect((await iago()).map((e) => e.op)).toEqual(['start', 'stop']);
  });

  it('maps the server\u2019s refusal, refuses a bad ID before any call, and is UNSUPPORTED_BY_SERVER below 351', async () => {
    const h = harness();
    const id = await sent(h);
    const other = await h.gql(EDIT, { id }, { as: demoUser('iago').email });
    expect(other.errors?.[0]).toMatchObject({
      message: "You don't have permission to edit this message",
      extensions: { code: 'BAD_REQUEST', route: 'set-typing-status-for-message-edit' },
    });
    h.resetUpstreamRequests();
    const bad = await h.gql(EDIT, { id: 0 }, { as: HAMLET });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'messageId' });
    expect(h.upstreamRequests).toEqual([]);
    const old = harness(350);
    const refused = await old.gql(EDIT, { id: 1 }, { as: HAMLET });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 351, featureLevel: 350 });
    expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
  });
});
