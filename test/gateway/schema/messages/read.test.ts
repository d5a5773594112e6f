/**
 * The bulk mark-as-read mutations end to end: GraphQL → gateway → REST → emulator. One upstream
 * call each (plus the channel lookup when `channel` is selected), what they mark, Zulip's errors
 * with their codes, and bad input refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { setupHarness } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

function harness() {
  const h = setupHarness();
  const { store } = h.emulator;
  const uid = h.userId('hamlet');
  const general = h.channelId('general');
  const inGeneral = [...store.messages.values()].filter((m) => m.stream_id === general);
  const topic = inGeneral[0]!.topic;
  // Every message of #general starts unread for hamlet.
  for (const m of inGeneral) store.setFlag(uid, m.id, 'read', false);
  const unreadIn = (pick: (topic: string) => boolean) => inGeneral.filter((m) => pick(m.topic) && !store.hasFlag(uid, m.id, 'read')).map((m) => m.id);
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, general, topic, unreadIn, calls, unreadCount: () => store.flags.get(uid)?.get('unread')?.size ?? 0 };
}

describe('mark as read mutations', () => {
  it('markTopicAsRead marks only that topic, in one call, and links the channel', async () => {
    const { h, general, topic, unreadIn, calls } = harness();
    expect(unreadIn((t) => t === topic).length).toBeGreaterThan(0);
    const others = unreadIn((t) => t.toLowerCase() !== topic.toLowerCase());
    expect(others.length).toBeGreaterThan(0);
    const { data, errors } = await h.gql(
      'mutation ($c: Long!, $t: String!) { markTopicAsRead(channelId: $c, topic: $t) { channelId topic channel { name } } }',
      { c: general, t: topic.toUpperCase() },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ markTopicAsRead: { channelId: general, topic: topic.toUpperCase(), channel: { name: 'general' } } });
    expect(unreadIn((t) => t.toLowerCase() === topic.toLowerCase())).toEqual([]);
    expect(unreadIn((t) => t.toLowerCase() !== topic.toLowerCase())).toEqual(others);
    expect(calls()).toEqual(['POST mark_topic_as_read', 'GET streams']);
  });

  it('markChannelAsRead and markAllAsRead make one call each', async () => {
    const { h, general, unreadIn, calls, unreadCount } = harness();
    const channel = await h.gql('mutation ($c: Long!) { markChannelAsRead(channelId: $c) { channelId } }', { c: general }, AS_HAMLET);
    expect(channel).toMatchObject({ data: { markChannelAsRead: { channelId: general } } });
    expect(unreadIn(() => true)).toEqual([]);
    expect(calls()).toEqual(['POST mark_stream_as_read']);

    h.resetUpstreamRequests();
    const all = await h.gql('mutation { markAllAsRead { complete } }', {}, AS_HAMLET);
    expect(all).toMatchObject({ data: { markAllAsRead: { complete: true } } });
    expect(unreadCount()).toBe(0);
    expect(calls()).toEqual(['POST mark_all_as_read']);
  });

  it('passes on Zulip\u2019s BAD_REQUEST for an unknown channel or topic', async () => {
    const { h, general, unreadIn } = harness();
    const before = unreadIn(() => true);
    const cases = [
      ['mutation { markChannelAsRead(channelId: 9999) { channelId } }', 'Invalid channel ID', 'mark-stream-as-read'],
      [`mutation { markTopicAsRead(channelId: ${general}, topic: "no such topic") { topic } }`, "No such topic 'no such topic'", 'mark-topic-as-read'],
    ] as const;
    for (const [query, message, route] of cases) {
      const { data, errors } = await h.gql(query, {}, AS_HAMLET);
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', httpStatus: 400, route } });
    }
    expect(unreadIn(() => true)).toEqual(before);
  });

  it('refuses a topic with a null byte before any upstream call', async () => {
    const { h, general } = harness();
    const { errors } = await h.gql('mutation ($c: Long!, $t: String!) { markTopicAsRead(channelId: $c, topic: $t) { topic } }', { c: general, t: 'a\u0000b' }, AS_HAMLET);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'topic' });
    expect(h.upstreamRequests).toEqual([]);
  });
});
