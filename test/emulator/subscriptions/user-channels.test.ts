/**
 * `GET /users/{user_id}/channels` in the emulator (feature level 440), through
 * src/zulip/routes/subscriptions.ts: a user's channels as far as the caller has metadata access
 * (all of them for an administrator), an unknown user refused, and 404 below the level.
 */
import { describe, expect, it } from 'vitest';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { getUserChannels } from '../../../src/zulip/routes/subscriptions.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

describe('get-user-channels', () => {
  it('lists the channels the caller may see the user in', async () => {
    const t = setupEmulator({ settings: { featureLevel: featureLevels.userChannels } });
    const ids = (...names: string[]) => names.map((n) => t.channelId(n)).sort((a, b) => a - b);
    const hamlet = t.userId('hamlet');
    expect(await getUserChannels(t.as('iago'), { userId: hamlet })).toMatchObject({ subscribed_channel_ids: ids('general', 'design', 'engineering', 'announce') });
    // Cordelia cannot see the private engineering channel.
    expect(await getUserChannels(t.as('cordelia'), { userId: hamlet })).toMatchObject({ subscribed_channel_ids: ids('general', 'design', 'announce') });
    const unknown = await caughtApiError(getUserChannels(t.as('iago'), { userId: 9999 }));
    expect([unknown.code, unknown.message]).toEqual(['BAD_REQUEST', 'No such user']);
  });

  it('is 404 below feature level 440', async () => {
    const t = setupEmulator({ settings: { featureLevel: featureLevels.userChannels - 1 } });
    expect((await caughtApiError(getUserChannels(t.as('iago'), { userId: t.userId('hamlet') }))).httpStatus).toBe(404);
  });
});
