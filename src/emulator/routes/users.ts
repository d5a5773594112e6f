/**
 * Users: `GET /users` (https://zulip.com/api/get-users), `GET /users/{user_id}`
 * (https://zulip.com/api/get-user), `GET /users/{email}` (https://zulip.com/api/get-user-by-email),
 * `GET /users/me` (https://zulip.com/api/get-own-user), `PATCH /users/{user_id}` and
 * `PATCH /users/{email}` (https://zulip.com/api/update-user), `DELETE /users/{user_id}`
 * (https://zulip.com/api/deactivate-user), the `realm_user` events they cause and the
 * `realm_user` / `realm_bot` / `custom_profile_fields` register state.
 *
 * Visibility rules shared with other resources are exported: {@link canAccessUser} (guests with
 * limited access, can_access_all_users_group), {@link serializeUser} and {@link avatarUrl}.
 */
import { createHash } from 'node:crypto';
import type { User as WireUser } from '../../zulip/model/users.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { renderMarkdown } from '../markdown.js';
import { Role, ROLES, SYSTEM_GROUPS, type Store, type User } from '../store.js';

// ---- custom profile fields ---------------------------------------------------------------------

/** https://zulip.com/api/get-custom-profile-fields */
export interface CustomProfileField {
  id: number;
  name: string;
  /** 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8 pronouns. */
  type: number;
  hint: string;
  field_data: string;
  order: number;
  required: boolean;
  display_in_profile_summary: boolean;
}

const FIELD_TYPE_NAMES: Record<number, string> = {
  1: 'SHORT_TEXT',
  2: 'LONG_TEXT',
  3: 'SELECT',
  4: 'DATE',
  5: 'URL',
  6: 'USER',
  7: 'EXTERNAL_ACCOUNT',
  8: 'PRONOUNS',
};

/** Field types whose values are Markdown, so they carry `rendered_value`. */
const RENDERED_FIELD_TYPES = new Set([1, 2]);

const fieldsByStore = new WeakMap<Store, CustomProfileField[]>();

/** The organization's custom profile fields (the demo set unless a test replaced it). */
export function customProfileFields(store: Store): CustomProfileField[] {
  let fields = fieldsByStore.get(store);
  if (!fields) {
    const field = (id: number, name: string, type: number, hint: string): CustomProfileField => ({
      id, name, type, hint, field_data: '', order: id, required: false, display_in_profile_summary: id <= 2,
    });
    fields = [
      field(1, 'Biography', 2, 'What do you do?'),
      field(2, 'Phone number', 1, ''),
      field(3, 'Birthday', 4, ''),
      field(4, 'Website', 5, 'Your personal page'),
    ];
    fieldsByStore.set(store, fields);
  }
  return fields;
}

// ---- access and serialization ------------------------------------------------------------------

/** Whether the viewer is exempt from limited user access (non-guests, and guests in can_access_all_users_group). */
export function canAccessAllUsers(store: Store, viewer: User): boolean {
  return !store.isGuest(viewer) || store.userHasGroupSetting(viewer.user_id, store.realm.settings.can_access_all_users_group);
}

/**
 * The users a viewer may access, or null for "everyone". A guest with limited access sees
 * themselves, bots, active users sharing a channel subscription, and people they exchanged direct
 * messages with (Zulip's check_can_access_user).
 */
export function accessibleUserIds(store: Store, viewer: User): Set<number> | null {
  if (canAccessAllUsers(store, viewer)) return null;
  const ids = new Set<number>([viewer.user_id]);
  for (const u of store.users.values()) if (u.is_bot) ids.add(u.user_id);
  for (const subscribers of store.subscriptions.values()) {
    if (!subscribers.has(viewer.user_id)) continue;
    for (const id of subscribers.keys()) if (store.users.get(id)?.is_active) ids.add(id);
  }
  for (const message of store.messages.values()) {
    if (message.type === 'private' && message.dm_user_ids!.includes(viewer.user_id)) {
      for (const id of message.dm_user_ids!) ids.add(id);
    }
  }
  return ids;
}

