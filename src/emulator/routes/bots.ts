/**
 * Bot API keys: `GET /bots/{bot_id}/api_key` (https://zulip.com/api/get-bot-api-key, feature level
 * 463) and `POST /bots/{bot_id}/api_key/regenerate` (https://zulip.com/api/regenerate-bot-api-key),
 * with the `realm_bot` update a new key causes.
 *
 * As in Zulip (zerver/views/users.py): require_member_or_admin, then access_bot_by_id: the bot must
 * exist ("No such bot") and the caller must be its owner or an administrator ("Insufficient
 * permission").
 */
import { randomBytes } from 'node:crypto';
import { requireMemberOrAdmin } from '../admin.js';
import type { Route, RouteContext } from '../context.js';
import { badRequest, insufficientPermission } from '../errors.js';
import type { User } from '../store.js';
import { botAudience } from './users/update.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's generate_api_key: 32 random characters. */
export function newApiKey(): string {
  return randomBytes(24).toString('base64url');
}

/** Zulip's access_bot_by_id. */
function accessBot(ctx: RouteContext): User {
  const bot = ctx.store.users.get(ctx.pathInt('bot_id'));
  if (!bot || !bot.is_bot) throw badRequest('No such bot');
  if (!ctx.store.isAdmin(ctx.user) && bot.bot_owner_id !== ctx.user.user_id) throw insufficientPermission();
  return bot;
}

/** https://zulip.com/api/get-bot-api-key */
function getKey(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  return { api_key: accessBot(ctx).api_key };
}

/** https://zulip.com/api/regenerate-bot-api-key */
function regenerateKey(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  const bot = accessBot(ctx);
  bot.api_key = newApiKey();
  ctx.events.notify(botAudience(ctx.store, bot), { type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, api_key: bot.api_key } });
  return { api_key: bot.api_key };
}

export const routes: Route[] = [
  { operation: ops.getBotApiKey, handler: getKey },
  { operation: ops.regenerateBotApiKey, handler: regenerateKey },
];
