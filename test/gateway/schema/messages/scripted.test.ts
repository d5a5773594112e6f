/**
 * Messages against scripted servers, for what the emulator cannot show: IDs above 2^31, the legacy
 * newest anchor, ignored parameters, old feature levels.
 */
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../../../src/gateway/yoga.js';
import type { Message } from '../../../../src/zulip/model/messages.js';
import { scriptedFetch, success, type ScriptedResponse } from '../../../helpers/scripted-fetch.js';

// ---- scripted servers --------------------------------------------------------------------------------

function scriptedGateway(...responses: ScriptedResponse[]) {
  const fetch = scriptedFetch(responses);
  const gateway = createGateway({ zulipUrl: `http://scripted-${Math.random().toString(36).slice(2)}.localhost`, fetch, logging: false });
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('a@b.c:key').toString('base64')}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
  };
  return { fetch, gql };
}

function wireMessage(id: number, extra: Partial<Message> = {}): Message {
  return {
    id,
    avatar_url: 'https://example.com/a.png',
    client: 'test',
    content: `<p>${id}</p>`,
    content_type: 'text/html',
    display_recipient: 'general',
    is_me_message: false,
    reactions: [],
    recipient_id: 3_000_000_000,
    sender_email: 'a@b.c',
    sender_full_name: 'A',
    sender_id: 7,
    sender_realm_str: 'zulip',
    stream_id: 5,
    subject: 't',
    timestamp: 1_700_000_000,
    type: 'stream',
    flags: ['read', 'some_future_flag'],
    ...extra,
  };
}

describe('scripted servers', () => {
  it('handles IDs above 2^31 in results, cursors and the newest anchor 10000000000000000', async () => {
    const big = 2 ** 32 + 5;
    const { fetch, gql } = scriptedGateway(
      success({ anchor: 10_000_000_000_000_000, found_anchor: false, found_newest: true, found_oldest: false, history_limited: false, messages: [wireMessage(big - 1), wireMessage(big)] }),
      success({ anchor: big, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [wireMessage(big - 1)] }),
    );
    const first = await gql('{ messages(last: 1) { anchor edges { cursor node { zulipId recipientId flags flagNames } } pageInfo { hasPreviousPage startCursor } } }');
    expect(first.errors).toBeUndefined();
    expect(first.data!.messages).toMatchObject({
      anchor: 10_000_000_000_000_000,
      edges: [{ node: { zulipId: big, recipientId: 3_000_000_000, flags: ['READ'], flagNames: ['read', 'some_future_flag'] } }],
      pageInfo: { hasPreviousPage: true },
    });
    const second = await gql('query($c: String!) { messages(last: 5, before: $c) { nodes { zulipId } pageInfo { hasPreviousPage hasNextPage } } }', {
      c: first.data!.messages.pageInfo.startCursor,
    });
    expect(second.errors).toBeUndefined();
    expect(fetch.requests[1]!.query).toMatchObject({ anchor: String(big), include_anchor: 'true', num_before: '6', num_after: '1' });
    // Nothing follows the cursor strictly (Relay: the `before` edge itself does not count).
    expect(second.data!.messages).toEqual({ nodes: [{ zulipId: big - 1 }], pageInfo: { hasPreviousPage: false, hasNextPage: false } });
    expect(fetch.remaining).toBe(0);
  });

  it('puts ignored_parameters_unsupported in the response extensions', async () => {
    const { gql } = scriptedGateway(
      success({ anchor: 1, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [], ignored_parameters_unsupported: ['allow_empty_topic_name', 'include_anchor'] }),
    );
    const result = await gql('{ messages(last: 5, allowEmptyTopicName: true) { nodes { zulipId } } }');
    expect(result.errors).toBeUndefined();
    expect(result.extensions).toMatchObject({ upstreamRequests: 1, ignoredParametersUnsupported: ['allow_empty_topic_name', 'include_anchor'] });
  });

  it('encodes narrows for servers before feature level 177 with pm-with and is:private, and refuses dmIncluding', async () => {
    const { fetch, gql } = scriptedGateway(
      success({ zulip_feature_level: 150 }),
      success({ anchor: 1, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages: [] }),
    );
    const ok = await gql('{ messages(narrow: { dmUserIds: [3, 4], is: [DM], channels: PUBLIC }, last: 5) { nodes { zulipId } } }');
    expect(ok.errors).toBeUndefined();
    expect(JSON.parse(fetch.requests[1]!.query.narrow!)).toEqual([
      { operator: 'streams', operand: 'public' },
      { operator: 'pm-with', operand: [3, 4] },
      { operator: 'is', operand: 'private' },
    ]);
    const refused = await gql('{ messages(narrow: { dmIncluding: 3 }, last: 5) { nodes { zulipId } } }');
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 177 });
    expect(fetch.requests).toHaveLength(2);
  });
});
