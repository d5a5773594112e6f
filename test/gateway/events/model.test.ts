/** Parsing raw queue events into the event union. */
import { describe, expect, test } from 'vitest';
import { EVENT_KINDS, SUPPORTED_EVENT_TYPES, parseEvent, type RawEvent } from '../../../src/gateway/events/model.js';

const ev = (fields: Omit<RawEvent, 'id'>): RawEvent => ({ id: 1, ...fields }) as RawEvent;

describe('parseEvent', () => {
  test('heartbeats are not events', () => {
    expect(parseEvent(ev({ type: 'heartbeat' }))).toEqual([]);
  });

  test('a message event carries its flags inside the message, as queries do', () => {
    const [parsed] = parseEvent(ev({ type: 'message', flags: ['read'], message: { id: 5, subject: 't' } }));
    expect(parsed).toMatchObject({ kind: 'MESSAGE', message: { id: 5, flags: ['read'] } });
  });

  test('update_message splits into an edit and a move; a bare rendering update is an edit', () => {
    const both = parseEvent(ev({ type: 'update_message', message_id: 3, message_ids: [3, 4], rendered_content: 'x', orig_subject: 'a', subject: 'b' }));
    expect(both.map((e) => e.kind)).toEqual(['MESSAGE_UPDATED', 'MESSAGE_MOVED']);
    expect(parseEvent(ev({ type: 'update_message', message_id: 3, new_stream_id: 9, orig_subject: 'a' })).map((e) => e.kind)).toEqual(['MESSAGE_MOVED']);
    expect(parseEvent(ev({ type: 'update_message', message_id: 3, rendering_only: true, rendered_content: 'x' })).map((e) => e.kind)).toEqual(['MESSAGE_UPDATED']);
  });

  test('deletions are normalised to a list with or without bulk_message_deletion', () => {
    expect(parseEvent(ev({ type: 'delete_message', message_ids: [1, 2] }))).toMatchObject([{ kind: 'MESSAGE_DELETED', messageIds: [1, 2] }]);
    expect(parseEvent(ev({ type: 'delete_message', message_id: 7 }))).toMatchObject([{ kind: 'MESSAGE_DELETED', messageIds: [7] }]);
  });

  test('reactions, flags and typing are split by op; the legacy reaction user and flag operation are read', () => {
    expect(parseEvent(ev({ type: 'reaction', op: 'remove', message_id: 1, emoji_name: 'x', user: { user_id: 4 } }))).toMatchObject([
      { kind: 'REACTION_REMOVED', wire: { user_id: 4 } },
    ]);
    expect(parseEvent(ev({ type: 'update_message_flags', operation: 'add', flag: 'starred', messages: [1] }))[0]!.kind).toBe('FLAGS_ADDED');
    expect(parseEvent(ev({ type: 'typing', op: 'stop', sender: { user_id: 2 } }))[0]!.kind).toBe('TYPING_STOPPED');
  });

  test('unknown types, unknown ops and malformed shapes pass through as UNKNOWN with their JSON', () => {
    for (const raw of [
      ev({ type: 'brand_new_thing', x: 1 }),
      ev({ type: 'stream', op: 'archive_all' }),
      ev({ type: 'message', message: 'not an object' }),
      ev({ type: 'reaction', op: 'add' }),
      ev({ type: 'typing', op: 'start' }),
      ev({ type: 'submessage', message_id: 'x' }),
    ]) {
      expect(parseEvent(raw)).toEqual([{ kind: 'UNKNOWN', wire: raw }]);
    }
  });

  test('every supported type maps to a kind other than UNKNOWN (with a plausible op)', () => {
    const ops: Record<string, string> = { stream: 'create', subscription: 'add', realm_user: 'add', user_group: 'add', drafts: 'add', scheduled_messages: 'add', user_settings: 'update', attachment: 'add', saved_snippets: 'add', realm: 'update', realm_bot: 'add', realm_domains: 'add', realm_emoji: 'update', realm_user_settings_defaults: 'update', typing_edit_message: 'start', reaction: 'add', update_message_flags: 'add', typing: 'start' };
    const extra = { message: { id: 1 }, message_id: 1, sender_id: 1, sender: { user_id: 1 }, emoji_name: 'x', user_id: 1, flag: 'read', messages: [], rendered_content: 'x', message_ids: [1] };
    for (const type of SUPPORTED_EVENT_TYPES) {
      const [parsed] = parseEvent(ev({ type, op: ops[type], ...extra }));
      expect(parsed?.kind, type).not.toBe('UNKNOWN');
      expect(EVENT_KINDS).toContain(parsed!.kind);
    }
    expect(SUPPORTED_EVENT_TYPES).toContain('restart');
    expect(SUPPORTED_EVENT_TYPES).not.toContain('web_reload_client');
  });
});
