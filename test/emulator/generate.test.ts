/**
 * The large-organization generator: deterministic for a seed, shaped like a real organization
 * (power-law channel sizes, direct messages, unreads, Markdown), consistent with the store's
 * indexes, and usable through the emulator's endpoints.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/app.js';
import { generateLargeOrganization, seededRandom } from '../../src/emulator/generate.js';
import type { Store } from '../../src/emulator/store.js';
import { ZulipConnection } from '../../src/zulip/connection.js';
import { getMessages } from '../../src/zulip/routes/messages.js';
import { validateResponse } from '../helpers/openapi.js';

const NOW = Date.UTC(2026, 0, 1);
const options = { users: 300, channels: 30, messages: 20_000, nowMs: NOW };

/** A fingerprint of everything the generator decides. */
function summary(store: Store): string {
  const flags = [...store.flags].map(([u, byFlag]) => [u, [...byFlag].map(([f, ids]) => [f, [...ids].sort((a, b) => a - b)])]);
  const subs = [...store.subscriptions].map(([c, users]) => [c, [...users.keys()]]);
  return JSON.stringify({ users: [...store.users.values()], channels: [...store.channels.values()], subs, messages: [...store.messages.values()], flags });
}

describe('generateLargeOrganization', () => {
  const store = generateLargeOrganization({ ...options, seed: 11 });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(summary(generateLargeOrganization({ ...options, seed: 11 }))).toBe(summary(store));
    expect(summary(generateLargeOrganization({ ...options, seed: 12 }))).not.toBe(summary(store));
    const a = seededRandom(5);
    const b = seededRandom(5);
    const values = Array.from({ length: 5 }, () => a());
    expect(values).toEqual(Array.from({ length: 5 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
  });

  it('has the requested size, every role, and a power-law channel size distribution', () => {
    expect([store.users.size, store.channels.size, store.messages.size]).toEqual([300, 30, 20_000]);
    const roles = new Set([...store.users.values()].map((u) => u.role));
    expect([...roles].sort()).toEqual([100, 200, 300, 400, 600]);
    expect([...store.users.values()].some((u) => u.is_bot && u.bot_owner_id !== null)).toBe(true);
    const sizes = [...store.channels.values()].map((c) => store.subscriberIds(c.stream_id).length);
    expect(sizes[0]).toBe(300); // general: everyone
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(3);
    const sorted = [...sizes].sort((a, b) => b - a);
    expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThan(sorted[0]! / 5);
    const channels = [...store.channels.values()];
    expect(channels.some((c) => c.invite_only)).toBe(true);
    expect(channels.some((c) => c.is_web_public)).toBe(true);
    expect(channels.some((c) => c.is_archived)).toBe(true);
    const perUser = [...store.users.keys()].map((u) => store.subscribedChannelIds(u).length);
    const average = perUser.reduce((a, b) => a + b, 0) / perUser.length;
    expect(average).toBeGreaterThan(2);
    expect(average).toBeLessThan(20);
  });

  it('fills the message indexes consistently and in id order', () => {
    let indexed = 0;
    for (const c of store.channels.values()) {
      const ids = store.channelMessageIds(c.stream_id);
      expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true);
      expect(ids.every((id) => store.messages.get(id)!.stream_id === c.stream_id)).toBe(true);
      indexed += ids.length;
    }
    const dms = [...store.messages.values()].filter((m) => m.type === 'private');
    expect(indexed + dms.length).toBe(store.messages.size);
    expect(dms.length / store.messages.size).toBeGreaterThan(0.08);
    expect(dms.length / store.messages.size).toBeLessThan(0.16);
    const m = dms[0]!;
    for (const u of m.dm_user_ids!) expect(store.dmMessageIds(u)).toContain(m.id);
    const timestamps = [...store.messages.values()].map((x) => x.timestamp);
    expect(timestamps.every((t, i) => i === 0 || timestamps[i - 1]! <= t)).toBe(true);
    expect(timestamps.at(-1)!).toBeLessThanOrEqual(NOW / 1000);
  });

  it('mixes in unreads, Markdown, mentions, reactions, edits and resolved or empty topics', () => {
    const all = [...store.messages.values()];
    let unread = 0;
    for (const byFlag of store.flags.values()) unread += byFlag.get('unread')?.size ?? 0;
    expect(unread).toBeGreaterThan(100);
    expect(unread).toBeLessThan(store.messages.size);
    expect(all.some((m) => m.rendered_content.includes('<strong>'))).toBe(true);
    expect(all.some((m) => m.rendered_content.includes('class="user-mention"'))).toBe(true);
    expect(all.some((m) => m.reactions.length > 0)).toBe(true);
    expect(all.some((m) => m.edit_history.length > 0 && m.last_edit_timestamp !== undefined)).toBe(true);
    expect(all.some((m) => m.topic.startsWith('✔ '))).toBe(true);
    expect(all.some((m) => m.type === 'stream' && m.topic === '')).toBe(true);
    // Mentioned users carry the flag.
    const mention = all.find((m) => m.rendered_content.includes('class="user-mention"'))!;
    const mentioned = Number(/data-user-id="(\d+)"/.exec(mention.rendered_content)![1]);
    expect(store.hasFlag(mentioned, mention.id, 'mentioned')).toBe(true);
  });

  it('serves GET /messages through the emulator', async () => {
    const emulator = createEmulator({ seed: () => store });
    try {
      const user = [...store.users.values()].find((u) => !u.is_bot && u.role === 400)!;
      const conn = new ZulipConnection({
        baseUrl: 'http://large.test',
        credentials: { email: user.delivery_email, apiKey: user.api_key },
        fetch: (input, init) => emulator.fetch(new Request(input, init)),
      });
      const body = await getMessages(conn, { anchor: 'newest', numBefore: 100, numAfter: 0, narrow: [{ operator: 'channel', operand: 'general' }] });
      expect(validateResponse({ method: 'get', path: '/messages' }, 200, body).errors).toBe('');
      expect(body.messages).toHaveLength(100);
      expect(body.messages.every((m) => m.display_recipient === 'general')).toBe(true);
      const unread = await getMessages(conn, { anchor: 'first_unread', numBefore: 0, numAfter: 5 });
      expect(unread.found_anchor).toBe(true);
    } finally {
      await emulator.close();
    }
  });
});
