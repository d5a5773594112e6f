/**
 * The emulator's mute-user and unmute-user, driven through src/zulip/routes/muted-users.ts: the
 * errors Zulip documents, the muted user's messages marked read, the `muted_users` event, the
 * register state and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import { muteUser, unmuteUser } from '../../src/zulip/routes/muted-users.js';
import { sendMessage } from '../../src/zulip/routes/messages.js';
import { json } from '../../src/zulip/params.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const START = Date.UTC(2026, 0, 1);
const NOW = START / 1000;

describe('mute-user and unmute-user', () => {
  it('mutes and unmutes, with a muted_users event each time and the register state', async () => {
    const t = setupEmulator({ clock: new ManualClock(START) });
    const hamlet = t.as('hamlet');
    const iago = t.userId('iago');
    const drain = await t.listen('hamlet', ['muted_users']);
    expect(await muteUser(hamlet, { mutedUserId: iago })).toMatchObject({ result: 'success' });
    const state = await hamlet.request<{ muted_users: unknown }>('register', 'POST', 'register', { fetch_event_types: json(['muted_users']) });
    expect(state.muted_users).toEqual([{ id: iago, timestamp: NOW }]);
    expect(await unmuteUser(hamlet, { mutedUserId: iago })).toMatchObject({ result: 'success' });
    expect((await drain()).map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'muted_users', muted_users: [{ id: iago, timestamp: NOW }] },
      { type: 'muted_users', muted_users: [] },
    ]);
    expect(t.store.mutedUsers.get(t.userId('hamlet'))?.size).toBe(0);
  });

  it('marks the muted user\u2019s messages read for the caller, with an update_message_flags event', async () => {
    const t = setupEmulator();
    const hamlet = t.userId('hamlet');
    const { id } = await sendMessage(t.as('iago'), { type: 'direct', to: [hamlet], content: 'Hello' });
    const iago = t.userId('iago');
    const unreadFromIago = [...t.store.messages.values()].filter((m) => m.sender_id === iago && !t.store.hasFlag(hamlet, m.id, 'read')).map((m) => m.id);
    expect(unreadFromIago).toContain(id);
    const drain = await t.listen('hamlet', ['update_message_flags']);
    await muteUser(t.as('hamlet'), { mutedUserId: iago });
    expect(unreadFromIago.filter((m) => !t.store.hasFlag(hamlet, m, 'read'))).toEqual([]);
    expect(await drain()).toMatchObject([{ type: 'update_message_flags', op: 'add', flag: 'read', messages: unreadFromIago }]);
  });

  it('answers the documented errors', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const iago = t.userId('iago');
    const cases: [Promise<unknown>, string][] = [
      [muteUser(hamlet, { mutedUserId: t.userId('hamlet') }), 'Cannot mute self'],
      [muteUser(hamlet, { mutedUserId: 4242 }), 'No such user'],
      [unmuteUser(hamlet, { mutedUserId: 4242 }), 'No such user'],
      [unmuteUser(hamlet, { mutedUserId: iago }), 'User is not muted'],
    ];
    for (const [call, message] of cases) expect(await caughtApiError(call)).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, message });
    await muteUser(hamlet, { mutedUserId: iago });
    expect((await caughtApiError(muteUser(hamlet, { mutedUserId: iago }))).message).toBe('User already muted');
  });

  it('has no such route below feature level 48', async () => {
    const t = setupEmulator({ settings: { featureLevel: 47 } });
    expect(await caughtApiError(muteUser(t.as('hamlet'), { mutedUserId: t.userId('iago') }))).toMatchObject({ httpStatus: 404 });
  });
});
