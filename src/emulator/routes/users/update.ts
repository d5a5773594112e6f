/**
 * `PATCH /users/{user_id}` and `PATCH /users/{email}` (https://zulip.com/api/update-user) with the
 * `realm_user` / `realm_bot` update events. Every input is checked before anything changes.
 */
import type { UserRole } from '../../../zulip/model/users.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest, insufficientPermission } from '../../errors.js';
import { renderMarkdown } from '../../markdown.js';
import { Role, ROLES, type SYSTEM_GROUPS, type Store, type User } from '../../store.js';
import type { CustomProfileField } from '../../store.js';
import { RENDERED_FIELD_TYPES, USER_FIELD_TYPE, customProfileFields } from './profile-fields.js';
import { usersWhoCanAccess } from './wire.js';
import { ownerRequired, accessUser } from './read.js';

// ---- update ------------------------------------------------------------------------------------

export const NAME_INVALID_CHARS = ['*', '`', '\\', '>', '"', '@'];
export const MAX_NAME_LENGTH = 100;
export const MIN_NAME_LENGTH = 2;

/** Zulip's check_full_name. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if (name.length < MIN_NAME_LENGTH) throw badRequest('Name too short!');
   
  if (/[\u0000-\u001f\u007f]/.test(name) || NAME_INVALID_CHARS.some((c) => name.includes(c))) {
    throw badRequest('Invalid characters in name!');
  }
  if (/\|\d+$/.test(raw)) throw badRequest('Invalid format!');
  return name;
}

export interface ProfileChange {
  field: CustomProfileField;
  /** null clears the field. */
  value: string | null;
}

/**
 * The `profile_data` of update-user, or (`name` = `data`) the `data` of update-profile-data: a
 * list of `{id, value}`, a value being text, or a list of user IDs for a users field (stored as
 * its JSON text, as Zulip returns it).
 */
export function readProfileData(ctx: RouteContext, param = 'profile_data'): ProfileChange[] | undefined {
  const raw = ctx.params.optJson<unknown>(param);
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw badRequest(`${param} is not a list`);
  const fields = customProfileFields(ctx.store);
  return raw.map((entry: unknown, i) => {
    const name = `${param}[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`${name} is not a dict`);
    const { id, value, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw badRequest(`Unexpected arguments: ${extra}`);
    if (id === undefined) throw badRequest(`${name} key is missing: id`);
    if (!('value' in (entry as object))) throw badRequest(`${name} key is missing: value`);
    if (!Number.isSafeInteger(id)) throw badRequest(`${name}["id"] is not an integer`);
    const field = fields.find((f) => f.id === id);
    if (Array.isArray(value) && field?.type === USER_FIELD_TYPE) return { field, value: checkUserIds(ctx, field, value) };
    if (value !== null && typeof value !== 'string') throw badRequest(`${name}["value"] is not a string`);
    if (!field) throw badRequest(`Field id ${String(id)} not found.`);
    if (value === null || value === '') return { field, value: null };
    checkProfileValue(field, value);
    return { field, value };
  });
}

/** A users field's value: known user IDs, as the JSON text Zulip stores; an empty list clears it. */
function checkUserIds(ctx: RouteContext, field: CustomProfileField, ids: unknown[]): string | null {
  for (const id of ids) {
    if (!Number.isSafeInteger(id)) throw badRequest(`${field.name} is not a list of integers`);
    if (!ctx.store.users.has(id as number)) throw badRequest(`Invalid user ID: ${String(id)}`);
  }
  return ids.length === 0 ? null : JSON.stringify(ids);
}

/** The per-type checks of Zulip's validate_user_custom_profile_field, for the types the demo uses. */
export function checkProfileValue(field: CustomProfileField, value: string): void {
  if (value.includes('\u0000')) throw badRequest(`${field.name} contains NULL (0x00) characters.`);
  const limit = field.type === 2 ? 500 : 50;
  if ((field.type === 1 || field.type === 2 || field.type === 8) && value.length > limit) {
    throw badRequest(`${field.name} is too long (limit: ${limit} characters)`);
  }
  if (field.type === 4 && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw badRequest(`${field.name} is not a date`);
  }
  if (field.type === 5 && !/^https?:\/\/\S+$/.test(value)) throw badRequest(`${field.name} is not a URL`);
  if (field.type === 3 && !(value in (JSON.parse(field.field_data || '{}') as Record<string, unknown>))) {
    throw badRequest(`'${value}' is not a valid choice for '${field.name}'.`);
  }
}

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkNewEmail(ctx: RouteContext, target: User, raw: string): string {
  const { store, user } = ctx;
  if (user.role !== Role.OWNER || !user.can_change_user_emails) throw insufficientPermission();
  const email = raw.trim();
  if (!EMAIL_RE.test(email)) throw badRequest('Invalid address.');
  const holder = [...store.users.values()].find((u) => u.delivery_email.toLowerCase() === email.toLowerCase());
  if (holder && holder.user_id !== target.user_id) throw badRequest(`Email '${email}' already in use`);
  return email;
}

export function humanOwners(store: Store): User[] {
  return [...store.users.values()].filter((u) => u.is_active && !u.is_bot && u.role === Role.OWNER);
}

/** Zulip's check_last_owner. */
export function isLastOwner(store: Store, target: User): boolean {
  const owners = humanOwners(store);
  return target.role === Role.OWNER && !target.is_bot && owners.length === 1 && owners[0]!.user_id === target.user_id;
}

export function readRole(ctx: RouteContext): UserRole | undefined {
  const raw = ctx.params.optJson<unknown>('role');
  if (raw === undefined) return undefined;
  if (!Number.isSafeInteger(raw)) throw badRequest('role is not an integer');
  if (!ROLES.includes(raw as UserRole)) throw badRequest('Invalid role');
  return raw as UserRole;
}

export function checkRoleChange(ctx: RouteContext, target: User, role: number): void {
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
export function roleSystemGroup(store: Store, role: number): number {
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

export function activeUserIds(store: Store): number[] {
  return [...store.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
}

/** Bot owner and administrators: the audience of `realm_bot` events. */
export function botAudience(store: Store, bot: User): number[] {
  return [...store.users.values()]
    .filter((u) => u.is_active && (store.isAdmin(u) || u.user_id === bot.bot_owner_id))
    .map((u) => u.user_id);
}

export function realmUserUpdate(person: Record<string, unknown>) {
  return { type: 'realm_user', op: 'update', person };
}

export function updateUser(ctx: RouteContext) {
  const { store, params } = ctx;
  const target = accessUser(ctx, ctx.path.user_id!, { allowDeactivated: true, allowBots: true, forAdmin: true });

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

export function applyProfileChange(ctx: RouteContext, target: User, { field, value }: ProfileChange): void {
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
