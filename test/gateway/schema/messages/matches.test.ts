/**
 * `messagesMatchingNarrow` end to end: GraphQL → gateway → REST → emulator. One upstream call,
 * matches in ID order with search hits highlighted and their messages linked, Zulip's BAD_NARROW
 * kept, and bad input refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { setupHarness } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

const MATCHES = /* GraphQL */ `
  query ($ids: [Long!]!, $narrow: NarrowInput!) {
    messagesMatchingNarrow(ids: $ids, narrow: $narrow) { messageId matchContent matchTopic message { zulipId } }
  }
`;

function harness() {
  const h = setupHarness();
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  const send = async (topic: string, content: string) => {
    const { data } = await h.gql<{ sendMessage: { messageId: number } }>(
      'mutation ($c: Long!, $t: String!, $m: String!) { sendMessage(channelId: $c, topic: $t, content: $m) { messageId } }',
      { c: h.channelId('general'), t: topic, m: content },
      AS_HAMLET,
    );
    return data!.sendMessage.messageId;
  };
  return { h, calls, send };
}

describe('messagesMatchingNarrow', () => {
  it('answers the matching messages in ID order, hits highlighted, in one call', async () => {
    const { h, calls, send } = harness();
    const a = await send('food', 'lunch at noon');
    const b = await send('food', 'dinner');
    const c = await send('work', 'lunch meeting');
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql(MATCHES, { ids: [c, b, a], narrow: { search: 'lunch' } }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      messagesMatchingNarrow: [
        { messageId: a, matchContent: '<p><span class="highlight">lunch</span> at noon</p>', matchTopic: 'food', message: { zulipId: a } },
        { messageId: c, matchContent: '<p><span class="highlight">lunch</span> meeting</p>', matchTopic: 'work', message: { zulipId: c } },
      ],
    });
    expect(calls()[0]).toBe('GET messages/matches_narrow');
    expect(calls().filter((x) => x === 'GET messages/matches_narrow')).toHaveLength(1);
    expect(h.upstreamRequests[0]!.query).toMatchObject({ msg_ids: JSON.stringify([c, b, a]), narrow: JSON.stringify([{ operator: 'search', operand: 'lunch' }]) });
  });

  it('keeps Zulip\u2019s BAD_NARROW, and refuses empty or non-positive IDs before any call', async () => {
    const { h, calls, send } = harness();
    const a = await send('food', 'x');
    const { errors } = await h.gql(MATCHES, { ids: [a], narrow: { channelName: 'no such channel' } }, AS_HAMLET);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_NARROW', route: 'check-messages-match-narrow' });
    h.resetUpstreamRequests();
    for (const ids of [[], [0]]) {
      const bad = await h.gql(MATCHES, { ids, narrow: {} }, AS_HAMLET);
      expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'ids' });
    }
    expect(calls()).toEqual([]);
  });
});
