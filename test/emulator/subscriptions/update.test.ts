/**
 * `PATCH /users/me/subscriptions` in the emulator, through src/zulip/routes/subscriptions.ts: the
 * caller joins (creating a channel) and leaves in one call with both results merged and the
 * `subscription` events of each; an unknown channel to leave changes nothing; an empty request is
 * refused.
 */
import { describe, expect, it } from 'vitest';
import { updateSubscriptions } from '../../../src/zulip/routes/subscriptions.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

describe('update-subscriptions', () => {
  it('subscribes and unsubscribes the caller in one call, with the events of both', async () => {
    const t = setupEmulator({ eventTypes: ['subscription'] });
    const hamlet = t.userId('hamlet');
    const drain = await t.listen('hamlet');
    const result = await updateSubscriptions(t.as('hamlet'), { add: [{ name: 'kitchen', color: '#123456' }, { name: 'general' }], delete: ['design'] });
    expect(result).toMatchObject({
      subscribed: { [String(hamlet)]: ['kitchen'] },
      already_subscribed: { [String(hamlet)]: ['general'] },
      removed: ['design'],
      not_removed: [],
    });
    const kitchen = t.store.channelByName('kitchen')!;
    expect(t.store.subscription(kitchen.stream_id, hamlet)).toMatchObject({ color: '#123456' });
    expect(t.store.isSubscribed(hamlet, t.channelId('design'))).toBe(false);
    expect((await drain()).filter((e) => e.op === 'add' || e.op === 'remove').map((e) => e.op)).toEqual(['add', 'remove']);
    const leaveOnly = await updateSubscriptions(t.as('hamlet'), { delete: ['design'] });
    expect(leaveOnly).toMatchObject({ subscribed: {}, already_subscribed: {}, removed: [], not_removed: ['design'] });
  });

  it('changes nothing when a channel to leave does not exist, and refuses an empty request', async () => {
    const t = setupEmulator();
    const e = await caughtApiError(updateSubscriptions(t.as('hamlet'), { add: [{ name: 'kitchen' }], delete: ['nowhere'] }));
    expect([e.code, e.message]).toEqual(['STREAM_DOES_NOT_EXIST', "Channel 'nowhere' does not exist"]);
    expect(t.store.channelByName('kitchen')).toBeUndefined();
    const empty = await caughtApiError(updateSubscriptions(t.as('hamlet'), { add: [], delete: [] }));
    expect([empty.code, empty.message]).toEqual(['BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".']);
    const guest = await caughtApiError(updateSubscriptions(t.as('polonius'), { add: [{ name: 'general' }] }));
    expect(guest.message).toBe('Not allowed for guest users');
  });
});
