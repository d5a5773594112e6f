/**
 * The `messages` connection end to end: GraphQL → gateway → REST → emulator. The emulator's own
 * `GET /messages` is the oracle for paging: walking the connection must give exactly the messages one
 * big REST window gives, one upstream request per page.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { createHarness } from '../../../helpers/harness.js';
import { AS_HAMLET, allMessageIds, ids, page, type Page } from './shared.js';

describe('messages connection', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('walks backward from the newest message, one upstream request per page', async () => {
    const expected = await allMessageIds(h);
    expect(expected.length).toBeGreaterThan(8);
    h.resetUpstreamRequests();
    const seen: number[] = [];
    let before: string | null = null;
    let pages = 0;
    for (; pages < 50; pages++) {
      const p: Page = await page(h, before ? { last: 3, before } : { last: 3 });
      expect(p.edges.length).toBeLessThanOrEqual(3);
      seen.unshift(...ids(p));
      if (!p.pageInfo.hasPreviousPage) break;
      expect(p.edges).toHaveLength(3);
      before = p.pageInfo.startCursor;
    }
    expect(seen).toEqual(expected);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(pages + 1).fill('GET messages'));
    // The window asks for one extra message on each side, so the flags are exact.
    expect(h.upstreamRequests[0]!.query).toMatchObject({ anchor: 'newest', num_before: '4', num_after: '1' });
    // The cursor message is fetched and dropped: Zulip only excludes the anchor at an end of the range.
    expect(h.upstreamRequests[1]!.query).toMatchObject({ include_anchor: 'true', num_before: '4', num_after: '1' });
  });

  it('walks forward from the oldest message', async () => {
    const expected = await allMessageIds(h);
    const seen: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const p: Page = await page(h, after ? { first: 4, after } : { first: 4 });
      seen.push(...ids(p));
      if (pages === 0) expect(p.pageInfo.hasPreviousPage).toBe(false);
      else expect(p.pageInfo.hasPreviousPage).toBe(true);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);
  });

  it('reports exact page flags when the page ends exactly at the last message', async () => {
    const expected = await allMessageIds(h);
    const p = await page(h, { last: expected.length });
    expect(ids(p)).toEqual(expected);
    expect(p.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
  });

  it('places a window around an anchor: `last` before it, `first` from it on', async () => {
    const all = await allMessageIds(h);
    const middle = all[Math.floor(all.length / 2)]!;
    const p = await page(h, { anchor: { messageId: middle }, last: 2, first: 3 });
    const at = all.indexOf(middle);
    expect(ids(p)).toEqual(all.slice(at - 2, at + 3));
    expect(p).toMatchObject({ anchor: middle, foundAnchor: true });
    expect(p.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: at + 3 < all.length });

    const without = await page(h, { anchor: { messageId: middle }, first: 2, includeAnchor: false });
    expect(ids(without)).toEqual(all.slice(at + 1, at + 3));
    expect(without.foundAnchor).toBe(false);
  });

  it('starts at the first unread message', async () => {
    const unread = await allMessageIds(h, [{ operator: 'is', operand: 'unread' }]);
    expect(unread.length).toBeGreaterThan(0);
    const p = await page(h, { anchor: { named: 'FIRST_UNREAD' }, first: 2 });
    expect(ids(p)[0]).toBe(unread[0]);
    expect(p.anchor).toBe(unread[0]);
  });

  it('serializes the legacy "newest" anchor value without overflowing', async () => {
    const p = await page(h, { last: 1 });
    expect(p.anchor === null || Number.isSafeInteger(p.anchor) || p.anchor === 10_000_000_000_000_000).toBe(true);
    expect(p.foundNewest).toBe(true);
  });

  it('narrows by channel and topic with the modern operator names', async () => {
    const general = h.emulator.store.channelByName('general')!;
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ messages: { nodes: { channelId: number; topic: string; channel: { name: string } }[] } }>(
      `query($narrow: NarrowInput) { messages(narrow: $narrow, last: 50) { nodes { channelId topic channel { name } } } }`,
      { narrow: { channelId: general.stream_id, topic: 'greetings' } },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const nodes = data!.messages.nodes;
    expect(nodes.length).toBeGreaterThan(1);
    for (const n of nodes) expect(n).toEqual({ channelId: general.stream_id, topic: 'greetings', channel: { name: 'general' } });
    const request = h.upstreamRequests.find((r) => r.path === 'messages')!;
    expect(JSON.parse(request.query.narrow!)).toEqual([
      { operator: 'channel', operand: general.stream_id },
      { operator: 'topic', operand: 'greetings' },
    ]);
  });

  it('negates every condition under `not`, and combines is/has/sender/search', async () => {
    const iago = h.emulator.store.userByEmail(demoUser('iago').email)!;
    const { data, errors } = await h.gql<{ messages: { nodes: { senderId: number; type: string }[] } }>(
      `query($narrow: NarrowInput) { messages(narrow: $narrow, last: 100) { nodes { senderId type } } }`,
      { narrow: { not: { senderId: iago.user_id, is: ['DM'] } } },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data!.messages.nodes.length).toBeGreaterThan(0);
    for (const n of data!.messages.nodes) {
      expect(n.senderId).not.toBe(iago.user_id);
      expect(n.type).toBe('CHANNEL');
    }
    const sent = h.upstreamRequests.at(-1)!;
    expect(JSON.parse(sent.query.narrow!)).toEqual([
      { operator: 'sender', operand: iago.user_id, negated: true },
      { operator: 'is', operand: 'dm', negated: true },
    ]);

    const starred = await h.gql<{ messages: { nodes: { starred: boolean; content: string }[] } }>(
      '{ messages(narrow: { is: [STARRED] }, last: 10) { nodes { starred content } } }',
      {},
      AS_HAMLET,
    );
    expect(starred.errors).toBeUndefined();
    expect(starred.data!.messages.nodes.length).toBeGreaterThan(0);
    for (const n of starred.data!.messages.nodes) expect(n.starred).toBe(true);

    const search = await h.gql<{ messages: { nodes: { content: string }[] } }>(
      '{ messages(narrow: { search: "rollback", has: [LINK] }, last: 10) { nodes { content } } }',
      {},
      AS_HAMLET,
    );
    expect(search.errors).toBeUndefined();
    expect(search.data!.messages.nodes).toHaveLength(1);
    expect(search.data!.messages.nodes[0]!.content).toContain('rollback');
  });

  it('reports an invalid narrow with the upstream code', async () => {
    const { data, errors } = await h.gql('{ messages(narrow: { channelId: 987654 }, last: 5) { nodes { zulipId } } }', {}, AS_HAMLET);
    expect(data).toEqual({ messages: null });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_NARROW', route: 'get-messages', httpStatus: 400 });
  });

  it('refuses contradictory narrows, bad cursors and oversized pages before calling upstream', async () => {
    h.resetUpstreamRequests();
    const cases: [string, Record<string, unknown>][] = [
      ['{ messages(narrow: { channelId: 1, channelName: "general" }, last: 5) { nodes { zulipId } } }', {}],
      ['{ messages(narrow: { not: { not: { senderId: 1 } } }, last: 5) { nodes { zulipId } } }', {}],
      ['{ messages(narrow: { dmUserIds: [] }, last: 5) { nodes { zulipId } } }', {}],
      ['{ messages(first: 1001) { nodes { zulipId } } }', {}],
      ['{ messages(last: -1) { nodes { zulipId } } }', {}],
      ['{ messages { nodes { zulipId } } }', {}],
      ['{ messages(first: 2, last: 2) { nodes { zulipId } } }', {}],
      ['{ messages(first: 2, after: "bm9wZQ") { nodes { zulipId } } }', {}],
      ['{ messages(last: 2, after: "bWVzc2FnZToz") { nodes { zulipId } } }', {}],
      ['{ messages(first: 2, anchor: { messageId: 3, named: NEWEST }) { nodes { zulipId } } }', {}],
    ];
    for (const [query, variables] of cases) {
      const { data, errors } = await h.gql(query, variables, AS_HAMLET);
      expect(data, query).toEqual({ messages: null });
      expect(errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
    }
    const capped = await h.gql('{ messages(last: 5000) { nodes { zulipId } } }', {}, AS_HAMLET);
    expect(capped.errors?.[0]).toMatchObject({
      message: expect.stringContaining('between 0 and 1000'),
      extensions: { code: 'BAD_USER_INPUT', argument: 'last', maxPageSize: 1000 },
    });
    expect(h.upstreamRequests).toEqual([]);
  });
});
