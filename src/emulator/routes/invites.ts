/**
 * Invitations: `GET`/`POST /invites`, `DELETE /invites/{invite_id}`, `POST /invites/{invite_id}/resend`,
 * `POST /invites/multiuse` and `DELETE /invites/multiuse/{invite_id}` (https://zulip.com/api/get-invites
 * and neighbours), with the `invites_changed` event. The emulator sends no email: it keeps the
 * invitations and answers as Zulip does; a link's URL is built on the emulator's own origin.
 *
 * As in Zulip (zerver/views/invite.py): guests and bots are refused ("Not allowed for guest users");
 * email invitations need the organization's can_invite_users_group (members by default), links its
 * can_create_multiuse_invite_group (administrators by default; below feature level 209 links are
 * for administrators only), else "Insufficient permission"; inviting as owner needs an owner
 * (UNAUTHORIZED_PRINCIPAL), as administrator or moderator an administrator ("Must be an
 * organization administrator", BAD_REQUEST), and so does a custom welcome message. Channels must be
 * visible ("Invalid channel ID {id}. No invites were sent.") and either default channels or ones
 * the caller may add subscribers to. Addresses that do not validate cancel the whole request;
 * addresses with an account are skipped (INVITATION_FAILED). An invitation someone else created
 * is managed only by administrators (owners for an owner invitation).
 */
import { randomBytes } from 'node:crypto';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Invite, InviteRole } from '../../zulip/model/invites.js';
import { requireMemberOrAdmin, requireRealmAdmin, requireRealmOwner } from '../admin.js';
import type { Route, RouteContext } from '../context.js';
import { ApiError, badRequest, insufficientPermission } from '../errors.js';
import { checkIntArray } from '../http.js';
import { Role, ROLES, type GroupSettingValue, type StoredInvite, type SYSTEM_GROUPS } from '../store.js';
import { accessChannel } from './channels/access.js';
import { canAddSubscribers } from './subscriptions/permissions.js';
import { accessGroupToAddMembers } from './user-groups/index.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10) in minutes: the default lifetime. */
const DEFAULT_EXPIRY_MINUTES = 10 * 24 * 60;
/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
const MAX_WELCOME_MESSAGE_LENGTH = 8000;

type Kind = keyof RouteContext['store']['invites'];

/** Whether the caller holds an organization permission left at its default (a system group) when unset. */
function holdsRealmSetting(ctx: RouteContext, value: GroupSettingValue | undefined, fallback: (typeof SYSTEM_GROUPS)[number]): boolean {
  return ctx.store.userHasGroupSetting(ctx.user.user_id, value ?? ctx.store.systemGroupId(fallback));
}

/** Zulip's check_role_based_permissions. */
function checkRole(ctx: RouteContext, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === Role.OWNER) requireRealmOwner(ctx);
  if (requireAdmin && !ctx.store.isAdmin(ctx.user)) throw badRequest('Must be an organization administrator');
}

