/**
 * The emulator's organization-wide administration, driven through src/zulip/routes/realm.ts: the
 * Welcome Bot's custom message sent to the administrator testing it (with its `message` event),
 * administrators only, empty and over-long text refused, and 404 below feature level 416. The
 * defaults of new users' settings: stored, announced, served by register, validated, admins only.
 */
import { describe, expect, it } from 'vitest';
import { WELCOME_BOT_EMAIL } from '../../src/emulator/routes/messages/rules.js';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { registerQueue } from '../../src/zulip/routes/events.js';
import { testWelcomeBotCustomMessage, updateRealmUserSettingsDefaults } from '../../src/zulip/routes/realm.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

const FL = featureLevels.testWelcomeBotCustomMessage;

describe('Welcome Bot custom message test', () => {
  it('sends the administrator a direct message from the Welcome Bot, unread, with a message event', async () => {
    const t = setupEmulator({ settings: { featureLevel: FL } });
    const drain = await t.listen('iago', ['message']);
    const { message_id } = await testWelcomeBotCustomMessage(t.as('iago'), { welcomeMessageCustomText: 'Read the **rules**.' });
    const message = t.store.messages.get(message_id)!;
    const bot = t.store.userByEmail(WELCOME_BOT_EMAIL)!;
    expect(bot).toMatchObject({ full_name: 'Welcome Bot', is_bot: true });
    expect(message).toMatchObject({ type: 'private', sender_id: bot.user_id, dm_user_ids: [t.userId('iago'), bot.user_id].sort((a, b) => a - b) });
    expect(message.content).toMatch(/\n\nRead the \*\*rules\*\*\.$/);
    expect(t.store.hasFlag(t.userId('iago'), message_id, 'read')).toBe(false);
    expect((await drain()).map((e) => (e as { message?: { id: number } }).message?.id)).toEqual([message_id]);
    // A second test reuses the same bot.
    await testWelcomeBotCustomMessage(t.as('desdemona'), { welcomeMessageCustomText: 'Hi' });
    expect([...t.store.users.values()].filter((u) => u.delivery_email === WELCOME_BOT_EMAIL)).toHaveLength(1);
  });

  it('refuses members, empty and over-long text, and is 404 below feature level 416', async () => {
    const t = setupEmulator({ settings: { featureLevel: FL } });
    const member = await caughtApiError(testWelcomeBotCustomMessage(t.as('hamlet'), { welcomeMessageCustomText: 'Hi' }));
    expect([member.code, member.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    expect((await caughtApiError(testWelcomeBotCustomMessage(t.as('iago'), { welcomeMessageCustomText: '' }))).message).toBe('Message must not be empty');
    const long = await caughtApiError(testWelcomeBotCustomMessage(t.as('iago'), { welcomeMessageCustomText: 'x'.repeat(8001) }));
    expect(long.message).toBe('welcome_message_custom_text is too long (limit: 8000 characters)');
    const old = setupEmulator({ settings: { featureLevel: FL - 1 } });
    expect((await caughtApiError(testWelcomeBotCustomMessage(old.as('iago'), { welcomeMessageCustomText: 'Hi' }))).httpStatus).toBe(404);
  });
});

describe('realm user settings defaults', () => {
  it('stores the defaults, announces each change and serves them in the register state', async () => {
    const t = setupEmulator();
    const drain = await t.listen('hamlet', ['realm_user_settings_defaults']);
    const result = await updateRealmUserSettingsDefaults(t.as('iago'), { colorScheme: 2, enterSends: true, emojiset: 'text', twentyFourHourTime: false });
    // twenty_four_hour_time already defaults to false: nothing to announce.
    expect(result).not.toHaveProperty('ignored_parameters_unsupported');
    expect((await drain()).map((e) => [e.property, e.value])).toEqual([['color_scheme', 2], ['emojiset', 'text'], ['enter_sends', true]]);
    const state = await registerQueue(t.as('hamlet'), { fetchEventTypes: ['realm_user_settings_defaults'] });
    expect(state.realm_user_settings_defaults).toMatchObject({ color_scheme: 2, enter_sends: true, emojiset: 'text', twenty_four_hour_time: false });
    expect(state.realm_user_settings_defaults).not.toHaveProperty('timezone');
  });

  it('refuses members and invalid values before applying any, and is 404 below feature level 96', async () => {
    const t = setupEmulator();
    const member = await caughtApiError(updateRealmUserSettingsDefaults(t.as('hamlet'), { enterSends: true }));
    expect([member.code, member.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    const invalid = await caughtApiError(updateRealmUserSettingsDefaults(t.as('iago'), { enterSends: true, colorScheme: 7 as 1 }));
    expect([invalid.code, invalid.message]).toEqual(['BAD_REQUEST', 'Invalid color_scheme']);
    expect(t.store.realmUserSettingsDefaults.size).toBe(0);
    const old = setupEmulator({ settings: { featureLevel: featureLevels.realmUserSettingsDefaults - 1 } });
    expect((await caughtApiError(updateRealmUserSettingsDefaults(old.as('iago'), { enterSends: true }))).httpStatus).toBe(404);
  });
});
