/** Per-subscription filters: Zulip's event-narrow semantics, evaluated in the gateway. */
import { describe, expect, test } from 'vitest';
import { MessageIndex, compileFilter, type FilterTerm } from '../../../src/gateway/events/filters.js';
import { parseEvent, type GatewayEvent, type RawEvent } from '../../../src/gateway/events/model.js';
import type { Message } from '../../../src/zulip/model/messages.js';

const one = (raw: Omit<RawEvent, 'id'>): GatewayEvent => parseEvent({ id: 1, ...raw } as RawEvent)[0]!;
const message = (fields: Partial<Message>): Message =>
  ({ id: 10, type: 'stream', stream_id: 1, display_recipient: 'General', subject: 'Plans', sender_id: 4, flags: [], ...fields }) as Message;
const messageEvent = (fields: Partial<Message>, flags: string[] = []) => one({ type: 'message', message: message(fields), flags });

function test3(terms: FilterTerm[], event: GatewayEvent, index = new MessageIndex()) {
  return compileFilter({ terms }).test(event, index);
}

describe('compileFilter', () => {
  test('kinds select; RESYNC always passes', () => {
    const filter = compileFilter({ kinds: ['TYPING_STARTED'] });
    expect(filter.test(messageEvent({}), new MessageIndex())).toBe(false);
    expect(filter.test(one({ type: 'typing', op: 'start', sender: { user_id: 1 } }), new MessageIndex())).toBe(true);
    expect(filter.test({ kind: 'RESYNC', reason: 'QUEUE_EXPIRED', featureLevel: 1 }, new MessageIndex())).toBe(true);
  });

  test('channel by ID or name (case-insensitive), topic (case-insensitive), sender, negation', () => {
    const event = messageEvent({});
    expect(test3([{ operator: 'channel', channelId: 1 }], event)).toBe(true);
    expect(test3([{ operator: 'channel', channelId: 2 }], event)).toBe(false);
    expect(test3([{ operator: 'channelName', name: 'general' }], event)).toBe(true);
    expect(test3([{ operator: 'topic', topic: 'PLANS' }], event)).toBe(true);
    expect(test3([{ operator: 'sender', userId: 4 }], event)).toBe(true);
    expect(test3([{ operator: 'sender', userId: 4, negated: true }], event)).toBe(false);
    expect(test3([{ operator: 'topic', topic: 'x' }], messageEvent({ type: 'private', display_recipient: [], subject: '' }))).toBe(false);
  });

  test('is: states read from flags and topic; dm conversations with the caller unnamed', () => {
    expect(test3([{ operator: 'is', state: 'unread' }], messageEvent({}, ['read']))).toBe(false);
    expect(test3([{ operator: 'is', state: 'starred' }], messageEvent({}, ['starred']))).toBe(true);
    expect(test3([{ operator: 'is', state: 'mentioned' }], messageEvent({}, ['topic_wildcard_mentioned']))).toBe(true);
    expect(test3([{ operator: 'is', state: 'resolved' }], messageEvent({ subject: '\u2714 done' }))).toBe(true);
    const dm = messageEvent({ type: 'private', display_recipient: [{ id: 1, email: '', full_name: '' }, { id: 2, email: '', full_name: '' }, { id: 3, email: '', full_name: '' }] });
    expect(test3([{ operator: 'is', state: 'dm' }], dm)).toBe(true);
    expect(test3([{ operator: 'dm', userIds: [2, 3] }], dm)).toBe(true); // the caller (1) is unnamed
    expect(test3([{ operator: 'dm', userIds: [2] }], dm)).toBe(false); // 3 is not named
    expect(test3([{ operator: 'dmIncluding', userId: 3 }], dm)).toBe(true);
  });

  test('an edit is placed through the index of seen messages, or needs a lookup', () => {
    const index = new MessageIndex();
    const edit = one({ type: 'update_message', message_id: 10, rendered_content: 'x' });
    const topic: FilterTerm[] = [{ operator: 'topic', topic: 'plans' }];
    expect(test3(topic, edit, index)).toBe('lookup');
    index.learn(messageEvent({}));
    expect(test3(topic, edit, index)).toBe(true);
    index.learn(one({ type: 'update_message', message_id: 10, message_ids: [10], orig_subject: 'Plans', subject: 'later' }));
    expect(test3(topic, edit, index)).toBe(false);
    // Once loaded, the message decides.
    expect(compileFilter({ terms: topic }).testMessage(edit, message({ subject: 'plans' }))).toBe(true);
  });

  test('a move matches where the messages were or where they went', () => {
    const move = one({ type: 'update_message', message_id: 10, message_ids: [10], stream_id: 1, new_stream_id: 2, orig_subject: 'a', subject: 'b' });
    expect(test3([{ operator: 'channel', channelId: 1 }, { operator: 'topic', topic: 'a' }], move)).toBe(true);
    expect(test3([{ operator: 'channel', channelId: 2 }, { operator: 'topic', topic: 'b' }], move)).toBe(true);
    expect(test3([{ operator: 'channel', channelId: 2 }, { operator: 'topic', topic: 'a' }], move)).toBe(false);
  });

  test('channel-level events answer channel and topic terms only; unplaced events fail any term', () => {
    const update = one({ type: 'stream', op: 'update', stream_id: 1, property: 'description', value: 'x' });
    expect(test3([{ operator: 'channel', channelId: 1 }], update)).toBe(true);
    expect(test3([{ operator: 'channel', channelId: 1 }, { operator: 'sender', userId: 4 }], update)).toBe(false);
    expect(test3([{ operator: 'channel', channelId: 1 }], one({ type: 'presence', user_id: 1 }))).toBe(false);
    expect(compileFilter({}).test(one({ type: 'presence', user_id: 1 }), new MessageIndex())).toBe(true);
  });

  test('the index is bounded', () => {
    const index = new MessageIndex(3);
    for (let id = 1; id <= 5; id++) index.learn(messageEvent({ id }));
    expect([1, 2, 3, 4, 5].map((id) => index.get(id) !== undefined)).toEqual([false, false, true, true, true]);
  });
});
