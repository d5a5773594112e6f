/**
 * The emulator's default-channel endpoints, driven through src/zulip/routes/default-channels.ts:
 * the administrator rule, private, archived and unknown channels, idempotence and the
 * `default_streams` event.
 */
import { describe, expect, it } from 'vitest';
import { addDefaultStream, removeDefaultStream } from '../../src/zulip/routes/default-channels.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

function setup() {
  const t = setupEmulator();
  const defaults = () => [...t.store.defaultChannelIds].sort((a, b) => a - b);
  return { ...t, defaults };
}

describe('default channels', () => {
  it('adds and removes a default channel, telling non-guests the new list (IDs since feature level 330)', async () => {
    const t = setup();
    const hamlet = await t.listen('hamlet', ['default_streams']);
    const polonius = await t.listen('polonius', ['default_streams']);
    const design = t.channelId('design');
    await addDefaultStream(t.as('iago'), { streamId: design });
    expect(t.defaults()).toEqual([t.channelId('general'), design, t.channelId('announce')].sort((a, b) => a - b));
    await removeDefaultStream(t.as('iago'), { streamId: t.channelId('general') });
    expect(t.defaults()).toEqual([design, t.channelId('announce')].sort((a, b) => a - b));
    const events = (await hamlet()).map((e) => e.default_streams);
    expect(events).toEqual([[t.channelId('general'), design, t.channelId('announce')].sort((a, b) => a - b), t.defaults()]);
    expect(await polonius()).toEqual([]);
  });

  it('changes nothing and sends no event when the channel is already a default', async () => {
    const t = setup();
    const hamlet = await t.listen('hamlet', ['default_streams']);
    const before = t.defaults();
    await addDefaultStream(t.as('iago'), { streamId: t.channelId('general') });
    expect(t.defaults()).toEqual(before);
    expect(await hamlet()).toEqual([]);
  });

  it('needs an organization administrator', async () => {
    const t = setup();
    for (const call of [addDefaultStream(t.as('hamlet'), { streamId: t.channelId('design') }), removeDefaultStream(t.as('shiva'), { streamId: t.channelId('general') })]) {
      const e = await caughtApiError(call);
      expect([e.code, e.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    }
    expect(t.store.defaultChannelIds.has(t.channelId('design'))).toBe(false);
    expect(t.store.defaultChannelIds.has(t.channelId('general'))).toBe(true);
  });

  it('refuses a private channel, and unknown or archived channels as invalid', async () => {
    const t = setup();
    const priv = await caughtApiError(addDefaultStream(t.as('iago'), { streamId: t.channelId('engineering') }));
    expect([priv.code, priv.message]).toEqual(['BAD_REQUEST', 'Private channels cannot be made default.']);
    t.store.channels.get(t.channelId('legacy'))!.is_archived = true;
    for (const streamId of [9999, t.channelId('legacy')]) {
      const e = await caughtApiError(addDefaultStream(t.as('iago'), { streamId }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'Invalid channel ID']);
    }
    const e = await caughtApiError(removeDefaultStream(t.as('iago'), { streamId: 9999 }));
    expect(e.message).toBe('Invalid channel ID');
  });
});
