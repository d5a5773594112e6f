/**
 * What each event invalidates and what each narrow records (live/resources.ts): the names a live
 * query's reads and its credential's events must agree on.
 */
import { describe, expect, it } from 'vitest';
import { parseEvent, type RawEvent } from '../../../src/gateway/events/model.js';
import { EVERYTHING, eventResources, narrowResources, UNREADS } from '../../../src/gateway/live/resources.js';
import { eg } from '../../fixtures/eg.js';

const of = (raw: Record<string, unknown>) => parseEvent({ id: 1, ...raw } as RawEvent).flatMap(eventResources);

describe('eventResources', () => {
  it('a new unread channel message: its channel\u2019s narrows, every-message narrows and the unread counts', () => {
    const message = eg.streamMessage({ channel: eg.channel({ stream_id: 3 }) });
    expect(parseEvent(eg.messageEvent(message, [])).flatMap(eventResources).sort()).toEqual(
      ['Channel:3', 'Narrow:*', 'Narrow:channel:3', 'Query.topics', UNREADS].sort(),
    );
  });

  it('the caller\u2019s own message (read) leaves the unread counts alone; a direct message names no channel', () => {
    expect(parseEvent(eg.messageEvent(eg.dmMessage(), ['read'])).flatMap(eventResources)).toEqual(['Narrow:*', 'Narrow:dm']);
  });

  it('edits, reactions and flags name their messages; read flags the unread counts too', () => {
    expect(of({ type: 'update_message', message_id: 4, content: 'x', rendered_content: '<p>x</p>', flags: ['read'] })).toEqual(['Message:4']);
    expect(of({ type: 'reaction', op: 'add', message_id: 4, user_id: 2, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' })).toEqual(['Message:4']);
    expect(of({ type: 'update_message_flags', op: 'add', flag: 'read', messages: [4, 5], all: false })).toEqual(['Message:4', 'Message:5', 'Narrow:flags', UNREADS]);
    expect(of({ type: 'update_message_flags', op: 'add', flag: 'starred', messages: [4], all: false })).toEqual(['Message:4', 'Narrow:flags']);
  });

  it('a user\u2019s update names that user; typing nothing; unmodelled events everything', () => {
    expect(of({ type: 'realm_user', op: 'update', person: { user_id: 7, full_name: 'New' } })).toEqual(['User:7']);
    expect(of({ type: 'typing', op: 'start', sender: { user_id: 7 }, message_type: 'direct', recipients: [] })).toEqual([]);
    expect(of({ type: 'realm', op: 'update', property: 'name', value: 'x' })).toEqual([EVERYTHING]);
  });
});

describe('narrowResources', () => {
  it('pins one channel, direct messages, or any message; `is` adds the flags', () => {
    expect(narrowResources({ channelId: 3, topic: 'x' } as never)).toEqual(['Narrow:channel:3']);
    expect(narrowResources({ dmUserIds: [4] })).toEqual(['Narrow:dm']);
    expect(narrowResources(undefined)).toEqual(['Narrow:*']);
    expect(narrowResources({ is: ['UNREAD'] })).toEqual(['Narrow:*', 'Narrow:flags']);
  });
});
