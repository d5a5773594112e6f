/**
 * Feature-level branches of the gateway's loaders, each run against the emulator on both sides of
 * its level (the emulator acts as the older server: it ignores `message_ids` below 300 and
 * `user_ids` below 384), with the upstream requests counted. The branches of one resource's
 * fields are tested in that resource's schema test (test/gateway/schema/*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../src/emulator/seed.js';
import { setupHarness, type Harness } from '../helpers/harness.js';

const AS_HAMLET = { as: demoUser('hamlet').email };
/** Upstream requests but the feature level's own (`GET /server_settings`, once per gateway). */
const calls = (h: Harness) => h.upstreamRequests.filter((r) => r.path !== 'server_settings').map((r) => `${r.method} ${r.path}`);

/** Forgets what the harness's setup asked, so that the counts below are about the branch only. */
async function warm(h: Harness): Promise<void> {
  await h.ready;
  h.resetUpstreamRequests();
}

describe('Message.rawContent of an HTML page (feature level 300: message_ids)', () => {
  const query = '{ messages(last: 3) { nodes { zulipId rawContent } } }';
  type Page = { messages: { nodes: { zulipId: number; rawContent: string }[] } };

  it('from 300: one batched GET /messages?message_ids for the page', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 300 } });
    await warm(h);
    const { data, errors } = await h.gql<Page>(query, {}, AS_HAMLET);
    expect(errors).toBeUndefined();
    const nodes = data!.messages.nodes;
    expect(nodes).toHaveLength(3);
    for (const n of nodes) expect(n.rawContent).toBe(h.emulator.store.messages.get(n.zulipId)!.content);
    expect(calls(h)).toEqual(['GET messages', 'GET messages']);
    expect(JSON.parse(h.upstreamRequests.filter((r) => r.path === 'messages')[1]!.query.message_ids!)).toEqual(nodes.map((n) => n.zulipId));
  });

  it('below 300: one GET /messages/{id} per message, never message_ids', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 299 } });
    await warm(h);
    const { data, errors } = await h.gql<Page>(query, {}, AS_HAMLET);
    expect(errors).toBeUndefined();
    const nodes = data!.messages.nodes;
    for (const n of nodes) expect(n.rawContent).toBe(h.emulator.store.messages.get(n.zulipId)!.content);
    expect(calls(h).sort()).toEqual(['GET messages', ...nodes.map((n) => `GET messages/${n.zulipId}`)].sort());
    expect(h.upstreamRequests.some((r) => 'message_ids' in r.query)).toBe(false);
  });
});

describe('messages by ID through the loader (feature level 300)', () => {
  const send = 'mutation($c: Long!) { sendMessage(channelId: $c, topic: "levels", content: "hi") { messageId message { zulipId content } } }';
  type Sent = { sendMessage: { messageId: number; message: { zulipId: number; content: string } | null } };

  it('from 300: the payload message is one GET /messages?message_ids', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 300 } });
    await warm(h);
    const { data, errors } = await h.gql<Sent>(send, { c: h.channelId('general') }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data!.sendMessage.message).toEqual({ zulipId: data!.sendMessage.messageId, content: '<p>hi</p>' });
    expect(calls(h)).toEqual(['POST messages', 'GET messages']);
  });

  it('below 300: the message is sent, its payload message is UNSUPPORTED_BY_SERVER without a read', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 299 } });
    await warm(h);
    const { data, errors } = await h.gql<Sent>(send, { c: h.channelId('general') }, AS_HAMLET);
    expect(h.emulator.store.messages.get(data!.sendMessage.messageId)).toMatchObject({ content: 'hi' });
    expect(data!.sendMessage.message).toBeNull();
    expect(errors?.[0]).toMatchObject({
      path: ['sendMessage', 'message'],
      extensions: { code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 300, featureLevel: 299 },
    });
    expect(calls(h)).toEqual(['POST messages']);
  });
});

describe('users by ID without a live directory (feature level 384: user_ids)', () => {
  const query = 'query($a: Long!, $b: Long!) { a: user(id: $a) { zulipId } b: user(id: $b) { zulipId } }';
  type Pair = { a: { zulipId: number }; b: { zulipId: number } };

  it('from 384: one GET /users?user_ids for the batch', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 384 }, gateway: { liveDirectory: false } });
    await warm(h);
    const ids = [h.userId('iago'), h.userId('othello')];
    const { data, errors } = await h.gql<Pair>(query, { a: ids[0], b: ids[1] }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect([data!.a.zulipId, data!.b.zulipId]).toEqual(ids);
    expect(calls(h)).toEqual(['GET users']);
    expect(JSON.parse(h.upstreamRequests.find((r) => r.path === 'users')!.query.user_ids!)).toEqual(ids);
  });

  it('below 384: the ignored user_ids answer serves that request, then a few users go one by one', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 383 }, gateway: { liveDirectory: false } });
    await warm(h);
    const ids = [h.userId('iago'), h.userId('othello')];
    // The first batch asks with user_ids; the older server ignores it and lists everyone.
    const first = await h.gql<Pair>(query, { a: ids[0], b: ids[1] }, AS_HAMLET);
    expect(first.errors).toBeUndefined();
    expect([first.data!.a.zulipId, first.data!.b.zulipId]).toEqual(ids);
    expect(calls(h)).toEqual(['GET users']);
    h.resetUpstreamRequests();
    // Known now: a small batch costs one GET /users/{id} per user, never user_ids again.
    const second = await h.gql<Pair>(query, { a: ids[0], b: ids[1] }, AS_HAMLET);
    expect(second.errors).toBeUndefined();
    expect([second.data!.a.zulipId, second.data!.b.zulipId]).toEqual(ids);
    expect(calls(h).sort()).toEqual(ids.map((id) => `GET users/${id}`).sort());
  });
});
