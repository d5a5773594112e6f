/**
 * Users: the `User` type (backed by the wire user of `GET /users`), the caller's own `Me`, the
 * `users` / `user` / `userByEmail` / `me` queries, the administrative `createUser`, `updateUser`,
 * `deactivateUser` and `reactivateUser` mutations, and `deactivateOwnUser`.
 * https://zulip.com/api/get-users
 */
import type { OwnUser, ProfileFieldValue, User, UserRole } from '../../zulip/model/users.js';
import {
  createUser,
  deactivateOwnUser,
  deactivateUser,
  getOwnUser,
  getUser,
  getUserByEmail,
  getUsers,
  reactivateUser,
  updateUser,
  updateUserByEmail,
  type UserChanges,
} from '../../zulip/routes/users.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput, isNotFound } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { memoKey, notFound } from '../loaders/index.js';
import { asNode, lookupNodeCost } from './node.js';
import { userLookupCost } from '../upstream/cost.js';

export const RoleEnum = builder.enumType('Role', {
  description: 'A user\'s organization-level role. https://zulip.com/api/roles-and-permissions',
  values: {
    OWNER: { value: 100, description: 'Organization owner (100); also an administrator.' },
    ADMINISTRATOR: { value: 200, description: 'Organization administrator (200).' },
    MODERATOR: { value: 300, description: 'Organization moderator (300).' },
    MEMBER: { value: 400, description: 'Member (400).' },
    GUEST: { value: 600, description: 'Guest (600), with limited access.' },
  } as const,
});

const BotTypeEnum = builder.enumType('BotType', {
  description: 'The kind of a bot account.',
  values: {
    GENERIC: { value: 1, description: 'A generic bot (1).' },
    INCOMING_WEBHOOK: { value: 2, description: 'An incoming webhook bot (2): it can only send messages.' },
    OUTGOING_WEBHOOK: { value: 3, description: 'An outgoing webhook bot (3).' },
    EMBEDDED: { value: 4, description: 'An embedded bot (4), run by the server.' },
  } as const,
});

/** One custom profile field value of a user. */
interface ProfileDataEntry extends ProfileFieldValue {
  field_id: number;
}

export const ProfileDataEntryRef = builder.objectRef<ProfileDataEntry>('ProfileDataEntry').implement({
  description: "A user's value for one custom profile field of the organization.",
  fields: (t) => ({
    fieldId: t.field({ type: 'Long', description: 'ID of the custom profile field.', resolve: (e) => e.field_id }),
    value: t.exposeString('value', { description: 'The value as entered.' }),
    renderedValue: t.string({
      nullable: true,
      description: 'The value rendered as HTML; null for fields that do not support Markdown.',
      resolve: (e) => e.rendered_value ?? null,
    }),
  }),
});

// Users as `GET /users?include_custom_profile_fields=true` returns them, fetched at most once per
// request and only when a profileData field needs it (the users loader leaves profile data out).
const usersWithProfileData = memoKey<Map<number, User>>('users with profile data');

async function profileDataOf(user: User, ctx: Context): Promise<Record<string, ProfileFieldValue>> {
  if (user.is_bot) return {};
  if (user.profile_data) return user.profile_data;
  const all = await ctx.loaders.memo.get(usersWithProfileData, () =>
    getUsers(ctx.connection, { clientGravatar: false, includeCustomProfileFields: true }).then(
      ({ members }) => new Map(members.map((u) => [u.user_id, u])),
    ),
  );
  return all.get(user.user_id)?.profile_data ?? {};
}

export const UserRef = builder.objectRef<User>('User');