export function canAccessUser(store: Store, viewer: User, target: User): boolean {
  const ids = accessibleUserIds(store, viewer);
  return ids === null || ids.has(target.user_id);
}

/** Active users who can access `target`: the audience of `realm_user` events about it (FL 228). */
export function usersWhoCanAccess(store: Store, target: User): number[] {
  return [...store.users.values()]
    .filter((viewer) => viewer.is_active && canAccessUser(store, viewer, target))
    .map((viewer) => viewer.user_id);
}

/** Hashes cost more than the rest of a serialized message; keep them (bounded: one per email or user). */
const hashCache = new Map<string, string>();

function cachedHash(algorithm: 'md5' | 'sha1', input: string): string {
  const key = `${algorithm}:${input}`;
  let hash = hashCache.get(key);
  if (hash === undefined) {
    if (hashCache.size >= 100_000) hashCache.clear();
    hash = createHash(algorithm).update(input).digest('hex');
    hashCache.set(key, hash);
  }
  return hash;
}

export interface AvatarOptions {
  baseUrl: string;
  /** The client computes gravatar URLs itself (then gravatar users get null when it sees the real email). */
  clientGravatar: boolean;
  viewer: User;
  medium?: boolean;
}

/** The avatar URL the API reports, or null per the client_gravatar rule. */
export function avatarUrl(store: Store, target: User, options: AvatarOptions): string | null {
  if (target.avatar_source === 'G') {
    if (options.clientGravatar && store.canSeeRealEmail(options.viewer, target)) return null;
    const size = options.medium ? '&s=500' : '';
    return `https://secure.gravatar.com/avatar/${cachedHash('md5', target.delivery_email.toLowerCase())}?d=identicon${size}&version=${target.avatar_version}`;
  }
  const hash = cachedHash('sha1', `${store.realm.id}:${target.user_id}`);
  return `${options.baseUrl}/user_avatars/${store.realm.id}/${hash}${options.medium ? '-medium' : ''}.png?version=${target.avatar_version}`;
}

export interface SerializeOptions {
  baseUrl: string;
  /** @default true, as the endpoints default it */
  clientGravatar?: boolean;
  /** Add `profile_data` (non-bots only). @default false */
  includeProfileData?: boolean;
}

/** A user object as `GET /users` returns it to `viewer`. */
export function serializeUser(store: Store, viewer: User, target: User, options: SerializeOptions): WireUser {
  const seesEmail = store.canSeeRealEmail(viewer, target);
  const user: WireUser = {
    user_id: target.user_id,
    email: target.email,
    delivery_email: seesEmail ? target.delivery_email : null,
    full_name: target.full_name,
    date_joined: target.date_joined,
    is_active: target.is_active,
    is_owner: target.role === Role.OWNER,
    is_admin: target.role <= Role.ADMINISTRATOR,
    is_guest: target.role === Role.GUEST,
    is_billing_admin: target.is_billing_admin,
    is_bot: target.is_bot,
    bot_type: target.is_bot ? (target.bot_type as WireUser['bot_type']) : null,
    role: target.role as WireUser['role'],
    timezone: target.timezone,
    avatar_url: avatarUrl(store, target, { baseUrl: options.baseUrl, clientGravatar: options.clientGravatar ?? true, viewer }),
    avatar_version: target.avatar_version,
  };
  if (target.is_bot) user.bot_owner_id = target.bot_owner_id;
  else if (options.includeProfileData) user.profile_data = structuredClone(target.profile_data);
  return user;
}

/** What a guest without access to a user is shown in place of that user (register without user_list_incomplete). */
function unknownUser(store: Store, userId: number, baseUrl: string): WireUser {
  return {
    user_id: userId,
    email: store.placeholderEmail(userId),
    delivery_email: null,
    full_name: 'Unknown user',
    date_joined: new Date(store.realm.date_created * 1000).toISOString(),
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_billing_admin: false,
    is_bot: false,
    bot_type: null,
    role: Role.MEMBER,
    timezone: '',
    avatar_url: `${baseUrl}/static/images/unknown-user-avatar.png`,
    avatar_version: 1,
    profile_data: {},
  };
}

