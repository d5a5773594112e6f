/** The `realm_user`, `realm_bot` and `custom_profile_fields` register state (https://zulip.com/api/register-queue). */
import type { StateContext } from '../../context.js';
import { Role, type User } from '../../store.js';
import { FIELD_TYPE_NAMES, customProfileFields } from './profile-fields.js';
import { accessibleUserIds, avatarUrl, BILLING_ADMIN_REMOVED, type SerializeOptions, serializeUser, unknownUser } from './wire.js';

// ---- register state ----------------------------------------------------------------------------

/** A bot as `realm_bots` lists it. https://zulip.com/api/register-queue */
export function serializeBot(ctx: StateContext, bot: User) {
  return {
    user_id: bot.user_id,
    email: bot.email,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active,
    api_key: bot.api_key,
    avatar_url: avatarUrl(ctx.store, bot, { baseUrl: ctx.baseUrl, clientGravatar: false, viewer: ctx.user }),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    owner_id: bot.bot_owner_id,
    services: [],
  };
}

export function realmUserState(ctx: StateContext): Record<string, unknown> {
  const { store, user } = ctx;
  const { featureLevel } = ctx.settings;
  const options: SerializeOptions = { baseUrl: ctx.baseUrl, featureLevel, clientGravatar: ctx.options.clientGravatar, includeProfileData: true };
  const accessible = accessibleUserIds(store, user);
  const incomplete = ctx.options.capabilities.user_list_incomplete === true;
  const sorted = [...store.users.values()].sort((a, b) => a.user_id - b.user_id);
  const shown = (u: User) => accessible === null || accessible.has(u.user_id);
  const realmUsers = sorted
    .filter((u) => u.is_active && (shown(u) || !incomplete))
    .map((u) => (shown(u) ? serializeUser(store, user, u, options) : unknownUser(store, u.user_id, ctx.baseUrl, featureLevel)));
  const nonActive = sorted.filter((u) => !u.is_active && shown(u)).map((u) => serializeUser(store, user, u, options));
  const own = serializeUser(store, user, user, { ...options, clientGravatar: false });
  const webPublic = store.userHasGroupSetting(user.user_id, store.realm.settings.can_create_web_public_channel_group);
  const member = !store.isGuest(user);
  return {
    realm_users: realmUsers,
    realm_non_active_users: nonActive,
    cross_realm_bots: [],
    user_id: user.user_id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    avatar_source: user.avatar_source,
    avatar_url: own.avatar_url,
    avatar_url_medium: avatarUrl(store, user, { baseUrl: ctx.baseUrl, clientGravatar: false, viewer: user, medium: true }),
    is_admin: store.isAdmin(user),
    is_owner: user.role === Role.OWNER,
    is_moderator: user.role === Role.MODERATOR,
    is_guest: store.isGuest(user),
    ...(featureLevel < BILLING_ADMIN_REMOVED && { is_billing_admin: user.is_billing_admin }),
    can_create_streams: member,
    can_create_public_streams: member,
    can_create_private_streams: member,
    can_create_web_public_streams: webPublic,
    can_subscribe_other_users: member,
    can_invite_others_to_realm: store.isAdmin(user),
  };
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  const { store, user } = ctx;
  const state: Record<string, unknown> = {};
  if (ctx.wants('realm_user')) Object.assign(state, realmUserState(ctx));
  if (ctx.wants('realm_bot')) {
    const bots = [...store.users.values()]
      .filter((u) => u.is_bot && (store.isAdmin(user) || u.bot_owner_id === user.user_id))
      .sort((a, b) => a.user_id - b.user_id);
    state.realm_bots = bots.map((bot) => serializeBot(ctx, bot));
  }
  if (ctx.wants('custom_profile_fields')) {
    state.custom_profile_fields = structuredClone(customProfileFields(store));
    state.custom_profile_field_types = Object.fromEntries(
      Object.entries(FIELD_TYPE_NAMES).map(([id, name]) => [name, { id: Number(id), name: name.toLowerCase().replace(/_/g, ' ') }]),
    );
  }
  return state;
}
