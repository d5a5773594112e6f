/**
 * The emulator's deprecated push token endpoints, driven through the REST client: tokens kept per
 * user and kind, Zulip's validation errors, and removal of an unknown token refused, with no
 * token in any error message.
 */
import { describe, expect, it } from 'vitest';
import { addApnsToken, addFcmToken, removeApnsToken, removeFcmToken } from '../../src/zulip/routes/mobile.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const APNS = 'c0ffee00';
const FCM = 'fcm-registration:token';

describe('push tokens (deprecated endpoints)', () => {
  it('adds and removes APNs and FCM tokens per user and kind', async () => {
    const { as, store, userId } = setupEmulator();
    await addApnsToken(as('hamlet'), { token: APNS, appid: 'org.zulip.Zulip' });
    await addFcmToken(as('hamlet'), { token: FCM });
    expect([...store.pushTokens.get(userId('hamlet'))!.values()]).toEqual([
      { kind: 'apns', token: APNS, appid: 'org.zulip.Zulip' },
      { kind: 'fcm', token: FCM },
    ]);
    // Another user, or the other kind, does not hold the token.
    expect((await caughtApiError(removeFcmToken(as('iago'), { token: FCM }))).message).toBe('Token does not exist');
    expect((await caughtApiError(removeApnsToken(as('hamlet'), { token: 'abcd' }))).message).toBe('Token does not exist');
    await removeApnsToken(as('hamlet'), { token: APNS });
    await removeFcmToken(as('hamlet'), { token: FCM });
    expect(store.pushTokens.get(userId('hamlet'))!.size).toBe(0);
  });

  it('refuses empty, over-long and non-hex APNs tokens and bad app IDs, never echoing the token', async () => {
    const { as } = setupEmulator();
    const cases = [
      [addFcmToken(as('hamlet'), { token: '' }), 'Empty or invalid length token'],
      [addFcmToken(as('hamlet'), { token: 'x'.repeat(4097) }), 'Empty or invalid length token'],
      [addApnsToken(as('hamlet'), { token: 'not-hex-secret', appid: 'org.zulip.Zulip' }), 'Invalid APNS token'],
      [addApnsToken(as('hamlet'), { token: APNS, appid: 'bad app id!' }), 'Invalid app ID'],
    ] as const;
    for (const [call, message] of cases) {
      const e = await caughtApiError(call);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', message]);
      expect(JSON.stringify(e.data ?? {})).not.toContain('not-hex-secret');
    }
  });
});