/** The options both kinds of invitation take, read and checked in the view's order. */
function readOptions(ctx: RouteContext, streamIds: number[]) {
  const { params, settings, store, user } = ctx;
  const invitedAs = params.optJson('invite_as') ?? Role.MEMBER;
  if (!Number.isSafeInteger(invitedAs)) throw badRequest('invite_as is not an integer');
  if (!ROLES.includes(invitedAs as InviteRole)) throw badRequest('Invalid invite_as');
  const expiresIn = params.optJson('invite_expires_in_minutes');
  if (expiresIn !== undefined && expiresIn !== null && !Number.isSafeInteger(expiresIn)) throw badRequest('invite_expires_in_minutes is not an integer');
  const atLevel = (level: number) => settings.featureLevel >= level;
  // TODO(server-10): inviteGroups (322); drop the older branch once every supported server has it.
  const groupIds = atLevel(featureLevels.inviteGroups) ? checkIntArray('group_ids', params.optJson('group_ids') ?? []) : [];
  // TODO(server-9): inviteDefaultChannels (261); drop the older branch once every supported server has it.
  const includeDefaults = atLevel(featureLevels.inviteDefaultChannels) ? params.optJson('include_realm_default_subscriptions') ?? false : false;
  if (typeof includeDefaults !== 'boolean') throw badRequest('include_realm_default_subscriptions is not a boolean');
  // TODO(server-11): inviteWelcomeMessage (416); drop the older branch once every supported server has it.
  const welcome = atLevel(featureLevels.inviteWelcomeMessage) ? params.optStr('welcome_message_custom_text') ?? null : null;
  if (welcome !== null && welcome.length > MAX_WELCOME_MESSAGE_LENGTH) {
    throw badRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_LENGTH} characters)`);
  }
  const role = invitedAs as InviteRole;
  return {
    role,
    expiresIn: expiresIn === undefined ? DEFAULT_EXPIRY_MINUTES : (expiresIn as number | null),
    groupIds,
    includeDefaults,
    welcome,
    /** The checks after the role's, in the view's order (the email check comes between for email invitations). */
    checkAccess(): void {
      for (const id of streamIds) {
        let channel;
        try {
          channel = accessChannel(ctx, id, 'content');
        } catch {
          throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
        }
        if (!store.defaultChannelIds.has(id) && !canAddSubscribers(store, user, channel)) {
          throw badRequest('You do not have permission to subscribe other users to channels.');
        }
      }
      for (const id of groupIds) accessGroupToAddMembers(store, user, id);
      if (welcome !== null && !store.isAdmin(user)) throw badRequest('Must be an organization administrator');
    },
  };
}

function newInvite(ctx: RouteContext, kind: Kind, options: ReturnType<typeof readOptions>, streamIds: number[], extra: Partial<StoredInvite>): StoredInvite {
  const invited = ctx.nowSeconds();
  const invite: StoredInvite = {
    id: ctx.store.nextId(`invite:${kind}`),
    invited_by_user_id: ctx.user.user_id,
    invited,
    expiry_date: options.expiresIn === null ? null : invited + options.expiresIn * 60,
    invited_as: options.role,
    is_multiuse: kind === 'link',
    notify_referrer_on_join: true,
    stream_ids: streamIds,
    group_ids: options.groupIds,
    include_realm_default_subscriptions: options.includeDefaults,
    welcome_message_custom_text: options.welcome,
    revoked: false,
    ...extra,
  };
  ctx.store.invites[kind].set(invite.id, invite);
  return invite;
}

/** Zulip's notify_invites_changed: administrators, and the invitation's creator. */
function notifyInvitesChanged(ctx: RouteContext, referrerId: number): void {
  const ids = new Set([...ctx.store.users.values()].filter((u) => u.is_active && ctx.store.isAdmin(u)).map((u) => u.user_id));
  ids.add(referrerId);
  ctx.events.notify([...ids], { type: 'invites_changed' });
}

/** Zulip's get_invitee_emails_set: split on commas and newlines, `Name <address>` reduced to the address. */
function inviteeEmails(raw: string): string[] {
  const emails = new Set<string>();
  for (let part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    if (named) part = named[1]!;
    emails.add(part.trim());
  }
  return [...emails];
}

function invitationFailed(msg: string, errors: [string, string, boolean][], sent: boolean): ApiError {
  return new ApiError('INVITATION_FAILED', msg, 400, { errors, sent_invitations: sent, license_limit_reached: false, daily_limit_reached: false });
}

/** https://zulip.com/api/send-invites */
function sendInvites(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  const raw = ctx.params.str('invitee_emails');
  const streamIds = ctx.params.intArray('stream_ids');
  const options = readOptions(ctx, streamIds);
  // TODO(server-9): inviteNotifyReferrer (267); drop the older branch once every supported server has it.
  const notify = ctx.settings.featureLevel >= featureLevels.inviteNotifyReferrer ? ctx.params.optJson('notify_referrer_on_join') ?? true : true;
  if (typeof notify !== 'boolean') throw badRequest('notify_referrer_on_join is not a boolean');
  if (!holdsRealmSetting(ctx, ctx.store.realm.settings.can_invite_users_group, 'role:members')) throw insufficientPermission();
  checkRole(ctx, options.role, options.role !== Role.MEMBER && options.role !== Role.GUEST);
  if (raw === '') throw badRequest('You must specify at least one email address.');
  const emails = inviteeEmails(raw);
  options.checkAccess();

  const invalid: [string, string, boolean][] = [];
  const skipped: [string, string, boolean][] = [];
  const good: string[] = [];
  for (const email of emails) {
    if (email === '') continue;
    if (!/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(email)) invalid.push([email, 'Invalid address.', false]);
    else {
      const existing = ctx.store.userByEmail(email);
      if (existing === undefined) good.push(email);
      else if (existing.is_active) skipped.push([email, 'Already has an account.', false]);
      else skipped.push([email, 'Account has been deactivated.', true]);
    }
  }
  if (invalid.length > 0) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...invalid, ...skipped], false);
  if (skipped.length > 0 && skipped.length === emails.length) throw invitationFailed("We weren't able to invite anyone.", skipped, false);
  for (const email of good) newInvite(ctx, 'email', options, streamIds, { email, notify_referrer_on_join: notify });
  if (good.length > 0) notifyInvitesChanged(ctx, ctx.user.user_id);
  if (skipped.length > 0) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
  return {};
}

/** https://zulip.com/api/create-invite-link */
function createInviteLink(ctx: RouteContext): Record<string, unknown> {
  // TODO(server-8): inviteLinksForMembers (209); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel < featureLevels.inviteLinksForMembers) requireRealmAdmin(ctx);
  requireMemberOrAdmin(ctx);
  const streamIds = ctx.params.optIntArray('stream_ids') ?? [];
  const options = readOptions(ctx, streamIds);
  if (!holdsRealmSetting(ctx, ctx.store.realm.settings.can_create_multiuse_invite_group, 'role:administrators')) throw insufficientPermission();
  checkRole(ctx, options.role, options.role !== Role.MEMBER && options.role !== Role.GUEST);
  options.checkAccess();
  // Zulip's generate_key: 24 lowercase letters and digits.
  const key = [...randomBytes(24)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
  const invite = newInvite(ctx, 'link', options, streamIds, { link_url: `${ctx.baseUrl}/join/${key}/` });
  notifyInvitesChanged(ctx, ctx.user.user_id);
  return { invite_link: invite.link_url };
}

/** Zulip's access_invite_by_id / access_multiuse_invite_by_id. */
function accessInvite(ctx: RouteContext, kind: Kind): StoredInvite {
  const invite = ctx.store.invites[kind].get(ctx.pathInt('invite_id'));
  if (!invite) throw badRequest('No such invitation');
  if (invite.invited_by_user_id !== ctx.user.user_id) checkRole(ctx, invite.invited_as, true);
  if (invite.revoked) throw badRequest('Invitation has already been revoked');
  return invite;
}

/** https://zulip.com/api/revoke-email-invite */
function revokeEmailInvite(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  const invite = accessInvite(ctx, 'email');
  ctx.store.invites.email.delete(invite.id);
  notifyInvitesChanged(ctx, invite.invited_by_user_id);
  return {};
}

/** https://zulip.com/api/revoke-invite-link */
function revokeInviteLink(ctx: RouteContext): Record<string, unknown> {
  // TODO(server-8): inviteLinksForMembers (209); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel < featureLevels.inviteLinksForMembers) requireRealmAdmin(ctx);
  requireMemberOrAdmin(ctx);
  const invite = accessInvite(ctx, 'link');
  invite.revoked = true;
  notifyInvitesChanged(ctx, invite.invited_by_user_id);
  return {};
}

/** https://zulip.com/api/resend-email-invite: the email goes again, and the invitation counts from now. */
function resendEmailInvite(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  const invite = accessInvite(ctx, 'email');
  invite.invited = ctx.nowSeconds();
  notifyInvitesChanged(ctx, invite.invited_by_user_id);
  return {};
}

function serialize(ctx: RouteContext, invite: StoredInvite): Invite {
  const wire: Invite = {
    id: invite.id,
    invited_by_user_id: invite.invited_by_user_id,
    invited: invite.invited,
    expiry_date: invite.expiry_date,
    invited_as: invite.invited_as,
    is_multiuse: invite.is_multiuse,
  };
  if (invite.email !== undefined) wire.email = invite.email;
  if (invite.link_url !== undefined) wire.link_url = invite.link_url;
  // TODO(server-9): inviteNotifyReferrer (267); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel >= featureLevels.inviteNotifyReferrer) wire.notify_referrer_on_join = invite.notify_referrer_on_join ?? true;
  return wire;
}

/** https://zulip.com/api/get-invites: administrators see every unexpired invitation, others their own. */
function getInvites(ctx: RouteContext): Record<string, unknown> {
  requireMemberOrAdmin(ctx);
  const now = ctx.nowSeconds();
  const admin = ctx.store.isAdmin(ctx.user);
  const invites = [...ctx.store.invites.email.values(), ...ctx.store.invites.link.values()].filter(
    (i) => !i.revoked && (i.expiry_date === null || i.expiry_date > now) && (admin || i.invited_by_user_id === ctx.user.user_id),
  );
  return { invites: invites.map((i) => serialize(ctx, i)) };
}

export const routes: Route[] = [
  { operation: ops.getInvites, handler: getInvites },
  { operation: ops.sendInvites, handler: sendInvites },
  { operation: ops.createInviteLink, handler: createInviteLink },
  { operation: ops.revokeInviteLink, handler: revokeInviteLink },
  { operation: ops.revokeEmailInvite, handler: revokeEmailInvite },
  { operation: ops.resendEmailInvite, handler: resendEmailInvite },
];
