/**
 * The message cache's own rules, driven by hand (events and fetched pages as the queue and
 * `GET /messages` give them, a stand-in for the credential's directory): windows answer exactly
 * what the server would, events that arrive during a fetch are not lost, writes fence reads until
 * their event, and every fallback is reported with its reason.
 */
import { describe, expect, it } from 'vitest';
import type { Directory } from '../../../src/gateway/directory/directory.js';
import { MessageCache, type CacheQuery, type CacheUnusableReason, type WindowDropReason } from '../../../src/gateway/directory/messages/cache.js';
import type { GetMessagesResult, Message } from '../../../src/zulip/model/messages.js';

const SELF = 1;

function message(id: number, extra: Partial<Message> = {}): Message {
  return {
    id,
    avatar_url: 'https://example.com/a.png',
    client: 'test',
    content: `<p>${id}</p>`,
    content_type: 'text/html',
    display_recipient: 'general',
    is_me_message: false,
    reactions: [],
    recipient_id: 9,
    sender_email: 'a@example.com',
    sender_full_name: 'A',
    sender_id: 7,
    sender_realm_str: 'zulip',
    stream_id: 5,
    subject: 'topic',
    timestamp: 1_700_000_000,
    type: 'stream',
    flags: ['read'],
    ...extra,
  };
}

function directory(generation = 1): Directory {
  return { ready: true, selfId: SELF, generation, realm: () => ({ realm_empty_topic_display_name: 'general chat' }), subscriptionsById: (ids: number[]) => ids.map(() => ({})) } as unknown as Directory;
}

const NEWEST: CacheQuery = { narrow: null, anchor: 'newest', numBefore: 4, numAfter: 1, applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: false };

function page(messages: Message[], extra: Partial<GetMessagesResult> = {}): GetMessagesResult {
  return { anchor: 10_000_000_000_000_000, found_anchor: false, found_newest: true, found_oldest: true, history_limited: false, messages, ...extra };
}

function setup() {
  const unusable: CacheUnusableReason[] = [];
  const drops: WindowDropReason[] = [];
  const changes: string[] = [];
  let now = 0;
  const timers = new Set<() => void>();
  const cache = new MessageCache({
    onUnusable: (reason) => unusable.push(reason),
    onDrop: (reason, count) => drops.push(...Array<WindowDropReason>(count).fill(reason)),
    clock: { now: () => now, setTimeout: (fn) => (timers.add(fn), fn), clearTimeout: (fn) => void timers.delete(fn as () => void) },
  });
  cache.onChange((_key, resources) => changes.push(...resources));
  const dir = directory();
  /** A page through the cache: the cached answer, or `fetched` stored. */
  const read = (fetched: GetMessagesResult, query: CacheQuery = NEWEST, key = 'k', d = dir) => {
    const lookup = cache.lookup(key, d, query);
    if (lookup?.hit) return { hit: true, result: lookup.hit };
    lookup?.store(fetched);
    return { hit: false, result: fetched };
  };
  const fireTimers = () => {
    for (const fn of [...timers]) (timers.delete(fn), fn());
    now += 1;
  };
  return { cache, unusable, drops, changes, dir, read, fireTimers };
}

const ids = (result: GetMessagesResult) => result.messages.map((m) => m.id);

