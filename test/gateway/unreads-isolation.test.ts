/**
 * The unread counts' twin of the directory's isolation tests (directory/live.test.ts, "a guest and
 * an administrator"): each credential's counts come from its own queue, hold only messages that
 * were sent to it, and equal what the emulator computes for that user alone, with no crossing.
 */
import { describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/zulip/routes/messages.js';
import { setupHarness } from '../helpers/harness.js';
import { caughtUp, expectAsZulip, rest, UNREADS_CALLS, unreadsOf } from '../helpers/unreads.js';

describe('unread counts per credential', () => {
  it('keep a guest and an administrator to their own messages', async () => {
    const h = setupHarness();
    await caughtUp(h, 'polonius');
    await caughtUp(h, 'iago');
    const shiva = rest(h, 'shiva');
    // Private channel of administrators and engineers (not the guest); a direct message to each.
    const secret = await sendMessage(shiva, { type: 'stream', to: h.channelId('engineering'), topic: 'secrets', content: 'Staff only.' });
    const toIago = await sendMessage(shiva, { type: 'private', to: [h.userId('iago')], content: 'For Iago.' });
    const toGuest = await sendMessage(shiva, { type: 'private', to: [h.userId('polonius')], content: 'For Polonius.' });
    const everyone = await sendMessage(shiva, { type: 'stream', to: h.channelId('general'), topic: 'all hands', content: 'For all.' });

    const admin = await expectAsZulip(h, 'iago');
    const guest = await expectAsZulip(h, 'polonius');
    const ids = (answer: typeof admin) => [
      ...answer.channels.flatMap((c) => c.topics.flatMap((t) => t.messageIds)),
      ...answer.directMessages.flatMap((d) => d.messageIds),
    ];
    expect(ids(admin)).toEqual(expect.arrayContaining([secret.id, toIago.id, everyone.id]));
    expect(ids(admin)).not.toContain(toGuest.id);
    expect(ids(guest)).toEqual(expect.arrayContaining([toGuest.id, everyone.id]));
    expect(ids(guest)).not.toContain(secret.id);
    expect(ids(guest)).not.toContain(toIago.id);
    expect(guest.channels.map((c) => c.channelId)).not.toContain(h.channelId('engineering'));

    // Asked at the same time, interleaved, each still gets exactly their own answer.
    h.resetUpstreamRequests();
    const both = await Promise.all(['iago', 'polonius', 'iago', 'polonius'].map((login) => unreadsOf(h, login)));
    expect(both).toEqual([admin, guest, admin, guest]);
    expect(h.upstreamRequests.length).toBe(UNREADS_CALLS.length * 4);
  });
});
