/**
 * The one table of event types (src/gateway/events/types.ts) against Zulip's own list of events
 * (test/fixtures/zulip-event-types.json, the event objects of https://zulip.com/api/get-events), and
 * the parts derived from it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyToWindows } from '../../../src/gateway/directory/messages/events.js';
import { DIRECTORY_EVENT_TYPES } from '../../../src/gateway/directory/register.js';
import { parseEvent, SUPPORTED_EVENT_TYPES } from '../../../src/gateway/events/model.js';
import { eg } from '../../fixtures/eg.js';
import { EVENT_KINDS, EVENT_TYPES, kindsOf, LIVE_BY_KIND, OPS_BY_TYPE, UNREADS_EVENT_TYPES } from '../../../src/gateway/events/types.js';

const zulip = JSON.parse(readFileSync(new URL('../../fixtures/zulip-event-types.json', import.meta.url), 'utf8')) as { events: [string, string | null][] };

/** Legacy settings events of servers before feature level 89, gone from the current list (feature level 439). */
const LEGACY = new Set(['update_display_settings', 'update_global_notifications']);

const opsOf = (type: string) => zulip.events.filter(([t]) => t === type).map(([, op]) => op);

describe('the event table', () => {
  it('has exactly one entry for every event type and op of Zulip’s list that it models', () => {
    for (const [type, op] of zulip.events) {
      const entry = EVENT_TYPES[type];
      if (!entry) continue;
      // An entry gives its kinds once: for the type, or for each op, never both.
      expect(entry.kinds !== undefined && entry.ops !== undefined, type).toBe(false);
      if (entry.ops) expect(Object.keys(entry.ops), `${type}/${op}`).toContain(op);
    }
  });

  it('names only events Zulip sends, with the ops Zulip gives them', () => {
    for (const [type, entry] of Object.entries(EVENT_TYPES)) {
      if (LEGACY.has(type)) continue;
      expect(opsOf(type).length, `${type} is in Zulip's list`).toBeGreaterThan(0);
      for (const op of Object.keys(entry.ops ?? {})) expect(opsOf(type), `${type}/${op}`).toContain(op);
    }
  });

  it('leaves no kind without an entry, and gives each kind one set of live resources', () => {
    const yielded = new Map<string, Set<string>>();
    for (const entry of Object.values(EVENT_TYPES)) {
      for (const kinds of [entry.kinds ?? {}, ...Object.values(entry.ops ?? {})]) {
        for (const [kind, live] of Object.entries(kinds)) yielded.set(kind, (yielded.get(kind) ?? new Set()).add(live));
      }
    }
    for (const kind of EVENT_KINDS) {
      if (kind === 'UNKNOWN' || kind === 'RESYNC') expect(yielded.has(kind), kind).toBe(false);
      else expect([...(yielded.get(kind) ?? [])], kind).toEqual([LIVE_BY_KIND[kind]]);
    }
  });

  it('drives the parser: every registered type and op yields the table’s kinds, any other op is UNKNOWN', () => {
    const sender = eg.user();
    const message = eg.streamMessage({ sender });
    const fields = { message, message_id: message.id, sender_id: sender.user_id, sender, emoji_name: 'x', user_id: sender.user_id, flag: 'read', messages: [] };
    for (const type of SUPPORTED_EVENT_TYPES) {
      for (const op of OPS_BY_TYPE[type] ?? [undefined]) {
        const raw = eg.event(type, { op, ...fields, ...(type === 'update_message' && { rendered_content: 'x', orig_subject: 'a' }) });
        expect(parseEvent(raw).map((e) => e.kind), `${type}/${op}`).toEqual(Object.keys(kindsOf(type, op)!));
      }
      if (OPS_BY_TYPE[type]) expect(parseEvent(eg.event(type, { ...fields, op: 'not_an_op' }))[0]!.kind).toBe('UNKNOWN');
    }
  });

  it('drives the registrations: the directory follows its types and the unreads’, subscribers every registered type', () => {
    const withEffect = (effect: 'directory' | 'unreads') => Object.keys(EVENT_TYPES).filter((t) => EVENT_TYPES[t]![effect] !== undefined);
    expect(UNREADS_EVENT_TYPES).toEqual(['message', 'update_message', 'delete_message', 'update_message_flags', 'user_topic']);
    expect(new Set(DIRECTORY_EVENT_TYPES)).toEqual(new Set([...withEffect('directory'), ...withEffect('unreads')]));
    expect(DIRECTORY_EVENT_TYPES).toContain('restart');
    expect(SUPPORTED_EVENT_TYPES).toEqual(Object.keys(EVENT_TYPES).filter((t) => EVENT_TYPES[t]!.registered));
    expect(SUPPORTED_EVENT_TYPES).not.toContain('web_reload_client');
  });

  it('drives the message cache: an inert type drops nothing, a type the table does not know drops every window', () => {
    for (const [type, entry] of Object.entries(EVENT_TYPES)) {
      if (entry.messageCache !== 'none') continue;
      const outcome = applyToWindows([], { id: 1, type, op: 'add' });
      expect(outcome.dropAll, type).toBeUndefined();
    }
    expect(applyToWindows([], { id: 1, type: 'brand_new_thing' })).toMatchObject({ dropAll: 'event', unknownType: 'brand_new_thing' });
    expect(applyToWindows([], { id: 1, type: 'realm_linkifiers' }).dropAll).toBe('realm');
  });
});
