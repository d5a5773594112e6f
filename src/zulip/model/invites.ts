/**
 * Wire types for invitations (https://zulip.com/api/get-invites), snake_case as sent: email
 * invitations and reusable invitation links, which the server keeps in two tables, so an ID is
 * unique only together with `is_multiuse`.
 */

/** The organization-level role a new user gets on accepting: owner, administrator, moderator, member, guest. */
export type InviteRole = 100 | 200 | 300 | 400 | 600;

/** One unexpired invitation the caller can manage, as `GET /invites` lists it. */
export interface Invite {
  id: number;
  /** Who created it (from feature level 22). */
  invited_by_user_id: number;
  /** When it was created (or last resent), UNIX seconds. */
  invited: number;
  /** When it expires, UNIX seconds; null: never. */
  expiry_date: number | null;
  invited_as: InviteRole;
  /** The invited address; email invitations only. */
  email?: string;
  /** Whether the referrer is told when someone joins through it (feature level 267). */
  notify_referrer_on_join?: boolean;
  /** The link's URL; reusable links only. */
  link_url?: string;
  is_multiuse: boolean;
}

/** `GET /invites` success body. */
export interface GetInvitesResult {
  invites: Invite[];
}

/** `POST /invites/multiuse` success body. */
export interface CreateInviteLinkResult {
  invite_link: string;
}
