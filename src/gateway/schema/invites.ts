/**
 * Invitations (https://zulip.com/help/invite-new-users): the `invitations` query, and the
 * `sendInvitations`, `resendEmailInvitation`, `revokeEmailInvitation`, `createInvitationLink` and
 * `revokeInvitationLink` mutations. https://zulip.com/api/get-invites
 *
 * Zulip keeps email invitations and reusable links in two tables, so a Zulip ID is unique only
 * within its kind: they are two Node types, `EmailInvitation` and `InvitationLink`, behind the
 * `Invitation` interface. The server's refusals keep their codes: BAD_REQUEST for a permission or
 * an unknown invitation, UNAUTHORIZED_PRINCIPAL for the owner rule, INVITATION_FAILED (with
 * `errors` and `sent_invitations`) when some addresses were refused or skipped.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Invite, InviteRole } from '../../zulip/model/invites.js';
import { createInviteLink, getInvites, resendEmailInvite, revokeEmailInvite, revokeInviteLink, sendInvites } from '../../zulip/routes/invites.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';
import { RoleEnum, UserRef, userOrNull } from './users.js';

/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
const MAX_WELCOME_MESSAGE_LENGTH = 8000;

const typenameOf = (invite: Invite) => (invite.is_multiuse ? 'InvitationLink' : 'EmailInvitation');

export const InvitationRef = builder.interfaceRef<Invite>('Invitation').implement({
  description: 'An unexpired invitation to join the organization: an email invitation or a reusable link.',
  resolveType: (invite) => typenameOf(invite),
  interfaces: [builder.nodeInterfaceRef()],
  fields: (t) => ({
    id: t.globalID({ description: 'The invitation\u2019s global ID.', resolve: (i) => ({ type: typenameOf(i), id: i.id }) }),
    zulipId: t.field({
      type: 'Long',
      description: 'The invitation ID (Zulip\u2019s own), unique only within its kind: email invitation or link.',
      resolve: (i) => i.id,
    }),
    invitedById: t.field({ type: 'Long', description: 'Who created the invitation.', resolve: (i) => i.invited_by_user_id }),
    invitedBy: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who created the invitation; null when not visible to the caller.',
      resolve: (i, _args, ctx) => userOrNull(ctx, i.invited_by_user_id),
    }),
    invitedAt: t.field({ type: 'Long', description: 'When it was created (or an email invitation last resent), in UNIX seconds.', resolve: (i) => i.invited }),
    expiresAt: t.field({ type: 'Long', nullable: true, description: 'When it expires, in UNIX seconds; null if it never does.', resolve: (i) => i.expiry_date }),
    role: t.field({ type: RoleEnum, description: 'The role a user joining through it gets.', resolve: (i) => i.invited_as }),
    notifyReferrerOnJoin: t.boolean({
      nullable: true,
      description: 'Whether its creator is sent a direct message when someone joins through it; null below feature level 267.',
      resolve: (i) => i.notify_referrer_on_join ?? null,
    }),
  }),
});

export const EmailInvitationRef = builder.objectRef<Invite>('EmailInvitation').implement({
  description: 'An invitation sent to one email address. https://zulip.com/help/invite-new-users#send-email-invitations',
  interfaces: [InvitationRef],
  fields: (t) => ({
    email: t.string({ description: 'The invited address.', resolve: (i) => i.email ?? '' }),
  }),
});

export const InvitationLinkRef = builder.objectRef<Invite>('InvitationLink').implement({
  description: 'A reusable invitation link. https://zulip.com/help/invite-new-users#create-a-reusable-invitation-link',
  interfaces: [InvitationRef],
  fields: (t) => ({
    url: t.string({ description: 'The link to share.', resolve: (i) => i.link_url ?? '' }),
  }),
});

async function listInvitations(ctx: Context): Promise<Invite[]> {
  return (await getInvites(ctx.connection)).invites;
}

const listOf = (multiuse: boolean) => async (ctx: Context) => (await listInvitations(ctx)).filter((i) => i.is_multiuse === multiuse);
asNode(EmailInvitationRef, { key: (i) => i.id, load: fromList(listOf(false), (i) => i.id, 'email invitation') });
asNode(InvitationLinkRef, { key: (i) => i.id, load: fromList(listOf(true), (i) => i.id, 'invitation link') });

builder.queryField('invitations', (t) =>
  t.field({
    extensions: reaches('get-invites'),
    type: [InvitationRef],
    nullable: true,
    description:
      'The unexpired invitations the caller can manage: administrators see everyone\u2019s, others their own. Guests are ' +
      'refused (BAD_REQUEST).',
    resolve: (_root, _args, ctx) => listInvitations(ctx),
  }),
);

// ---- arguments -----------------------------------------------------------------------------------

interface CommonArgs {
  role?: InviteRole | null;
  expiresInMinutes?: number | null;
  groupIds?: readonly number[] | null;
  includeRealmDefaultChannels?: boolean | null;
  welcomeMessageCustomText?: string | null;
}

/** The wire parameters both kinds share, checked before any upstream call, then gated by feature level. */
async function commonParams(field: string, args: CommonArgs, ctx: Context) {
  if (args.expiresInMinutes != null && args.expiresInMinutes <= 0) {
    throw badInput(`${field}: expiresInMinutes must be positive (null: never expires).`, { argument: 'expiresInMinutes' });
  }
  const welcome = args.welcomeMessageCustomText;
  if (welcome != null && [...welcome].length > MAX_WELCOME_MESSAGE_LENGTH) {
    throw badInput(`${field}: welcomeMessageCustomText is at most ${MAX_WELCOME_MESSAGE_LENGTH} characters.`, { argument: 'welcomeMessageCustomText' });
  }
  if (args.includeRealmDefaultChannels != null) await requireFeatureLevel(ctx, featureLevels.inviteDefaultChannels, 'includeRealmDefaultChannels');
  if (args.groupIds != null) await requireFeatureLevel(ctx, featureLevels.inviteGroups, 'Adding invited users to groups');
  if (welcome != null) await requireFeatureLevel(ctx, featureLevels.inviteWelcomeMessage, 'A custom welcome message on invitations');
  return {
    inviteAs: args.role ?? undefined,
    // Omitted: the server's default lifetime; null: never expires (sent as JSON null).
    inviteExpiresInMinutes: args.expiresInMinutes,
    groupIds: args.groupIds ?? undefined,
    includeRealmDefaultSubscriptions: args.includeRealmDefaultChannels ?? undefined,
    welcomeMessageCustomText: welcome ?? undefined,
  };
}

