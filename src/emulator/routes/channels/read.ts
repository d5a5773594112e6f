/**
 * Reading channels: `GET /streams` (https://zulip.com/api/get-streams), `GET /users/me/{stream_id}/topics`
 * (https://zulip.com/api/get-stream-topics), `GET /get_stream_id` (https://zulip.com/api/get-stream-id)
 * and `GET /streams/{id}/email_address` (https://zulip.com/api/get-stream-email-address).
 */
import { randomBytes } from 'node:crypto';
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { RouteContext } from '../../context.js';
import { badRequest, insufficientPermission } from '../../errors.js';
import { accessChannel, hasContentAccess } from './access.js';
import { serializer } from './wire.js';

// ---- GET /streams ------------------------------------------------------------------------------

export function getStreams(ctx: RouteContext) {
  const { params, store, user } = ctx;
  const includePublic = params.bool('include_public', true);
  const includeWebPublic = params.bool('include_web_public', false);
  const includeSubscribed = params.bool('include_subscribed', true);
  // Flags newer than the configured feature level stay unread, so they are reported as unsupported.
  const level = ctx.settings.featureLevel;
  // TODO(server-10): archivedChannels (315); drop the older branch once every supported server has it.
  const excludeArchived = level >= featureLevels.archivedChannels ? params.bool('exclude_archived', true) : true;
  // TODO(server-10): includeAllChannels (356); drop the older branch once every supported server has it.
  let includeAll = level >= featureLevels.includeAllChannels ? params.bool('include_all', false) : false;
  const includeAllActive = params.bool('include_all_active', false);
  const includeDefault = params.bool('include_default', false);
  const includeOwnerSubscribed = params.bool('include_owner_subscribed', false);
  const includeCanAccessContent = params.bool('include_can_access_content', false);
  if (includeAllActive) {
    // Deprecated alias of include_all that only administrators may use.
    if (!store.isAdmin(user)) throw badRequest('User not authorized for this query');
    includeAll = true;
  }
  const owner = user.is_bot && user.bot_owner_id !== null ? store.userById(user.bot_owner_id) : undefined;
  const selected = [...store.channels.values()].filter((c) => {
    if (excludeArchived && c.is_archived) return false;
    if (includeAll) return store.canAccessChannelMetadata(user, c);
    return (
      (includeSubscribed && store.isSubscribed(user.user_id, c.stream_id)) ||
      (includePublic && !store.isGuest(user) && !c.invite_only) ||
      (includeWebPublic && c.is_web_public) ||
      (includeOwnerSubscribed && owner !== undefined && store.isSubscribed(owner.user_id, c.stream_id)) ||
      (includeCanAccessContent && hasContentAccess(store, user, c))
    );
  });
  const s = serializer(ctx);
  const streams = selected
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => (includeDefault ? { ...s.channel(c), is_default: store.defaultChannelIds.has(c.stream_id) } : s.channel(c)));
  return { streams };
}
// ---- GET /users/me/{stream_id}/topics -----------------------------------------------------------

export function getStreamTopics(ctx: RouteContext) {
  const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'content');
  // TODO(server-10): emptyTopicName (334); drop the older branch once every supported server has it.
  const allowEmpty = ctx.settings.featureLevel >= featureLevels.emptyTopicName ? ctx.params.bool('allow_empty_topic_name', false) : false;
  // Topics are case-insensitive; an entry is named after its newest message.
  const byKey = new Map<string, { name: string; max_id: number }>();
  for (const m of ctx.store.messages.values()) {
    if (m.type !== 'stream' || m.stream_id !== channel.stream_id) continue;
    if (!ctx.store.canSeeMessage(ctx.user, m)) continue;
    const key = m.topic.toLowerCase();
    const entry = byKey.get(key);
    if (!entry || m.id > entry.max_id) byKey.set(key, { name: m.topic, max_id: m.id });
  }
  const displayName = ctx.store.realm.empty_topic_display_name;
  const topics = [...byKey.values()]
    .sort((a, b) => b.max_id - a.max_id)
    .map((t) => (t.name === '' && !allowEmpty ? { ...t, name: displayName } : t));
  return { topics };
}

// ---- GET /get_stream_id, GET /streams/{stream_id}/email_address ----------------------------------

export function getStreamId(ctx: RouteContext) {
  const name = ctx.params.str('stream');
  const channel = ctx.store.channelByName(name);
  if (!channel || !hasContentAccess(ctx.store, ctx.user, channel)) throw badRequest(`Invalid channel name '${name}'`);
  return { stream_id: channel.stream_id };
}

/**
 * Zulip's address is `<name>.<token>.show-sender@<gateway host>`, one token per channel, creator and
 * sender; no sender (or the email gateway bot) is keyed `gateway`. A `sender_id` other than the
 * caller must be a bot the caller owns or, for administrators, any bot (Zulip's access_bot_by_id).
 */
export function getStreamEmailAddress(ctx: RouteContext) {
  const channel = accessChannel(ctx, ctx.pathInt('stream_id'), 'content');
  // TODO(server-10): channelEmailSender (335); drop the older branch once every supported server has it.
  const senderId = ctx.settings.featureLevel >= featureLevels.channelEmailSender ? ctx.params.optInt('sender_id') : undefined;
  let sender = 'gateway';
  if (senderId !== undefined && senderId !== ctx.user.user_id) {
    const bot = ctx.store.users.get(senderId);
    if (!bot?.is_bot) throw badRequest('No such bot');
    if (!ctx.store.isAdmin(ctx.user) && bot.bot_owner_id !== ctx.user.user_id) throw insufficientPermission();
    sender = String(bot.user_id);
  } else if (senderId !== undefined) {
    sender = String(senderId);
  }
  const key = `${channel.stream_id}:${ctx.user.user_id}:${sender}`;
  let token = ctx.store.channelEmailTokens.get(key);
  if (!token) ctx.store.channelEmailTokens.set(key, (token = randomBytes(16).toString('hex')));
  const name = channel.name.replace(/[^\p{L}\p{N}_]+/gu, '-').replace(/^-+|-+$/g, '');
  return { email: `${name}.${token}.show-sender@${new URL(ctx.baseUrl).hostname}` };
}