UserRef.implement({
  // A live query that resolved any of its fields is re-run when the user changes.
  zulip: { entity: { resource: 'User', id: (user) => user.user_id } },
  description: 'A user or bot account of the organization. https://zulip.com/api/get-user',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The user ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (u) => u.user_id }),
    email: t.exposeString('email', {
      description:
        'The API email address: the real address, or a placeholder usable only with the API when the ' +
        'real one is hidden from the caller.',
    }),
    deliveryEmail: t.string({
      nullable: true,
      description: 'The real email address; null when the caller may not see it. Always set for bots.',
      resolve: (u) => u.delivery_email ?? null,
    }),
    fullName: t.exposeString('full_name', { description: 'Full name, used for all display purposes.' }),
    dateJoined: t.exposeString('date_joined', { description: 'When the account was created (ISO 8601).' }),
    isActive: t.exposeBoolean('is_active', { description: 'False when the account is deactivated.' }),
    role: t.field({ type: RoleEnum, description: 'Organization-level role.', resolve: (u) => u.role as UserRole }),
    isOwner: t.exposeBoolean('is_owner', {
      description: 'Whether the user is an organization owner.',
      deprecationReason: 'Use role (the only one kept current by events).',
    }),
    isAdmin: t.exposeBoolean('is_admin', {
      description: 'Whether the user is an administrator (owners included).',
      deprecationReason: 'Use role (the only one kept current by events).',
    }),
    isGuest: t.exposeBoolean('is_guest', {
      description: 'Whether the user is a guest.',
      deprecationReason: 'Use role (the only one kept current by events).',
    }),
    isBillingAdmin: t.boolean({
      description: 'Whether the user is a billing administrator (unrelated to role).',
      resolve: (u) => u.is_billing_admin ?? false,
    }),
    isBot: t.exposeBoolean('is_bot', { description: 'Whether this is a bot account.' }),
    botType: t.field({
      type: BotTypeEnum,
      nullable: true,
      description: 'The kind of bot; null for humans.',
      resolve: (u) => u.bot_type ?? null,
    }),
    botOwner: t.field({
      type: UserRef,
      nullable: true,
      description: "The bot's owner; null for humans, legacy bots without owner, and owners the caller cannot see.",
      zulip: { cost: userLookupCost },
      resolve: (u, _args, ctx) => (u.bot_owner_id == null ? null : userOrNull(ctx, u.bot_owner_id)),
    }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the profile; empty when unset.' }),
    avatarUrl: t.string({
      nullable: true,
      description: 'URL of the avatar; null only when the server left it to the client (gravatar).',
      resolve: (u) => u.avatar_url ?? null,
    }),
    avatarVersion: t.exposeInt('avatar_version', { description: 'Avatar version, for cache busting.' }),
    profileData: t.field({
      type: [ProfileDataEntryRef],
      description: 'Custom profile field values, by field ID; always empty for bots.',
      // profileDataOf: one GET /users per operation, when the user came without profile data.
      zulip: { cost: { once: { key: 'users with profile data', calls: 1 } } },
      resolve: async (u, _args, ctx) =>
        Object.entries(await profileDataOf(u, ctx))
          .map(([id, v]) => ({ ...v, field_id: Number(id) }))
          .sort((a, b) => a.field_id - b.field_id),
    }),
  }),
});

export const MeRef = builder.objectRef<OwnUser>('Me').implement({
  zulip: { entity: { resource: 'User', id: (me) => me.user_id } },
  description: 'The caller: their own account, plus personal data other resources attach here.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: "The caller's user ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).", resolve: (me) => me.user_id }),
    user: t.field({
      zulip: { cost: userLookupCost },
      type: UserRef,
      description: "The caller's user record.",
      resolve: (me, _args, ctx) => ctx.loaders.user(me.user_id),
    }),
  }),
});

asNode(UserRef, { key: (u) => u.user_id, load: (id, ctx) => ctx.loaders.user(id), cost: lookupNodeCost });

// The caller only: another user's `Me` id is NOT_FOUND, as if it did not exist.
asNode(MeRef, {
  key: (me) => me.user_id,
  load: async (id, ctx) => {
    const me = await ownUser(ctx);
    if (me.user_id !== id) throw notFound('Me', id);
    return me;
  },
});

const callerOwnUser = memoKey<OwnUser>('caller own user');

/**
 * The caller's own account, once per request: from the live directory when it serves this request
 * (its register state names the caller, `user_id`, among the users it holds), else
 * `GET /users/me` (https://zulip.com/api/get-own-user). Asking who one is starts no queue: the
 * directory is read only once another lookup of the credential has loaded it.
 */
export function ownUser(ctx: Context): Promise<OwnUser> {
  return ctx.loaders.memo.get(callerOwnUser, async () => {
    const directory = ctx.server.directories?.peek(ctx.connection) ? ctx.loaders.directory() : undefined;
    const selfId = directory?.selfId;
    const self = selfId === undefined ? undefined : directory!.userById(selfId);
    return self ? ownUserOf(self) : getOwnUser(ctx.connection);
  });
}

