/**
 * The emulator's user status, driven through src/zulip/routes/user-status.ts: update and read
 * back, clearing, the documented errors, the `user_status` event and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { getUserStatus, updateStatus } from '../../src/zulip/routes/user-status.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

describe('user status', () => {
  it('sets, reads back and clears a status, with a user_status event to other users', async () => {
    const t = setupEmulator();
    const hamlet = t.userId('hamlet');
    const drain = await t.listen('iago', ['user_status']);
    await updateStatus(t.as('hamlet'), { statusText: ' On stage ', emojiName: 'smile' });
    expect((await getUserStatus(t.as('iago'), { userId: hamlet })).status).toEqual({
      status_text: 'On stage', emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji',
    });
    await updateStatus(t.as('hamlet'), { statusText: '', emojiName: '' });
    expect((await getUserStatus(t.as('iago'), { userId: hamlet })).status).toEqual({});
    expect(await drain()).toMatchObject([
      { type: 'user_status', user_id: hamlet, status_text: 'On stage', emoji_name: 'smile' },
      { type: 'user_status', user_id: hamlet, status_text: '', emoji_name: '', emoji_code: '' },
    ]);
  });

  it('answers the documented errors', async () => {
    const t = setupEmulator();
    const hamlet = t.as('hamlet');
    const cases: [Promise<unknown>, string][] = [
      [updateStatus(hamlet, {}), 'Client did not pass any new values.'],
      [updateStatus(hamlet, { statusText: 'x'.repeat(61) }), 'status_text is too long (limit: 60 characters)'],
      [updateStatus(hamlet, { emojiCode: '1f604' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
      [updateStatus(hamlet, { emojiName: 'invalid' }), "Emoji 'invalid' does not exist"],
      [getUserStatus(hamlet, { userId: 4242 }), 'No such user'],
    ];
    for (const [call, message] of cases) expect(await caughtApiError(call)).toMatchObject({ code: 'BAD_REQUEST', message });
  });

  it('has no GET /users/{user_id}/status below feature level 262', async () => {
    const t = setupEmulator({ settings: { featureLevel: 261 } });
    expect(await caughtApiError(getUserStatus(t.as('hamlet'), { userId: t.userId('iago') }))).toMatchObject({ httpStatus: 404 });
  });
});
