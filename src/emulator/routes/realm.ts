/**
 * Organization-wide administration without a resource of its own
 * (https://zulip.com/api/test-welcome-bot-custom-message), as Zulip's
 * welcome_bot_custom_message view: an administrator previews the Welcome Bot's custom message,
 * which the Welcome Bot sends them as a direct message.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import { requireRealmAdmin } from '../admin.js';
import type { Route, RouteContext } from '../context.js';
import { badRequest, requireFeatureLevel } from '../errors.js';
import { sendWelcomeBotMessage } from './messages/index.js';

/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

/** https://zulip.com/api/test-welcome-bot-custom-message */
function testWelcomeBotCustomMessage(ctx: RouteContext): Record<string, unknown> {
  requireFeatureLevel(ctx.settings, featureLevels.testWelcomeBotCustomMessage);
  requireRealmAdmin(ctx);
  const text = ctx.params.str('welcome_message_custom_text');
  if ([...text].length > MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH) {
    throw badRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH} characters)`);
  }
  if (text.length === 0) throw badRequest('Message must not be empty');
  // Zulip's get_custom_welcome_message_string: the administrators' text under a line naming them.
  const content = `A message from ${ctx.store.realm.name} admins:\n\n${text}`;
  return { message_id: sendWelcomeBotMessage(ctx, ctx.user, content).id };
}

export const routes: Route[] = [{ method: 'POST', path: '/realm/test_welcome_bot_custom_message', handler: testWelcomeBotCustomMessage }];