/**
 * The caller's record as `GET /users/me` gives it: Zulip builds both from the same user row
 * (`format_user_row`), the own one always with the real email; only the deprecated
 * `max_message_id`, which no field exposes, is not in a realm user.
 */
function ownUserOf(user: User): OwnUser {
  const { bot_type: _botType, bot_owner_id: _botOwnerId, ...common } = user;
  return { ...common, delivery_email: user.delivery_email ?? user.email, avatar_url: user.avatar_url ?? '' };
}

/** Puts fresh records into this request's user loader (replacing anything cached). */
function primeUsers(ctx: Context, users: User[]): void {
  for (const user of users) ctx.loaders.users.clear(user.user_id).prime(user.user_id, user);
}

/** Re-reads one user after a change, so the mutation returns what the server now holds. */
export async function freshUser(ctx: Context, userId: number): Promise<User> {
  const { user } = await getUser(ctx.connection, { userId, clientGravatar: false, includeCustomProfileFields: true });
  primeUsers(ctx, [user]);
  return user;
}

/** A user by ID through the request's loader; null for one the caller cannot see (invitations, exports). */
export async function userOrNull(ctx: Context, id: number): Promise<User | null> {
  const [user] = await ctx.loaders.users.loadMany([id]);
  if (isNotFound(user)) return null;
  if (user instanceof Error) throw user;
  return user ?? null;
}

// ---- queries -------------------------------------------------------------------------------------

builder.queryField('users', (t) =>
  t.field({
    zulip: { reaches: ['get-users'], cost: { each: 1, size: { directory: 'users' } }, live: ['Users'] },
    type: [UserRef],
    nullable: true,
    description: 'Users and bots the caller can access, in ID order. One upstream request, shared with nested users.',
    args: {
      includeDeactivated: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: 'Include deactivated accounts.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { members } = await getUsers(ctx.connection, { clientGravatar: false, includeCustomProfileFields: true });
      primeUsers(ctx, members);
      return members
        .filter((u) => args.includeDeactivated || u.is_active)
        .sort((a, b) => a.user_id - b.user_id);
    },
  }),
);

builder.queryField('user', (t) =>
  t.field({
    zulip: { reaches: ['get-user'], live: ['Users'] },
    type: UserRef,
    nullable: true,
    description:
      'One user by ID (deactivated ones included); null with a NOT_FOUND error when it does not exist or is not visible.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The user ID.' }) },
    resolve: (_root, args, ctx) => ctx.loaders.user(args.id),
  }),
);

builder.queryField('userByEmail', (t) =>
  t.field({
    zulip: { reaches: ['get-user-by-email'], live: ['Users'], gate: { level: featureLevels.userByRealEmail, what: 'Looking a user up by email' } },
    type: UserRef,
    nullable: true,
    description:
      'One user by email (null with an error when there is none): the API email, the placeholder form, or the real address when the caller may see it. ' +
      `Needs feature level ${featureLevels.userByRealEmail} (lookup by real address).`,
    args: { email: t.arg.string({ required: true, description: 'The email address.' }) },
    resolve: async (_root, args, ctx) => {
      const { user } = await getUserByEmail(ctx.connection, {
        email: args.email,
        clientGravatar: false,
        includeCustomProfileFields: true,
      });
      primeUsers(ctx, [user]);
      return user;
    },
  }),
);

builder.queryField('me', (t) =>
  t.field({
    zulip: { reaches: ['get-own-user'], cost: { once: { key: 'own user', calls: 1 }, directory: true }, live: [] },
    type: MeRef,
    nullable: true,
    description: 'The caller, fetched once per operation: from the caller\u2019s live directory once another lookup loaded it (no upstream call), else one call.',
    resolve: (_root, _args, ctx) => ownUser(ctx),
  }),
);

// ---- mutations -----------------------------------------------------------------------------------

interface UserLookup {
  id?: number | null;
  email?: string | null;
}