/** Addresses as Zulip splits them (commas, newlines): each one alone, none empty. */
function emailsArg(emails: readonly string[]): string[] {
  const trimmed = emails.map((e) => e.trim());
  if (trimmed.length === 0 || trimmed.some((e) => e === '' || /[,\n]/.test(e))) {
    throw badInput('sendInvitations: give at least one address, each non-empty and without commas or newlines.', { argument: 'emails' });
  }
  return trimmed;
}

// ---- payloads ------------------------------------------------------------------------------------

const SendInvitationsPayloadRef = builder.objectRef<{ emails: string[] }>('SendInvitationsPayload').implement({
  description: 'Email invitations that were sent.',
  fields: (t) => ({
    emails: t.stringList({ description: 'The addresses invited.', resolve: (p) => p.emails }),
    invitations: t.field({
      type: [EmailInvitationRef],
      description: 'The new invitations, one per address (fetched only when selected; those the caller manages).',
      resolve: async (p, _args, ctx) => {
        const wanted = new Set(p.emails.map((e) => e.toLowerCase()));
        const newest = new Map<string, Invite>();
        for (const invite of await listOf(false)(ctx)) {
          const email = invite.email?.toLowerCase();
          if (email === undefined || !wanted.has(email)) continue;
          if ((newest.get(email)?.id ?? -1) < invite.id) newest.set(email, invite);
        }
        return [...newest.values()];
      },
    }),
  }),
});

const InvitationLinkPayloadRef = builder.objectRef<{ url: string }>('InvitationLinkPayload').implement({
  description: 'A reusable invitation link that was created.',
  fields: (t) => ({
    url: t.string({ description: 'The link to share.', resolve: (p) => p.url }),
    invitation: t.field({
      type: InvitationLinkRef,
      nullable: true,
      description: 'The link as the server lists it (fetched only when selected).',
      resolve: async (p, _args, ctx) => (await listOf(true)(ctx)).find((i) => i.link_url === p.url) ?? null,
    }),
  }),
});

const ResendEmailInvitationPayloadRef = builder.objectRef<{ zulipId: number }>('ResendEmailInvitationPayload').implement({
  description: 'An email invitation that was sent again.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The invitation ID.', resolve: (p) => p.zulipId }),
    invitation: t.field({
      type: EmailInvitationRef,
      nullable: true,
      description: 'The invitation as the server now lists it (fetched only when selected).',
      resolve: async (p, _args, ctx) => (await listOf(false)(ctx)).find((i) => i.id === p.zulipId) ?? null,
    }),
  }),
});

const RevokeInvitationPayloadRef = builder.objectRef<{ typename: string; zulipId: number }>('RevokeInvitationPayload').implement({
  description: 'An invitation that was revoked.',
  fields: (t) => ({
    id: t.id({ description: 'The revoked invitation\u2019s global ID, to evict it from a normalized cache.', resolve: (p) => encodeGlobalID(p.typename, p.zulipId) }),
    zulipId: t.field({ type: 'Long', description: 'The revoked invitation\u2019s Zulip ID.', resolve: (p) => p.zulipId }),
  }),
});

// ---- mutations -----------------------------------------------------------------------------------

