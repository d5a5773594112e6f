/**
 * The emulator's organization-wide administration, driven through src/zulip/routes/realm.ts: the
 * Welcome Bot's custom message sent to the administrator testing it (with its `message` event),
 * administrators only, empty and over-long text refused, and 404 below feature level 416.
 */
import { describe, expect, it } from 'vitest';
import { WELCOME_BOT_EMAIL } from '../../src/emulator/routes/messages/rules.js';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { testWelcomeBotCustomMessage } from '../../src/zulip/routes/realm.js';
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
