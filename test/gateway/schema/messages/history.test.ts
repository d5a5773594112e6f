/**
 * `messageEditHistory` and `messageReadReceipts` end to end: GraphQL → gateway → REST → emulator.
 * One upstream call each (plus the linked users/channels when selected), Zulip's errors with their
 * codes, bad input refused before any call, and UNSUPPORTED_BY_SERVER below feature level 137.
 */
import { describe, expect, it } from 'vitest';
import { setupHarness, type HarnessOptions } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const { store } = h.emulator;
  const message = [...store.messages.values()].find((m) => m.sender_id === h.userId('hamlet') && m.type === 'stream')!;
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, store, message, calls };
}

const HISTORY = /* GraphQL */ `
  query ($id: Long!) {
    messageEditHistory(id: $id) { timestamp userId user { zulipId fullName } topic prevTopic content prevContent contentHtmlDiff channelId prevChannelId }
  }
`;
const RECEIPTS = 'query ($id: Long!) { messageReadReceipts(id: $id) { messageId userIds users { zulipId } } }';

describe('messageEditHistory', () => {
  it('gives the snapshots oldest first, in one call (plus the users when selected)', async () => {
    const { h, calls } = harness();
    const sent = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation ($c: Long!) { sendMessage(channelId: $c, topic: "plans", content: "first") { messageId } }',
      { c: h.channelId('general') },
      AS_HAMLET,
    );
    const id = sent.data!.sendMessage.messageId;
    const edit = await h.gql('mutation ($id: Long!) { editMessage(messageId: $id, content: "changed") { __typename } }', { id }, AS_HAMLET);
    expect(edit.errors).toBeUndefined();
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messageEditHistory: Record<string, unknown>[] }>(HISTORY, { id }, AS_HAMLET);
    expect(errors).toBeUndefined();
    const hamlet = { zulipId: h.userId('hamlet'), fullName: 'King Hamlet' };
    const [original, edited] = data!.messageEditHistory;
    expect(data!.messageEditHistory).toHaveLength(2);
    expect(original).toMatchObject({ content: 'first', topic: 'plans', userId: h.userId('hamlet'), user: hamlet, prevContent: null, contentHtmlDiff: null, channelId: null });
    expect(edited).toMatchObject({ content: 'changed', prevContent: 'first', userId: h.userId('hamlet'), user: hamlet, prevTopic: null });
    expect(edited!.contentHtmlDiff).toContain('changed');
    expect(calls()[0]).toBe(`GET messages/${id}/history`);
    expect(calls().filter((c) => c.includes('/history'))).toHaveLength(1);
  });

  it('passes on BAD_REQUEST, and refuses a non-positive ID before any call', async () => {
    const { h, store, message, calls } = harness();
    store.realm.settings.allow_edit_history = false;
    const { errors } = await h.gql(HISTORY, { id: message.id }, AS_HAMLET);
    expect(errors?.[0]).toMatchObject({
      message: 'Message edit history is disabled in this organization',
      extensions: { code: 'BAD_REQUEST', route: 'get-message-history' },
    });
    h.resetUpstreamRequests();
    const bad = await h.gql(HISTORY, { id: 0 }, AS_HAMLET);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'id' });
    expect(calls()).toEqual([]);
  });
});

describe('messageReadReceipts', () => {
  it('lists the readers with their users, in one call (plus the feature level and one user lookup)', async () => {
    const { h, store, message, calls } = harness();
    for (const who of ['iago', 'othello']) store.setFlag(h.userId(who), message.id, 'read', true);
    for (const who of ['shiva', 'cordelia', 'polonius', 'desdemona']) store.setFlag(h.userId(who), message.id, 'read', false);
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messageReadReceipts: { userIds: number[]; users: { zulipId: number }[] } }>(RECEIPTS, { id: message.id }, AS_HAMLET);
    expect(errors).toBeUndefined();
    const expected = [h.userId('iago'), h.userId('othello')].sort();
    expect([...data!.messageReadReceipts.userIds].sort()).toEqual(expected);
    expect(data!.messageReadReceipts.users.map((u) => u.zulipId).sort()).toEqual(expected);
    // The feature level (fetched once per gateway), the receipts, then one user lookup for both users.
    expect(calls().slice(0, 2)).toEqual(['GET server_settings', `GET messages/${message.id}/read_receipts`]);
    expect(calls()).toHaveLength(3);
  });

  it('maps Zulip\u2019s error and is UNSUPPORTED_BY_SERVER below feature level 137, without calling', async () => {
    const { h, store, message } = harness();
    store.realm.settings.enable_read_receipts = false;
    const { errors } = await h.gql(RECEIPTS, { id: message.id }, AS_HAMLET);
    expect(errors?.[0]).toMatchObject({ message: 'Read receipts are disabled in this organization.', extensions: { code: 'BAD_REQUEST' } });
    const old = harness({ emulatorSettings: { featureLevel: 136 } });
    const refused = await old.h.gql(RECEIPTS, { id: old.message.id }, AS_HAMLET);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 137, featureLevel: 136 });
    expect(old.calls()).toEqual(['GET server_settings']);
  });
});
