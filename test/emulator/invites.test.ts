/**
 * The emulator's invitation endpoints, driven through src/zulip/routes/invites.ts: who may invite
 * and as what, channel and group checks, the partial failure with INVITATION_FAILED, who manages
 * whose invitations, expiry, links on the emulator's origin, levels and the `invites_changed` event.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.js';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { createInviteLink, getInvites, resendEmailInvite, revokeEmailInvite, revokeInviteLink, sendInvites } from '../../src/zulip/routes/invites.js';
import { caughtApiError, setupEmulator, EMULATOR_URL } from '../helpers/emulator.js';

function setup(settings: Partial<EmulatorSettings> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  return setupEmulator({ clock, eventTypes: ['invites_changed'], settings });
}

const problem = async (promise: Promise<unknown>) => {
  const e = await caughtApiError(promise);
  return [e.code, e.message];
};

describe('email invitations', () => {
  it('stores one invitation per address, lists it to its creator and administrators only, and tells them', async () => {
    const { as, channelId, userId, listen } = setup();
    const admins = await listen('iago');
    await sendInvites(as('hamlet'), { inviteeEmails: 'Ann <ann@example.com>, bob@example.com\nann@example.com', streamIds: [channelId('general')] });
    const mine = await getInvites(as('hamlet'));
    expect(mine.invites.map((i) => [i.email, i.is_multiuse, i.invited_as, i.invited_by_user_id, i.notify_referrer_on_join])).toEqual([
      ['ann@example.com', false, 400, userId('hamlet'), true],
      ['bob@example.com', false, 400, userId('hamlet'), true],
    ]);
    expect(mine.invites[0]!.expiry_date! - mine.invites[0]!.invited).toBe(10 * 24 * 3600);
    expect((await getInvites(as('iago'))).invites).toHaveLength(2);
    expect((await getInvites(as('othello'))).invites).toEqual([]);
    expect((await admins()).map((e) => e.type)).toEqual(['invites_changed']);
  });

  it('refuses guests, roles above the caller, empty addresses, invisible channels and bad addresses', async () => {
    const { as, channelId, store } = setup();
    const general = [channelId('general')];
    expect(await problem(sendInvites(as('polonius'), { inviteeEmails: 'a@example.com', streamIds: general }))).toEqual(['BAD_REQUEST', 'Not allowed for guest users']);
    expect(await problem(sendInvites(as('hamlet'), { inviteeEmails: 'a@example.com', streamIds: general, inviteAs: 300 }))).toEqual([
      'BAD_REQUEST',
      'Must be an organization administrator',
    ]);
    expect(await problem(sendInvites(as('iago'), { inviteeEmails: 'a@example.com', streamIds: general, inviteAs: 100 }))).toEqual([
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    ]);
    expect(await problem(sendInvites(as('hamlet'), { inviteeEmails: '', streamIds: general }))).toEqual(['BAD_REQUEST', 'You must specify at least one email address.']);
    const engineering = channelId('engineering');
    expect(await problem(sendInvites(as('othello'), { inviteeEmails: 'a@example.com', streamIds: [engineering] }))).toEqual([
      'BAD_REQUEST',
      `Invalid channel ID ${engineering}. No invites were sent.`,
    ]);
    const invalid = await caughtApiError(sendInvites(as('hamlet'), { inviteeEmails: 'nope, hamlet@zulip.example.com', streamIds: general }));
    expect([invalid.code, invalid.message, invalid.data]).toEqual([
      'INVITATION_FAILED',
      "Some emails did not validate, so we didn't send any invitations.",
      expect.objectContaining({ errors: [['nope', 'Invalid address.', false], ['hamlet@zulip.example.com', 'Already has an account.', false]], sent_invitations: false }),
    ]);
    expect(store.invites.email.size).toBe(0);
    // An owner may invite an owner.
    await sendInvites(as('desdemona'), { inviteeEmails: 'owner@example.com', streamIds: general, inviteAs: 100 });
    expect(store.invites.email.size).toBe(1);
  });

  it('skips addresses with an account and says so with INVITATION_FAILED, having invited the rest', async () => {
    const { as, channelId, store } = setup();
    const e = await caughtApiError(sendInvites(as('hamlet'), { inviteeEmails: 'new@example.com, lear@zulip.example.com', streamIds: [channelId('general')] }));
    expect([e.code, e.data]).toEqual(['INVITATION_FAILED', expect.objectContaining({ errors: [['lear@zulip.example.com', 'Account has been deactivated.', true]], sent_invitations: true })]);
    expect([...store.invites.email.values()].map((i) => i.email)).toEqual(['new@example.com']);
    const none = await caughtApiError(sendInvites(as('hamlet'), { inviteeEmails: 'othello@zulip.example.com', streamIds: [] }));
    expect(none.message).toBe("We weren't able to invite anyone.");
  });

  it('lets the creator or an administrator resend and revoke, and nobody else', async () => {
    const { as, channelId, clock, store } = setup();
    await sendInvites(as('hamlet'), { inviteeEmails: 'ann@example.com', streamIds: [channelId('general')] });
    const [invite] = (await getInvites(as('hamlet'))).invites;
    for (const attempt of [resendEmailInvite(as('othello'), { inviteId: invite!.id }), revokeEmailInvite(as('shiva'), { inviteId: invite!.id })]) {
      expect(await problem(attempt)).toEqual(['BAD_REQUEST', 'Must be an organization administrator']);
    }
    clock.advance(60_000);
    await resendEmailInvite(as('iago'), { inviteId: invite!.id });
    expect(store.invites.email.get(invite!.id)!.invited).toBe(invite!.invited + 60);
    await revokeEmailInvite(as('hamlet'), { inviteId: invite!.id });
    expect(await problem(revokeEmailInvite(as('hamlet'), { inviteId: invite!.id }))).toEqual(['BAD_REQUEST', 'No such invitation']);
    expect(await problem(resendEmailInvite(as('hamlet'), { inviteId: 999 }))).toEqual(['BAD_REQUEST', 'No such invitation']);
  });

  it('drops expired invitations from the list and keeps never-expiring ones', async () => {
    const { as, channelId, clock } = setup();
    await sendInvites(as('hamlet'), { inviteeEmails: 'soon@example.com', streamIds: [channelId('general')], inviteExpiresInMinutes: 1 });
    await sendInvites(as('hamlet'), { inviteeEmails: 'never@example.com', streamIds: [channelId('general')], inviteExpiresInMinutes: null });
    clock.advance(61_000);
    expect((await getInvites(as('hamlet'))).invites.map((i) => [i.email, i.expiry_date])).toEqual([['never@example.com', null]]);
  });

  it('takes a custom welcome message (feature level 416) from administrators only, and groups the caller may add members to', async () => {
    const { as, channelId, store } = setup({ featureLevel: featureLevels.inviteWelcomeMessage });
    const general = [channelId('general')];
    expect(await problem(sendInvites(as('hamlet'), { inviteeEmails: 'a@example.com', streamIds: general, welcomeMessageCustomText: 'Hi' }))).toEqual([
      'BAD_REQUEST',
      'Must be an organization administrator',
    ]);
    const leadership = store.groupByName('leadership')!.id;
    expect(await problem(sendInvites(as('othello'), { inviteeEmails: 'a@example.com', streamIds: general, groupIds: [leadership] }))).toEqual([
      'BAD_REQUEST',
      'Insufficient permission',
    ]);
    await sendInvites(as('iago'), { inviteeEmails: 'a@example.com', streamIds: general, groupIds: [leadership], welcomeMessageCustomText: 'Hi', includeRealmDefaultSubscriptions: true });
    expect([...store.invites.email.values()][0]).toMatchObject({ group_ids: [leadership], welcome_message_custom_text: 'Hi', include_realm_default_subscriptions: true });
  });
});

describe('invitation links', () => {
  it('creates a link on the emulator\u2019s origin for administrators, lists it, and revokes it once', async () => {
    const { as, store } = setup();
    const { invite_link } = await createInviteLink(as('iago'), { inviteAs: 600, inviteExpiresInMinutes: null });
    expect(invite_link).toMatch(new RegExp(`^${EMULATOR_URL}/join/[a-z0-9]{24}/$`));
    const [link] = (await getInvites(as('desdemona'))).invites;
    expect(link).toMatchObject({ is_multiuse: true, link_url: invite_link, invited_as: 600, expiry_date: null });
    expect(await problem(revokeInviteLink(as('hamlet'), { inviteId: link!.id }))).toEqual(['BAD_REQUEST', 'Must be an organization administrator']);
    await revokeInviteLink(as('desdemona'), { inviteId: link!.id });
    expect(await problem(revokeInviteLink(as('iago'), { inviteId: link!.id }))).toEqual(['BAD_REQUEST', 'Invitation has already been revoked']);
    expect((await getInvites(as('iago'))).invites).toEqual([]);
    expect(store.invites.link.size).toBe(1);
  });

  it('needs can_create_multiuse_invite_group (administrators by default) and, below feature level 209, an administrator', async () => {
    const { as, store } = setup();
    expect(await problem(createInviteLink(as('hamlet'), {}))).toEqual(['BAD_REQUEST', 'Insufficient permission']);
    store.realm.settings.can_create_multiuse_invite_group = store.systemGroupId('role:members');
    await createInviteLink(as('hamlet'), {});
    const old = setup({ featureLevel: featureLevels.inviteLinksForMembers - 1 });
    old.store.realm.settings.can_create_multiuse_invite_group = old.store.systemGroupId('role:members');
    expect(await problem(createInviteLink(old.as('hamlet'), {}))).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  });
});