// ---- lookups -----------------------------------------------------------------------------------

function noSuchUser(): ApiError {
  return badRequest('No such user');
}

function insufficientPermission(): ApiError {
  return badRequest('Insufficient permission');
}

/** Zulip's OrganizationOwnerRequiredError. */
function ownerRequired(): ApiError {
  return new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);
}

/**
 * The user a path segment names: an ID, or an email (the API email, or since feature level 302
 * the real address when the requester may see it).
 */
function lookupUser(ctx: RouteContext, raw: string): User {
  const { store, user: viewer } = ctx;
  if (/^\d+$/.test(raw)) {
    const target = store.users.get(Number(raw));
    if (!target) throw noSuchUser();
    return target;
  }
  const wanted = raw.toLowerCase();
  const users = [...store.users.values()];
  const target =
    users.find((u) => u.email.toLowerCase() === wanted) ??
    users.find((u) => u.delivery_email.toLowerCase() === wanted && store.canSeeRealEmail(viewer, u));
  if (!target) throw noSuchUser();
  return target;
}

/** Zulip's access_user_common: read access needs only user access; `forAdmin` needs an administrator. */
function accessUser(
  ctx: RouteContext,
  raw: string,
  options: { allowDeactivated: boolean; allowBots: boolean; forAdmin: boolean },
): User {
  const target = lookupUser(ctx, raw);
  if (target.is_bot && !options.allowBots) throw noSuchUser();
  if (!target.is_active && !options.allowDeactivated) throw badRequest('User is deactivated');
  if (!options.forAdmin) {
    if (!canAccessUser(ctx.store, ctx.user, target)) throw insufficientPermission();
    return target;
  }
  const canAdmin = ctx.store.isAdmin(ctx.user) || (target.is_bot && target.bot_owner_id === ctx.user.user_id);
  if (!canAdmin) throw insufficientPermission();
  return target;
}

function readUserQuery(ctx: RouteContext): SerializeOptions {
  return {
    baseUrl: ctx.baseUrl,
    clientGravatar: ctx.params.bool('client_gravatar', true),
    includeProfileData: ctx.params.bool('include_custom_profile_fields', false),
  };
}

// ---- reads -------------------------------------------------------------------------------------

function getUsers(ctx: RouteContext) {
  const options = readUserQuery(ctx);
  const accessible = accessibleUserIds(ctx.store, ctx.user);
  const members = [...ctx.store.users.values()]
    .filter((u) => accessible === null || accessible.has(u.user_id))
    .sort((a, b) => a.user_id - b.user_id)
    .map((u) => serializeUser(ctx.store, ctx.user, u, options));
  return { members };
}

function getUser(ctx: RouteContext) {
  const options = readUserQuery(ctx);
  const target = accessUser(ctx, ctx.path.user!, { allowDeactivated: true, allowBots: true, forAdmin: false });
  return { user: serializeUser(ctx.store, ctx.user, target, options) };
}

function getOwnUser(ctx: RouteContext) {
  const { store, user } = ctx;
  const { bot_type: _type, bot_owner_id: _owner, profile_data, ...rest } = serializeUser(store, user, user, {
    baseUrl: ctx.baseUrl,
    clientGravatar: false,
    includeProfileData: true,
  });
  let maxMessageId = -1;
  for (const message of store.messages.values()) {
    if (message.id > maxMessageId && store.canSeeMessage(user, message)) maxMessageId = message.id;
  }
  return { ...rest, delivery_email: user.delivery_email, ...(profile_data && { profile_data }), max_message_id: maxMessageId };
}

// ---- update ------------------------------------------------------------------------------------

const NAME_INVALID_CHARS = ['*', '`', '\\', '>', '"', '@'];
const MAX_NAME_LENGTH = 100;
const MIN_NAME_LENGTH = 2;

