/**
 * User status: `GET /users/{user_id}/status` (https://zulip.com/api/get-user-status, feature
 * level 262), `POST /users/me/status` (https://zulip.com/api/update-status) and
 * `POST /users/{user_id}/status` (https://zulip.com/api/update-status-for-user, feature level 407), with the
 * `user_status` event (https://zulip.com/api/get-events#user_status) sent to every active user.
 *
 * As in Zulip (zerver/views/presence.py): the text is trimmed and at most 60 characters; a call
 * must change something; emoji_code or reaction_type need emoji_name; an empty emoji_name clears
 * the emoji; a name alone is looked up, a name with code and type is checked like a reaction.
 */
import type { UserStatus } from '../../zulip/model/user-status.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Route, RouteContext } from '../context.js';
import { badRequest, insufficientPermission } from '../errors.js';
import { checkNewEmoji, checkReactionType, emojiByName } from './reactions.js';
import { accessUser, noSuchUser } from './users/read.js';
import { activeUserIds } from './users/update.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const MAX_STATUS_TEXT_LENGTH = 60;

/** The emoji part of a change: undefined keeps the emoji, `null` clears it. */
function readEmoji(ctx: RouteContext): { name: string; code: string; type: string } | null | undefined {
  const name = ctx.params.optStr('emoji_name');
  const code = ctx.params.optStr('emoji_code');
  const type = ctx.params.optStr('reaction_type');
  if (name === undefined) {
    if (code !== undefined || type !== undefined) throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    return undefined;
  }
  if (name === '') return null;
  if (code === undefined || type === undefined) {
    const found = emojiByName(name);
    return { name, code: code ?? found.code, type: type ?? found.type };
  }
  checkReactionType(type);
  checkNewEmoji(name, code, type);
  return { name, code, type };
}

/** https://zulip.com/api/update-status */
function update(ctx: RouteContext): Record<string, unknown> {
  return changeStatus(ctx, ctx.user.user_id);
}

/**
 * https://zulip.com/api/update-status-for-user (feature level 407): Zulip's access_user_by_id with
 * `for_admin` (administrators; a bot's owner), refused to bots before feature level 473.
 */
function updateForUser(ctx: RouteContext): Record<string, unknown> {
  // TODO(server-12): updateStatusForUserBots (473); drop the older branch once every supported server has it.
  if (ctx.user.is_bot && ctx.settings.featureLevel < featureLevels.updateStatusForUserBots) throw insufficientPermission();
  const target = accessUser(ctx, String(ctx.pathInt('user_id')), { allowDeactivated: false, allowBots: true, forAdmin: true });
  return changeStatus(ctx, target.user_id);
}

/** The status change of update-status, for the user `uid`. */
function changeStatus(ctx: RouteContext, uid: number): Record<string, unknown> {
  const away = ctx.params.optBool('away');
  const text = ctx.params.optStr('status_text')?.trim();
  if (text !== undefined && text.length > MAX_STATUS_TEXT_LENGTH) {
    throw badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  const emoji = readEmoji(ctx);
  if (away === undefined && text === undefined && emoji === undefined) throw badRequest('Client did not pass any new values.');
  const status: UserStatus = { ...ctx.store.userStatus.get(uid) };
  const event: Record<string, unknown> & { type: string } = { type: 'user_status', user_id: uid };
  if (away !== undefined) {
    if (away) status.away = true;
    else delete status.away;
    event.away = away;
  }
  if (text !== undefined) {
    if (text) status.status_text = text;
    else delete status.status_text;
    event.status_text = text;
  }
  if (emoji !== undefined) {
    delete status.emoji_name;
    delete status.emoji_code;
    delete status.reaction_type;
    if (emoji) Object.assign(status, { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type });
    Object.assign(event, { emoji_name: emoji?.name ?? '', emoji_code: emoji?.code ?? '', reaction_type: emoji?.type ?? 'unicode_emoji' });
  }
  ctx.store.userStatus.set(uid, status);
  ctx.events.notify(activeUserIds(ctx.store), event);
  return {};
}

/** https://zulip.com/api/get-user-status */
function get(ctx: RouteContext): Record<string, unknown> {
  const user = ctx.store.users.get(ctx.pathInt('user_id'));
  if (!user) throw noSuchUser();
  return { status: { ...ctx.store.userStatus.get(user.user_id) } };
}

export const routes: Route[] = [
  { operation: ops.getUserStatus, handler: get },
  { operation: ops.updateStatus, handler: update },
  { operation: ops.updateStatusForUser, handler: updateForUser },
];
