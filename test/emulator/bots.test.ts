/**
 * The emulator's API keys, driven through src/zulip/routes/bots.ts and authentication.ts: a bot's
 * key for its owner or an administrator (feature level 463), regenerating it (with the
 * `realm_bot` event), regenerating one's own, and the old key refused afterwards.
 */
import { describe, expect, it } from 'vitest';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { regenerateApiKey } from '../../src/zulip/routes/authentication.js';
import { getBotApiKey, regenerateBotApiKey } from '../../src/zulip/routes/bots.js';
import { getOwnUser } from '../../src/zulip/routes/users.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

function setup(featureLevel: number = featureLevels.getBotApiKey) {
  const t = setupEmulator({ settings: { featureLevel } });
  const bot = [...t.store.users.values()].find((u) => u.is_bot)!;
  return { ...t, bot };
}

describe('bot API keys', () => {
  it('answers the key to the owner and administrators only', async () => {
    const t = setup();
    expect(await getBotApiKey(t.as('hamlet'), { botId: t.bot.user_id })).toMatchObject({ api_key: t.bot.api_key });
    expect(await getBotApiKey(t.as('iago'), { botId: t.bot.user_id })).toMatchObject({ api_key: t.bot.api_key });
    const other = await caughtApiError(getBotApiKey(t.as('othello'), { botId: t.bot.user_id }));
    expect([other.code, other.message]).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    expect(JSON.stringify(other)).not.toContain(t.bot.api_key);
    const human = await caughtApiError(getBotApiKey(t.as('iago'), { botId: t.userId('hamlet') }));
    expect(human.message).toBe('No such bot');
    const guest = await caughtApiError(getBotApiKey(t.as('polonius'), { botId: t.bot.user_id }));
    expect(guest.message).toBe('Not allowed for guest users');
  });

  it('regenerates a bot\u2019s key: the old one is refused, the owner gets a realm_bot update', async () => {
    const t = setup();
    const old = t.bot.api_key;
    const drain = await t.listen('hamlet', ['realm_bot']);
    const { api_key } = await regenerateBotApiKey(t.as('hamlet'), { botId: t.bot.user_id });
    expect(api_key).not.toBe(old);
    expect(api_key).toHaveLength(32);
    expect(t.bot.api_key).toBe(api_key);
    expect(await drain()).toMatchObject([{ type: 'realm_bot', op: 'update', bot: { user_id: t.bot.user_id, api_key } }]);
    const refused = await caughtApiError(getOwnUser(t.connect({ email: t.bot.delivery_email, apiKey: old })));
    expect(refused.code).toBe('INVALID_API_KEY');
    await expect(getOwnUser(t.connect({ email: t.bot.delivery_email, apiKey: api_key }))).resolves.toMatchObject({ user_id: t.bot.user_id });
    const other = await caughtApiError(regenerateBotApiKey(t.as('othello'), { botId: t.bot.user_id }));
    expect(other.message).toBe('Insufficient permission');
  });

  it('is Not Found below feature level 463 for reading', async () => {
    const t = setup(featureLevels.getBotApiKey - 1);
    const e = await caughtApiError(getBotApiKey(t.as('hamlet'), { botId: t.bot.user_id }));
    expect([e.httpStatus, e.message]).toEqual([404, 'Not Found']);
  });
});

describe('regenerate own API key', () => {
  it('replaces the caller\u2019s key; bots cannot', async () => {
    const t = setup();
    const hamlet = t.store.users.get(t.userId('hamlet'))!;
    const old = hamlet.api_key;
    const { api_key } = await regenerateApiKey(t.as('hamlet'));
    expect(api_key).not.toBe(old);
    expect((await caughtApiError(getOwnUser(t.connect({ email: hamlet.delivery_email, apiKey: old })))).code).toBe('INVALID_API_KEY');
    await expect(getOwnUser(t.connect({ email: hamlet.delivery_email, apiKey: api_key }))).resolves.toMatchObject({ user_id: hamlet.user_id });
    const bot = await caughtApiError(regenerateApiKey(t.as(t.bot)));
    expect(bot.message).toBe('This endpoint does not accept bot requests.');
  });
});