builder.mutationFields((t) => {
  const common = {
    role: t.arg({ type: RoleEnum, required: false, description: 'The role new users get (default MEMBER). MODERATOR and ADMINISTRATOR need an administrator, OWNER an owner.' }),
    expiresInMinutes: t.arg.int({
      required: false,
      description: 'Minutes until it expires; omitted: the server\u2019s default (10 days unless configured); null: never.',
    }),
    groupIds: t.arg({ type: ['Long'], required: false, description: 'User groups new users join (the caller must be able to add members). Feature level 322.' }),
    includeRealmDefaultChannels: t.arg.boolean({ required: false, description: 'Whether new users also join the default channels (default false). Feature level 261.' }),
    welcomeMessageCustomText: t.arg.string({
      required: false,
      description: 'What the Welcome Bot sends new users (administrators only; empty: nothing; null: the organization\u2019s). Feature level 416.',
    }),
  };
  const revoke = (what: string) => ({
    id: t.arg({ type: 'Long', required: true, description: `The ${what} to revoke.` }),
  });
  return {
    sendInvitations: t.field({
      extensions: reaches('send-invites'),
      type: SendInvitationsPayloadRef,
      description:
        'Invites email addresses to join (members the organization lets invite; guests are refused). Errors: BAD_REQUEST ' +
        '("Insufficient permission", an invisible channel, "You do not have permission to subscribe other users to ' +
        'channels."); UNAUTHORIZED_PRINCIPAL to invite an owner without being one; INVITATION_FAILED when some addresses ' +
        'were invalid (nothing sent) or already have accounts (the rest were invited: `sent_invitations`).',
      args: {
        emails: t.arg.stringList({ required: true, description: 'The addresses to invite, one per entry.' }),
        channelIds: t.arg({ type: ['Long'], required: true, description: 'Channels new users join: default channels, or ones the caller may add subscribers to.' }),
        notifyReferrerOnJoin: t.arg.boolean({ required: false, description: 'Whether to tell the caller when someone joins (default true). Feature level 267.' }),
        ...common,
      },
      resolve: async (_root, args, ctx) => {
        const emails = emailsArg(args.emails);
        const params = await commonParams('sendInvitations', args, ctx);
        if (args.notifyReferrerOnJoin != null) await requireFeatureLevel(ctx, featureLevels.inviteNotifyReferrer, 'notifyReferrerOnJoin');
        await sendInvites(ctx.connection, {
          inviteeEmails: emails.join(','),
          streamIds: args.channelIds,
          notifyReferrerOnJoin: args.notifyReferrerOnJoin ?? undefined,
          ...params,
        });
        return { emails };
      },
    }),
    createInvitationLink: t.field({
      extensions: reaches('create-invite-link'),
      type: InvitationLinkPayloadRef,
      description:
        'Creates a reusable invitation link (the organization\u2019s can_create_multiuse_invite_group, administrators by default; ' +
        'administrators only below feature level 209). Errors as `sendInvitations`.',
      args: {
        channelIds: t.arg({ type: ['Long'], required: false, description: 'Channels new users join (default none).' }),
        ...common,
      },
      resolve: async (_root, args, ctx) => {
        const params = await commonParams('createInvitationLink', args, ctx);
        const { invite_link } = await createInviteLink(ctx.connection, { streamIds: args.channelIds ?? undefined, ...params });
        return { url: invite_link };
      },
    }),
    resendEmailInvitation: t.field({
      extensions: reaches('resend-email-invite'),
      type: ResendEmailInvitationPayloadRef,
      description: 'Sends an email invitation again (its creator, or an administrator; an owner for an owner invitation). Unknown: BAD_REQUEST.',
      args: { id: t.arg({ type: 'Long', required: true, description: 'The email invitation to send again.' }) },
      resolve: async (_root, args, ctx) => {
        await resendEmailInvite(ctx.connection, { inviteId: args.id });
        return { zulipId: args.id };
      },
    }),
    revokeEmailInvitation: t.field({
      extensions: reaches('revoke-email-invite'),
      type: RevokeInvitationPayloadRef,
      description: 'Revokes an email invitation (its creator, or an administrator; an owner for an owner invitation). Unknown: BAD_REQUEST.',
      args: revoke('email invitation'),
      resolve: async (_root, args, ctx) => {
        await revokeEmailInvite(ctx.connection, { inviteId: args.id });
        return { typename: 'EmailInvitation', zulipId: args.id };
      },
    }),
    revokeInvitationLink: t.field({
      extensions: reaches('revoke-invite-link'),
      type: RevokeInvitationPayloadRef,
      description:
        'Revokes a reusable invitation link (its creator, or an administrator; administrators only below feature level 209). ' +
        'Unknown or already revoked: BAD_REQUEST.',
      args: revoke('invitation link'),
      resolve: async (_root, args, ctx) => {
        await revokeInviteLink(ctx.connection, { inviteId: args.id });
        return { typename: 'InvitationLink', zulipId: args.id };
      },
    }),
  };
});