describe('message cache', () => {
  it('answers a stored window exactly as the server computes the found flags', () => {
    const { read } = setup();
    const fetched = page([message(2), message(3), message(4), message(5), message(6)], { found_oldest: false });
    expect(read(fetched).hit).toBe(false);
    // num_before 4 below the newest: the 4 newest, and a fifth one known below them (not the oldest).
    const again = read(page([]));
    expect(again.hit).toBe(true);
    expect(again.result).toEqual({ ...fetched, messages: fetched.messages.slice(1), found_oldest: false });
    // A smaller page inside the window; a larger one is not covered (the window does not reach the oldest).
    expect(read(page([]), { ...NEWEST, numBefore: 2 }).result).toMatchObject({ found_oldest: false, found_newest: true, messages: [message(5), message(6)] });
    expect(read(page([]), { ...NEWEST, numBefore: 9 }).hit).toBe(false);
  });

  it('answers the very page it fetched when the server said older messages exist, until one below the window is deleted', () => {
    const { cache, read } = setup();
    // The dashboard's shape: exactly num_before messages, and found_oldest false.
    const fetched = page([message(5), message(6), message(7), message(8)], { found_oldest: false });
    read(fetched);
    expect(read(page([])).result).toEqual(fetched);
    cache.applyEvents('k', [{ id: 1, type: 'delete_message', message_ids: [2], message_type: 'stream' }]);
    expect(read(page([])).hit).toBe(false); // message 2 may have been the older one
  });

  it('appends matching new messages, applies reactions, flags and deletions, and drops windows for edits', () => {
    const { cache, read, drops, changes } = setup();
    read(page([message(2), message(3)]));
    cache.applyEvents('k', [
      { id: 1, type: 'message', message: message(8, { flags: undefined as never }), flags: [] },
      { id: 2, type: 'reaction', op: 'add', message_id: 8, user_id: 4, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
      { id: 3, type: 'update_message_flags', op: 'add', flag: 'starred', messages: [2], all: false },
      { id: 4, type: 'delete_message', message_ids: [3], message_type: 'stream' },
    ]);
    const after = read(page([]));
    expect(after.hit).toBe(true);
    expect(ids(after.result)).toEqual([2, 8]);
    expect(after.result.messages[0]!.flags).toEqual(['read', 'starred']);
    expect(after.result.messages[1]).toMatchObject({ flags: [], reactions: [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: 4 }] });
    expect(changes).toEqual(['Message:8', 'Message:8', 'Message:2', 'Message:3']);

    cache.applyEvents('k', [{ id: 5, type: 'update_message', message_id: 8, message_ids: [8], content: 'x', rendered_content: '<p>x</p>' }]);
    expect(drops).toEqual(['update']);
    expect(read(page([message(2)])).hit).toBe(false);
  });

  it('drops the windows that show a renamed user or channel, and keeps them for changes messages do not show', () => {
    const { cache, read, drops } = setup();
    read(page([message(2)]));
    cache.applyEvents('k', [
      { id: 1, type: 'realm_user', op: 'update', person: { user_id: 7, role: 400 } },
      { id: 2, type: 'stream', op: 'update', stream_id: 5, property: 'description', value: 'x' },
      { id: 3, type: 'realm_user', op: 'update', person: { user_id: 99, full_name: 'Not in the window' } },
    ]);
    expect(read(page([])).hit).toBe(true);
    cache.applyEvents('k', [{ id: 4, type: 'realm_user', op: 'update', person: { user_id: 7, full_name: 'B' } }]);
    expect(drops).toEqual(['user']);
    read(page([message(2)]));
    cache.applyEvents('k', [{ id: 5, type: 'stream', op: 'update', stream_id: 5, property: 'name', value: 'renamed' }]);
    expect(drops).toEqual(['user', 'channel']);
  });

  it('does not lose an event that arrives while the window is being fetched', () => {
    const { cache, read, dir } = setup();
    const lookup = cache.lookup('k', dir, NEWEST)!;
    if (lookup.hit) expect.unreachable('an empty cache has no window');
    cache.applyEvents('k', [{ id: 1, type: 'message', message: message(9), flags: ['read'] }]);
    lookup.store(page([message(2)])); // fetched before the message was sent
    const next = read(page([]));
    expect(next.hit).toBe(true);
    expect(ids(next.result)).toEqual([2, 9]);
  });

  it('fences a credential\u2019s windows during its own write until the write\u2019s event arrives', () => {
    const { cache, read, unusable, fireTimers } = setup();
    read(page([message(2)]));
    const fence = cache.fence('k', ['message']);
    expect(read(page([message(2), message(3)])).hit).toBe(false);
    expect(unusable).toEqual([]); // a passing state, not a degradation
    fence.done(true);
    cache.applyEvents('k', [{ id: 10, type: 'message', message: message(4), flags: ['read'] }]);
    expect(ids(read(page([])).result)).toEqual([2, 3, 4]);
    // Without an event, the fence lifts after writeFenceMs.
    const silent = cache.fence('k', ['reaction']);
    silent.done(true);
    expect(read(page([message(2), message(3), message(4)])).hit).toBe(false);
    fireTimers();
    expect(read(page([])).hit).toBe(true);
  });

  it('refuses narrows it cannot match exactly, and formats other than the queue\u2019s, with a reason', () => {
    const { read, unusable } = setup();
    for (const narrow of [{ search: 'x' }, { channelName: 'general' }, { is: ['starred'] }, { topic: 'no channel' }, { not: { senderId: 3 } }, { channelId: 5, topic: 'general chat' }]) {
      expect(read(page([]), { ...NEWEST, narrow }).hit).toBe(false);
    }
    read(page([]), { ...NEWEST, applyMarkdown: false });
    read(page([]), { ...NEWEST, anchor: 'first_unread' });
    expect(unusable).toEqual(['narrow', 'narrow', 'narrow', 'narrow', 'narrow', 'narrow', 'options', 'anchor']);
  });

  it('keeps channel and conversation windows to their own messages', () => {
    const { cache, read } = setup();
    const topic: CacheQuery = { ...NEWEST, narrow: { channelId: 5, topic: 'Topic' } };
    const dm: CacheQuery = { ...NEWEST, narrow: { dmUserIds: [4] } };
    read(page([message(2)]), topic);
    read(page([]), dm);
    const direct = message(4, { type: 'private', stream_id: undefined, subject: '', display_recipient: [{ id: SELF, email: 'a', full_name: 'A', is_mirror_dummy: false }, { id: 4, email: 'b', full_name: 'B', is_mirror_dummy: false }] });
    const group = message(5, { ...direct, id: 5, display_recipient: [...(direct.display_recipient as never[]), { id: 6, email: 'c', full_name: 'C', is_mirror_dummy: false }] });
    cache.applyEvents('k', [
      { id: 1, type: 'message', message: message(3, { subject: 'TOPIC' }), flags: [] },
      { id: 2, type: 'message', message: message(6, { subject: 'other' }), flags: [] },
      { id: 3, type: 'message', message: direct, flags: [] },
      { id: 4, type: 'message', message: group, flags: [] },
    ]);
    expect(ids(read(page([]), topic).result)).toEqual([2, 3]);
    expect(ids(read(page([]), dm).result)).toEqual([4]);
  });

  it('drops every window of a credential for an event it does not know, and says so for /readiness', () => {
    const { cache, read, drops } = setup();
    read(page([message(2)]));
    read(page([message(2)]), NEWEST, 'other');
    expect(cache.detail()).toEqual([]);
    cache.applyEvents('k', [{ id: 1, type: 'future_event_type' }]);
    expect(drops).toEqual(['event']);
    expect(cache.detail()).toEqual([expect.stringContaining('future_event_type')]);
    expect(read(page([]), NEWEST, 'other').hit).toBe(true); // another credential keeps its window
  });

  it('drops the windows of an earlier directory generation (a lost or reloaded queue)', () => {
    const { read, drops } = setup();
    read(page([message(2)]));
    expect(read(page([message(2)]), NEWEST, 'k', directory(2)).hit).toBe(false);
    expect(drops).toEqual(['queue']);
  });

  it('stays under its byte cap, least recently used first', () => {
    const drops: WindowDropReason[] = [];
    const cache = new MessageCache({ maxBytes: 6000, onDrop: (reason, n) => drops.push(...Array<WindowDropReason>(n).fill(reason)) });
    const dir = directory();
    const store = (key: string) => {
      const lookup = cache.lookup(key, dir, NEWEST)!;
      if (!lookup.hit) lookup.store(page([message(2), message(3)]));
    };
    store('a');
    store('b');
    expect(cache.stats().windows).toBe(2);
    cache.lookup('a', dir, NEWEST); // a used last
    store('c');
    expect(drops).toEqual(['memory']);
    expect(cache.lookup('a', dir, NEWEST)?.hit).toBeDefined();
    expect(cache.lookup('b', dir, NEWEST)?.hit).toBeUndefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(6000);
  });
});