const UserLookupInput = builder.inputRef<UserLookup>('UserLookupInput').implement({
  description: 'Identifies a user: exactly one of `id` or `email`.',
  fields: (t) => ({
    id: t.field({ type: 'Long', required: false, description: 'The user ID.' }),
    email: t.string({
      required: false,
      description: 'The API email, the placeholder form, or the real address when the caller may see it.',
    }),
  }),
});

const ProfileDataInput = builder.inputType('ProfileDataInput', {
  description: 'A new value for one custom profile field.',
  fields: (t) => ({
    fieldId: t.field({ type: 'Long', required: true, description: 'ID of the custom profile field.' }),
    value: t.string({ required: false, description: 'The new value; null or empty clears the field.' }),
  }),
});

function checkLookup(lookup: UserLookup): { id: number } | { email: string } {
  const hasId = lookup.id != null;
  const hasEmail = lookup.email != null;
  if (hasId === hasEmail) throw badInput('user: give exactly one of id or email.');
  return hasId ? { id: lookup.id! } : { email: lookup.email! };
}

/** The user ID behind a lookup; an email costs one `GET /users/{email}` (feature level 302). */
async function resolveUserId(ctx: Context, lookup: { id: number } | { email: string }, what: string): Promise<number> {
  if ('id' in lookup) return lookup.id;
  await requireFeatureLevel(ctx, featureLevels.userByRealEmail, what);
  const { user } = await getUserByEmail(ctx.connection, { email: lookup.email, clientGravatar: false });
  return user.user_id;
}

