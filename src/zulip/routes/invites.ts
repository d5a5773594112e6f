/**
 * Bindings for invitations: email invitations and reusable invitation links. Members the
 * organization lets invite may send them; only administrators may invite as moderator or
 * administrator, only owners as owner; administrators manage everyone's invitations, others only
 * their own. Refusals are BAD_REQUEST (UNAUTHORIZED_PRINCIPAL for the owner rule), and a partial
 * failure of `send-invites` is INVITATION_FAILED with the addresses it skipped.
 * https://zulip.com/help/invite-new-users
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/invites.js';
import type { CreateInviteLinkResult, GetInvitesResult } from '../model/invites.js';

/** The unexpired invitations the caller can manage. https://zulip.com/api/get-invites */
export const getInvites = (c: ZulipConnection, call?: SendOptions): Promise<GetInvitesResult> => ops.getInvites(c, {}, call);

/** Sends email invitations (addresses separated by commas or newlines). https://zulip.com/api/send-invites */
export const sendInvites = (c: ZulipConnection, p: ops.SendInvitesParams, call?: SendOptions): Promise<object> => ops.sendInvites(c, p, call);

/** Sends an email invitation again. https://zulip.com/api/resend-email-invite */
export const resendEmailInvite = (c: ZulipConnection, p: ops.ResendEmailInviteParams, call?: SendOptions): Promise<object> =>
  ops.resendEmailInvite(c, p, call);

/** Revokes an email invitation. https://zulip.com/api/revoke-email-invite */
export const revokeEmailInvite = (c: ZulipConnection, p: ops.RevokeEmailInviteParams, call?: SendOptions): Promise<object> =>
  ops.revokeEmailInvite(c, p, call);

/** Creates a reusable invitation link. https://zulip.com/api/create-invite-link */
export const createInviteLink = (c: ZulipConnection, p: ops.CreateInviteLinkParams, call?: SendOptions): Promise<CreateInviteLinkResult> =>
  ops.createInviteLink(c, p, call);

/** Revokes a reusable invitation link. https://zulip.com/api/revoke-invite-link */
export const revokeInviteLink = (c: ZulipConnection, p: ops.RevokeInviteLinkParams, call?: SendOptions): Promise<object> =>
  ops.revokeInviteLink(c, p, call);
