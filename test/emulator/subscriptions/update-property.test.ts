/**
 * `PATCH /users/me/subscriptions/{stream_id}` in the emulator, through
 * src/zulip/routes/subscriptions.ts: the value read as Zulip's view reads it (JSON boolean or
 * text), the property checks, and the refusal for a channel the caller is not subscribed to.
 */
import { describe, expect, it } from 'vitest';
import { updateSubscriptionProperty } from '../../../src/zulip/routes/subscriptions.js';
import { caughtApiError, setupEmulator } from '../../helpers/emulator.js';

describe('update-subscription-property', () => {
  it('sets a boolean or a color, with a subscription update event', async () => {
    const t = setupEmulator({ eventTypes: ['subscription'] });
    const general = t.channelId('general');
    const drain = await t.listen('hamlet');
    await updateSubscriptionProperty(t.as('hamlet'), { streamId: general, property: 'pin_to_top', value: true });
    await updateSubscriptionProperty(t.as('hamlet'), { streamId: general, property: 'color', value: '#123456' });
    expect(t.store.subscription(general, t.userId('hamlet'))).toMatchObject({ pin_to_top: true, color: '#123456' });
    expect((await drain()).map((e) => [e.op, e.property, e.value])).toEqual([
      ['update', 'pin_to_top', true],
      ['update', 'color', '#123456'],
    ]);
  });

  it('refuses a bad value, an unknown property and a channel the caller is not subscribed to', async () => {
    const t = setupEmulator();
    const general = t.channelId('general');
    const hamlet = t.as('hamlet');
    expect((await caughtApiError(updateSubscriptionProperty(hamlet, { streamId: general, property: 'pin_to_top', value: 'yes' }))).message).toBe('pin_to_top is not a boolean');
    expect((await caughtApiError(updateSubscriptionProperty(hamlet, { streamId: general, property: 'color', value: 'red' }))).message).toBe('color is not a valid hex color code');
    expect((await caughtApiError(updateSubscriptionProperty(hamlet, { streamId: general, property: 'nope' as 'color', value: true }))).message).toBe('Unknown subscription property: nope');
    t.store.subscriptions.get(general)!.delete(t.userId('hamlet'));
    expect((await caughtApiError(updateSubscriptionProperty(hamlet, { streamId: general, property: 'pin_to_top', value: true }))).message).toBe(
      `Not subscribed to channel ID ${general}`,
    );
  });
});
