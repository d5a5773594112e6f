/** The emulator's custom emoji list, driven through src/zulip/routes/emoji.ts, and its register key. */
import { describe, expect, it } from 'vitest';
import { getCustomEmoji } from '../../src/zulip/routes/emoji.js';
import { registerQueue } from '../../src/zulip/routes/events.js';
import { expectValidResponse, setupEmulator } from '../helpers/emulator.js';

function setup() {
  const t = setupEmulator();
  const realmId = t.store.realm.id;
  t.store.customEmoji.set(7, { id: 7, name: 'octopus', file_name: '7.png', still_file_name: null, deactivated: false, author_id: t.userId('hamlet') });
  t.store.customEmoji.set(3, { id: 3, name: 'party', file_name: '3.gif', still_file_name: '3.png', deactivated: true, author_id: null });
  return { ...t, realmId };
}

describe('GET /realm/emoji', () => {
  it('lists every custom emoji by ID, deactivated ones included, to any user (guests too)', async () => {
    const t = setup();
    const body = await getCustomEmoji(t.as('polonius'));
    expectValidResponse('GET', '/realm/emoji', body);
    expect(body.emoji).toEqual({
      '3': { id: '3', name: 'party', source_url: `/user_avatars/${t.realmId}/emoji/images/3.gif`, still_url: `/user_avatars/${t.realmId}/emoji/images/still/3.png`, deactivated: true, author_id: null },
      '7': { id: '7', name: 'octopus', source_url: `/user_avatars/${t.realmId}/emoji/images/7.png`, still_url: null, deactivated: false, author_id: t.userId('hamlet') },
    });
  });

  it('is empty for an organization without custom emoji, and the register key says the same', async () => {
    const t = setupEmulator();
    expect((await getCustomEmoji(t.as('hamlet'))).emoji).toEqual({});
    const state = await registerQueue(t.as('hamlet'), { fetchEventTypes: ['realm_emoji'] });
    expect(state.realm_emoji).toEqual({});
  });
});