/** Zulip's check_full_name. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if (name.length < MIN_NAME_LENGTH) throw badRequest('Name too short!');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name) || NAME_INVALID_CHARS.some((c) => name.includes(c))) {
    throw badRequest('Invalid characters in name!');
  }
  if (/\|\d+$/.test(raw)) throw badRequest('Invalid format!');
  return name;
}

interface ProfileChange {
  field: CustomProfileField;
  /** null clears the field. */
  value: string | null;
}

function readProfileData(ctx: RouteContext): ProfileChange[] | undefined {
  const raw = ctx.params.optJson<unknown>('profile_data');
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw badRequest('profile_data is not a list');
  const fields = customProfileFields(ctx.store);
  return raw.map((entry: unknown, i) => {
    const name = `profile_data[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`${name} is not a dict`);
    const { id, value, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw badRequest(`Unexpected arguments: ${extra}`);
    if (id === undefined) throw badRequest(`${name} key is missing: id`);
    if (!('value' in (entry as object))) throw badRequest(`${name} key is missing: value`);
    if (!Number.isSafeInteger(id)) throw badRequest(`${name}["id"] is not an integer`);
    if (value !== null && typeof value !== 'string') throw badRequest(`${name}["value"] is not a string`);
    const field = fields.find((f) => f.id === id);
    if (!field) throw badRequest(`Field id ${String(id)} not found.`);
    if (value === null || value === '') return { field, value: null };
    checkProfileValue(field, value);
    return { field, value };
  });
}

/** The per-type checks of Zulip's validate_user_custom_profile_field, for the types the demo uses. */
function checkProfileValue(field: CustomProfileField, value: string): void {
  if (value.includes('\u0000')) throw badRequest(`${field.name} contains NULL (0x00) characters.`);
  const limit = field.type === 2 ? 500 : 50;
  if ((field.type === 1 || field.type === 2 || field.type === 8) && value.length > limit) {
    throw badRequest(`${field.name} is too long (limit: ${limit} characters)`);
  }
  if (field.type === 4 && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw badRequest(`${field.name} is not a date`);
  }
  if (field.type === 5 && !/^https?:\/\/\S+$/.test(value)) throw badRequest(`${field.name} is not a URL`);
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkNewEmail(ctx: RouteContext, target: User, raw: string): string {
  const { store, user } = ctx;
  if (user.role !== Role.OWNER || !user.can_change_user_emails) throw insufficientPermission();
  const email = raw.trim();
  if (!EMAIL_RE.test(email)) throw badRequest('Invalid address.');
  const holder = [...store.users.values()].find((u) => u.delivery_email.toLowerCase() === email.toLowerCase());
  if (holder && holder.user_id !== target.user_id) throw badRequest(`Email '${email}' already in use`);
  return email;
}

function humanOwners(store: Store): User[] {
  return [...store.users.values()].filter((u) => u.is_active && !u.is_bot && u.role === Role.OWNER);
}

/** Zulip's check_last_owner. */
function isLastOwner(store: Store, target: User): boolean {
  const owners = humanOwners(store);
  return target.role === Role.OWNER && !target.is_bot && owners.length === 1 && owners[0]!.user_id === target.user_id;
}

function readRole(ctx: RouteContext): number | undefined {
  const raw = ctx.params.optJson<unknown>('role');
  if (raw === undefined) return undefined;
  if (!Number.isSafeInteger(raw)) throw badRequest('role is not an integer');
  if (!ROLES.includes(raw as number)) throw badRequest('Invalid role');
  return raw as number;
}

function checkRoleChange(ctx: RouteContext, target: User, role: number): void {
  const { store, user } = ctx;
  if ((role === Role.OWNER || target.role === Role.OWNER) && user.role !== Role.OWNER) throw ownerRequired();
  if (!store.isAdmin(user)) throw new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
  if (target.role === Role.OWNER && isLastOwner(store, target)) {
    throw badRequest('The owner permission cannot be removed from the only organization owner.');
  }
  if (target.role === Role.GUEST && role <= Role.ADMINISTRATOR) {
    throw badRequest('Guests cannot be organization administrators');
  }
}

/** The system group whose direct members are the users of a role (see Store.groupDirectMembers). */
function roleSystemGroup(store: Store, role: number): number {
  const name: (typeof SYSTEM_GROUPS)[number] =
    role === Role.OWNER
      ? 'role:owners'
      : role === Role.ADMINISTRATOR
        ? 'role:administrators'
        : role === Role.MODERATOR
          ? 'role:moderators'
          : role === Role.MEMBER
            ? 'role:fullmembers'
            : 'role:everyone';
  return store.systemGroupId(name);
}

function activeUserIds(store: Store): number[] {
  return [...store.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
}

/** Bot owner and administrators: the audience of `realm_bot` events. */
function botAudience(store: Store, bot: User): number[] {
  return [...store.users.values()]
    .filter((u) => u.is_active && (store.isAdmin(u) || u.user_id === bot.bot_owner_id))
    .map((u) => u.user_id);
}

function realmUserUpdate(person: Record<string, unknown>) {
  return { type: 'realm_user', op: 'update', person };
}

function updateUser(ctx: RouteContext) {
  const { store, params } = ctx;
  const target = accessUser(ctx, ctx.path.user!, { allowDeactivated: true, allowBots: true, forAdmin: true });

  // Validate everything first, so that a bad parameter changes nothing.
  const fullNameRaw = params.optStr('full_name');
  const fullName =
    fullNameRaw !== undefined && fullNameRaw.trim() !== '' && fullNameRaw !== target.full_name ? checkFullName(fullNameRaw) : undefined;
  const role = readRole(ctx);
  const roleChanges = role !== undefined && role !== target.role;
  if (roleChanges) checkRoleChange(ctx, target, role);
  const profile = readProfileData(ctx);
  const newEmailRaw = params.optStr('new_email');
  const newEmail = newEmailRaw === undefined ? undefined : checkNewEmail(ctx, target, newEmailRaw);

  const audience = () => usersWhoCanAccess(store, target);
  if (roleChanges) {
    const oldGroup = roleSystemGroup(store, target.role);
    target.role = role;
    const newGroup = roleSystemGroup(store, role);
    ctx.events.notify(audience(), realmUserUpdate({ user_id: target.user_id, role }));
    if (oldGroup !== newGroup && target.is_active) {
      const everyone = activeUserIds(store);
      ctx.events.notify(everyone, { type: 'user_group', op: 'remove_members', group_id: oldGroup, user_ids: [target.user_id] });
      ctx.events.notify(everyone, { type: 'user_group', op: 'add_members', group_id: newGroup, user_ids: [target.user_id] });
    }
  }
  if (fullName !== undefined && fullName !== target.full_name) {
    target.full_name = fullName;
    ctx.events.notify(audience(), realmUserUpdate({ user_id: target.user_id, full_name: fullName }));
    if (target.is_bot) {
      ctx.events.notify(botAudience(store, target), { type: 'realm_bot', op: 'update', bot: { user_id: target.user_id, full_name: fullName } });
    }
  }
  for (const change of profile ?? []) applyProfileChange(ctx, target, change);
  if (newEmail !== undefined && newEmail !== target.delivery_email) {
    target.delivery_email = newEmail;
    const apiEmailChanges = target.email_address_visibility === 1;
    if (apiEmailChanges) target.email = newEmail;
    const seers = audience().filter((id) => store.canSeeRealEmail(store.users.get(id)!, target));
    ctx.events.notify(seers, realmUserUpdate({ user_id: target.user_id, delivery_email: newEmail }));
    if (apiEmailChanges) ctx.events.notify(audience(), realmUserUpdate({ user_id: target.user_id, new_email: newEmail }));
  }
  return {};
}

function applyProfileChange(ctx: RouteContext, target: User, { field, value }: ProfileChange): void {
  const key = String(field.id);
  const current = target.profile_data[key];
  if (value === null) {
    if (!current) return;
    delete target.profile_data[key];
  } else {
    if (current?.value === value) return;
    target.profile_data[key] = RENDERED_FIELD_TYPES.has(field.type)
      ? { value, rendered_value: renderMarkdown(ctx.store, value).html }
      : { value };
  }
  const entry = target.profile_data[key];
  ctx.events.notify(
    usersWhoCanAccess(ctx.store, target),
    realmUserUpdate({
      user_id: target.user_id,
      custom_profile_field: { id: field.id, value: entry?.value ?? null, ...(entry?.rendered_value !== undefined && { rendered_value: entry.rendered_value }) },
    }),
  );
}

// ---- deactivation ------------------------------------------------------------------------------

function deactivateUser(ctx: RouteContext) {
  const { store } = ctx;
  const target = accessUser(ctx, String(ctx.pathInt('user_id')), { allowDeactivated: false, allowBots: false, forAdmin: true });
  const comment = ctx.params.optStr('deactivation_notification_comment');
  if (comment !== undefined && comment.length > 2000) {
    throw badRequest('deactivation_notification_comment is too long (limit: 2000 characters)');
  }
  if (target.role === Role.OWNER && ctx.user.role !== Role.OWNER) throw ownerRequired();
  if (isLastOwner(store, target)) throw badRequest('Cannot deactivate the only organization owner');
  // As in Zulip, the user's bots go with them.
  const bots = [...store.users.values()].filter((u) => u.is_bot && u.is_active && u.bot_owner_id === target.user_id);
  for (const account of [target, ...bots]) deactivate(ctx, account);
  return {};
}

/**
 * Marks the account inactive and tells those who can access it (`realm_user` update with
 * `is_active`, feature level 222). Clients then drop the user from group membership (feature level
 * 303): group member lists leave deactivated users out, so no `user_group` event is sent.
 */
function deactivate(ctx: RouteContext, account: User): void {
  const audience = usersWhoCanAccess(ctx.store, account).filter((id) => id !== account.user_id);
  account.is_active = false;
  ctx.events.notify(audience, realmUserUpdate({ user_id: account.user_id, is_active: false }));
  if (account.is_bot) {
    ctx.events.notify(botAudience(ctx.store, account), { type: 'realm_bot', op: 'update', bot: { user_id: account.user_id, is_active: false } });
  }
}

// ---- register state ----------------------------------------------------------------------------

/** A bot as `realm_bots` lists it. https://zulip.com/api/register-queue */
function serializeBot(ctx: StateContext, bot: User) {
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

function realmUserState(ctx: StateContext): Record<string, unknown> {
  const { store, user } = ctx;
  const options: SerializeOptions = { baseUrl: ctx.baseUrl, clientGravatar: ctx.options.clientGravatar, includeProfileData: true };
  const accessible = accessibleUserIds(store, user);
  const incomplete = ctx.options.capabilities.user_list_incomplete === true;
  const sorted = [...store.users.values()].sort((a, b) => a.user_id - b.user_id);
  const shown = (u: User) => accessible === null || accessible.has(u.user_id);
  const realmUsers = sorted
    .filter((u) => u.is_active && (shown(u) || !incomplete))
    .map((u) => (shown(u) ? serializeUser(store, user, u, options) : unknownUser(store, u.user_id, ctx.baseUrl)));
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
    avatar_version: user.avatar_version,
    is_admin: store.isAdmin(user),
    is_owner: user.role === Role.OWNER,
    is_moderator: user.role === Role.MODERATOR,
    is_guest: store.isGuest(user),
    is_billing_admin: user.is_billing_admin,
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

// ---- routes ------------------------------------------------------------------------------------

export const routes: Route[] = [
  { method: 'GET', path: '/users', handler: getUsers },
  { method: 'GET', path: '/users/me', handler: getOwnUser },
  { method: 'GET', path: '/users/:user', handler: getUser },
  { method: 'PATCH', path: '/users/:user', handler: updateUser },
  { method: 'DELETE', path: '/users/:user_id', handler: deactivateUser },
];

