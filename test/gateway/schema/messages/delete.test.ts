/**
 * `deleteMessage` end to end: GraphQL → gateway → REST → emulator. One upstream call, Zulip's
 * permission errors with their codes, and bad input refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { setupHarness } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

const DELETE = 'mutation ($id: Long!) { deleteMessage(id: $id) { messageId } }';

function harness() {
  const h = setupHarness();
  const send = async (as: string) => {
    const { data } = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation ($c: Long!) { sendMessage(channelId: $c, topic: "doomed", content: "bye") { messageId } }',
      { c: h.channelId('general') },
      { as },
    );
    h.resetUpstreamRequests();
    return data!.sendMessage.messageId;
  };
  return { h, send, exists: (id: number) => h.emulator.store.messages.has(id) };
}

describe('deleteMessage', () => {
  it('deletes the caller\u2019s own message in one upstream call', async () => {
    const { h, send, exists } = harness();
    const id = await send(demoUser('hamlet').email);
    const { data, errors } = await h.gql(DELETE, { id }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data).toEqual({ deleteMessage: { messageId: id } });
    expect(exists(id)).toBe(false);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE messages/${id}`]);
  });

  it('passes on BAD_REQUEST for another user\u2019s message and for an unknown one', async () => {
    const { h, send, exists } = harness();
    const id = await send(demoUser('iago').email);
    for (const [messageId, message] of [
      [id, "You don't have permission to delete this message"],
      [999_999, 'Invalid message(s)'],
    ] as const) {
      const { data, errors } = await h.gql(DELETE, { id: messageId }, AS_HAMLET);
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({ message, path: ['deleteMessage'], extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'delete-message' } });
    }
    expect(exists(id)).toBe(true);
  });

  it('refuses a non-positive ID before any upstream call', async () => {
    const { h } = harness();
    const { errors } = await h.gql(DELETE, { id: 0 }, AS_HAMLET);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'id' });
    expect(h.upstreamRequests).toEqual([]);
  });
});