builder.mutationField('updateUser', (t) =>
  t.field({
    zulip: { reaches: ['update-user', 'update-user-by-email'], writes: ['realm_user'] },
    type: UserRef,
    description:
      'Administrative update of a user (administrators only; only owners can add or remove the owner role, ' +
      'the only owner cannot lose it, guests cannot become administrators). Returns the updated user. ' +
      `Addressing the user by email needs feature level ${featureLevels.updateUserByEmail}.`,
    args: {
      user: t.arg({ type: UserLookupInput, required: true, description: 'Who to update.' }),
      fullName: t.arg.string({ required: false, description: 'New full name.' }),
      role: t.arg({ type: RoleEnum, required: false, description: 'New role.' }),
      profileData: t.arg({
        type: [ProfileDataInput],
        required: false,
        description: 'New custom profile field values.',
      }),
      newEmail: t.arg.string({
        required: false,
        description: 'New email address (the caller must be an owner allowed to change user emails; feature level 313).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const lookup = checkLookup(args.user);
      const changes: UserChanges = {};
      if (args.fullName != null) changes.fullName = args.fullName;
      if (args.role != null) changes.role = args.role as UserRole;
      if (args.profileData != null) changes.profileData = args.profileData.map((p) => ({ id: p.fieldId, value: p.value ?? null }));
      if (args.newEmail != null) {
        await requireFeatureLevel(ctx, featureLevels.updateUserByEmail, 'Changing a user\'s email address');
        changes.newEmail = args.newEmail;
      }
      if (Object.keys(changes).length === 0) throw badInput('updateUser: give at least one change.');
      if ('id' in lookup) {
        await updateUser(ctx.connection, { userId: lookup.id, ...changes });
        return freshUser(ctx, lookup.id);
      }
      await requireFeatureLevel(ctx, featureLevels.updateUserByEmail, 'Updating a user by email');
      const userId = await resolveUserId(ctx, lookup, 'Updating a user by email');
      await updateUserByEmail(ctx.connection, { email: lookup.email, ...changes });
      return freshUser(ctx, userId);
    },
  }),
);

builder.mutationField('deactivateUser', (t) =>
  t.field({
    zulip: { reaches: ['deactivate-user'], writes: ['realm_user'] },
    type: UserRef,
    description:
      'Deactivates a user (administrators only; never the only owner). Returns the deactivated user. ' +
      `Addressing the user by email needs feature level ${featureLevels.userByRealEmail}.`,
    args: {
      user: t.arg({ type: UserLookupInput, required: true, description: 'Who to deactivate.' }),
      notificationComment: t.arg.string({
        required: false,
        description: 'When given, the user is emailed about the deactivation, with this text if not empty.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const userId = await resolveUserId(ctx, checkLookup(args.user), 'Deactivating a user by email');
      await deactivateUser(ctx.connection, {
        userId,
        ...(args.notificationComment != null && { deactivationNotificationComment: args.notificationComment }),
      });
      // Every credential of the user is refused from now on (revocation.ts).
      ctx.server.revocations?.revokeUser(userId);
      return freshUser(ctx, userId);
    },
  }),
);

// ---- account lifecycle ---------------------------------------------------------------------------

const CreateUserPayloadRef = builder.objectRef<{ userId: number }>('CreateUserPayload').implement({
  description: 'A user account that was created.',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The new user\u2019s ID.', resolve: (p) => p.userId }),
    user: t.field({
      zulip: { cost: { each: 1 } },
      type: UserRef,
      description: 'The new user as the server now holds it (one more call, only when selected).',
      resolve: (p, _args, ctx) => freshUser(ctx, p.userId),
    }),
  }),
});

/** Zulip's full-name limits (check_full_name), checked before the call so that bad input costs nothing upstream. */
const MAX_FULL_NAME_LENGTH = 100;
const MIN_FULL_NAME_LENGTH = 2;

builder.mutationField('createUser', (t) =>
  t.field({
    zulip: { reaches: ['create-user'], writes: ['realm_user'] },
    type: CreateUserPayloadRef,
    description:
      'Creates a user account with a password. The caller needs the server-level `can_create_users` permission ' +
      `(any administrator before feature level ${featureLevels.createUserPermission}): else UNAUTHORIZED_PRINCIPAL (not an ` +
      'administrator) or BAD_REQUEST. An email in use, a weak password or a bad name are BAD_REQUEST.',
    args: {
      email: t.arg.string({ required: true, description: 'The new user\u2019s email address.' }),
      password: t.arg.string({ required: true, description: 'The new user\u2019s password; never logged nor echoed in an error.' }),
      fullName: t.arg.string({ required: true, description: `The new user\u2019s full name (${MIN_FULL_NAME_LENGTH} to ${MAX_FULL_NAME_LENGTH} characters).` }),
    },
    resolve: async (_root, args, ctx) => {
      const email = args.email.trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw badInput('email is not an email address.', { argument: 'email' });
      if (args.password === '') throw badInput('password must not be empty.', { argument: 'password' });
      const fullName = args.fullName.trim();
      if (fullName.length < MIN_FULL_NAME_LENGTH || fullName.length > MAX_FULL_NAME_LENGTH) {
        throw badInput(`fullName must have ${MIN_FULL_NAME_LENGTH} to ${MAX_FULL_NAME_LENGTH} characters.`, { argument: 'fullName' });
      }
      const { user_id } = await createUser(ctx.connection, { email, password: args.password, fullName });
      return { userId: user_id };
    },
  }),
);

const DeactivateOwnUserPayloadRef = builder.objectRef<object>('DeactivateOwnUserPayload').implement({
  description: 'The caller\u2019s account was deactivated: its credentials no longer work.',
  fields: (t) => ({ ok: t.boolean({ description: 'Always true.', resolve: () => true }) }),
});

builder.mutationField('deactivateOwnUser', (t) =>
  t.field({
    zulip: { reaches: ['deactivate-own-user'], writes: ['realm_user'] },
    type: DeactivateOwnUserPayloadRef,
    description:
      'Deactivates the caller\u2019s own account (and their bots). The only owner or the only user cannot: ' +
      'CANNOT_DEACTIVATE_LAST_USER, with `entity` and `is_last_owner` in the extensions.',
    resolve: async (_root, _args, ctx) => {
      await deactivateOwnUser(ctx.connection);
      ctx.server.revocations?.refusedOwner(ctx.connection);
      return {};
    },
  }),
);

builder.mutationField('reactivateUser', (t) =>
  t.field({
    zulip: { reaches: ['reactivate-user'], writes: ['realm_user'] },
    type: UserRef,
    description:
      'Reactivates a deactivated user (administrators; a bot\u2019s owner for the bot). Returns the user. ' +
      'Others get BAD_REQUEST "Insufficient permission"; an unknown user is BAD_REQUEST "No such user".',
    args: { userId: t.arg({ type: 'Long', required: true, description: 'The user to reactivate.' }) },
    resolve: async (_root, args, ctx) => {
      await reactivateUser(ctx.connection, { userId: args.userId });
      return freshUser(ctx, args.userId);
    },
  }),
);
