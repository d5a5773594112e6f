/**
 * Organization-wide administration without a resource of its own
 * (https://zulip.com/api/test-welcome-bot-custom-message), as Zulip's
 * welcome_bot_custom_message view: an administrator previews the Welcome Bot's custom message,
 * which the Welcome Bot sends them as a direct message.
 *
 * The defaults of new users' settings (https://zulip.com/api/update-realm-user-settings-defaults,
 * feature level 96): every personal setting but the few Zulip keeps per user only, validated as
 * `PATCH /settings` validates them, announced with `realm_user_settings_defaults` events and served
 * in the register state `realm_user_settings_defaults`.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import { activeUserIds, requireRealmAdmin } from '../admin.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest } from '../errors.js';
import { sendWelcomeBotMessage } from './messages/index.js';
import { readSetting, SETTINGS, type Value } from './settings.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

/** https://zulip.com/api/test-welcome-bot-custom-message */
function testWelcomeBotCustomMessage(ctx: RouteContext): Record<string, unknown> {
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

/** Personal settings that have no organization default in Zulip's RealmUserDefault. */
const NO_DEFAULT = new Set(['default_language', 'timezone', 'enable_marketing_emails', 'enable_login_emails']);

const DEFAULT_NAMES = Object.keys(SETTINGS).filter((name) => !NO_DEFAULT.has(name));

function defaultValue(ctx: { store: RouteContext['store'] }, name: string): Value {
  return ctx.store.realmUserSettingsDefaults.get(name) ?? SETTINGS[name]!.default;
}

/** https://zulip.com/api/update-realm-user-settings-defaults: every value checked before any is applied. */
function updateRealmUserSettingsDefaults(ctx: RouteContext): Record<string, unknown> {
  requireRealmAdmin(ctx);
  const sent = ctx.params.unread();
  const changes = new Map<string, Value>();
  for (const name of sent) {
    if (DEFAULT_NAMES.includes(name)) changes.set(name, readSetting(ctx, name, SETTINGS[name]!.check));
  }
  for (const [name, value] of changes) {
    if (value === defaultValue(ctx, name)) continue;
    ctx.store.realmUserSettingsDefaults.set(name, value);
    ctx.events.notify(activeUserIds(ctx.store), { type: 'realm_user_settings_defaults', op: 'update', property: name, value });
  }
  const ignored = sent.filter((name) => !changes.has(name));
  for (const name of ignored) ctx.params.has(name);
  return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
}

/** The `realm_user_settings_defaults` register state. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  // TODO(server-5): realmUserSettingsDefaults (96); drop the older branch once every supported server has it.
  if (!ctx.wants('realm_user_settings_defaults') || ctx.settings.featureLevel < featureLevels.realmUserSettingsDefaults) return {};
  return { realm_user_settings_defaults: Object.fromEntries(DEFAULT_NAMES.map((name) => [name, defaultValue(ctx, name)])) };
}

export const routes: Route[] = [
  { operation: ops.testWelcomeBotCustomMessage, handler: testWelcomeBotCustomMessage },
  { operation: ops.updateRealmUserSettingsDefaults, handler: updateRealmUserSettingsDefaults },
];
