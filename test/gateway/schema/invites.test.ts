/**
 * Invitations end to end: GraphQL → gateway → REST → emulator. Each field's upstream calls, the
 * links to users, the server's codes (BAD_REQUEST, UNAUTHORIZED_PRINCIPAL, INVITATION_FAILED with
 * its data), arguments refused before any call, and the feature-level gates of the newer options.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const IAGO = { as: demoUser('iago').email };
const HAMLET = { as: demoUser('hamlet').email };
const OTHELLO = { as: demoUser('othello').email };
const POLONIUS = { as: demoUser('polonius').email };

const SEND = `mutation ($emails: [String!]!, $channels: [Long!]!, $role: Role, $expires: Int) {
  sendInvitations(emails: $emails, channelIds: $channels, role: $role, expiresInMinutes: $expires) {
    emails invitations { id zulipId email role expiresAt invitedBy { fullName } }
  }
}`;
const LIST = '{ invitations { __typename zulipId invitedById role ... on EmailInvitation { email } ... on InvitationLink { url } } }';

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  return { h, store: h.emulator.store, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

type Sent = { sendInvitations: { emails: string[]; invitations: { id: string; zulipId: number; email: string; role: string; expiresAt: number | null; invitedBy: { fullName: string } }[] } };

describe('email invitations', () => {
  it('sends invitations in one call and answers the new ones, linked to their creator, from one more', async () => {
    const { h, calls, store } = harness();
    const general = h.channelId('general');
    const sent = await h.gql<Sent>(SEND, { emails: ['ann@example.com', ' bob@example.com'], channels: [general], expires: null }, HAMLET);
    expect(sent.errors).toBeUndefined();
    expect(sent.data!.sendInvitations.emails).toEqual(['ann@example.com', 'bob@example.com']);
    expect(sent.data!.sendInvitations.invitations.map((i) => [i.email, i.role, i.expiresAt, i.invitedBy.fullName])).toEqual([
      ['ann@example.com', 'MEMBER', null, 'King Hamlet'],
      ['bob@example.com', 'MEMBER', null, 'King Hamlet'],
    ]);
    // The creator comes through the users loader: one batched call for both invitations.
    expect(calls()).toEqual(['POST invites', 'GET invites', 'GET users']);
    const [ann] = sent.data!.sendInvitations.invitations;
    expect(ann!.id).toBe(encodeGlobalID('EmailInvitation', ann!.zulipId));
    expect([...store.invites.email.values()].map((i) => [i.email, i.stream_ids, i.expiry_date])).toEqual([
      ['ann@example.com', [general], null],
      ['bob@example.com', [general], null],
    ]);
  });

  it('lists what the caller manages in one call, and resends and revokes in one call each', async () => {
    const { h, calls, store } = harness();
    await h.gql(SEND, { emails: ['ann@example.com'], channels: [h.channelId('general')] }, HAMLET);
    const id = [...store.invites.email.keys()][0]!;
    h.resetUpstreamRequests();
    const listed = await h.gql(LIST, {}, IAGO);
    expect(listed.data).toEqual({ invitations: [{ __typename: 'EmailInvitation', zulipId: id, invitedById: h.userId('hamlet'), role: 'MEMBER', email: 'ann@example.com' }] });
    expect(calls()).toEqual(['GET invites']);
    expect((await h.gql(LIST, {}, OTHELLO)).data).toEqual({ invitations: [] });
    h.resetUpstreamRequests();
    const resent = await h.gql('mutation ($id: Long!) { resendEmailInvitation(id: $id) { zulipId } }', { id }, HAMLET);
    expect(resent.data).toEqual({ resendEmailInvitation: { zulipId: id } });
    const revoked = await h.gql('mutation ($id: Long!) { revokeEmailInvitation(id: $id) { deletedId zulipId } }', { id }, IAGO);
    expect(revoked.data).toEqual({ revokeEmailInvitation: { deletedId: encodeGlobalID('EmailInvitation', id), zulipId: id } });
    expect(calls()).toEqual([`POST invites/${id}/resend`, `DELETE invites/${id}`]);
    expect(store.invites.email.size).toBe(0);
  });

  it('passes on the server\u2019s codes: permission, owner rule, unknown invitation, INVITATION_FAILED with its data', async () => {
    const { h } = harness();
    const general = h.channelId('general');
    const guest = await h.gql(SEND, { emails: ['a@example.com'], channels: [general] }, POLONIUS);
    expect(guest.errors?.[0]).toMatchObject({ message: 'Not allowed for guest users', extensions: { code: 'BAD_REQUEST', route: 'send-invites' } });
    const moderator = await h.gql(SEND, { emails: ['a@example.com'], channels: [general], role: 'MODERATOR' }, HAMLET);
    expect(moderator.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'BAD_REQUEST' } });
    const owner = await h.gql(SEND, { emails: ['a@example.com'], channels: [general], role: 'OWNER' }, IAGO);
    expect(owner.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHORIZED_PRINCIPAL' });
    const skipped = await h.gql(SEND, { emails: ['new@example.com', 'othello@zulip.example.com'], channels: [general] }, HAMLET);
    expect(skipped.errors?.[0]?.extensions).toMatchObject({
      code: 'INVITATION_FAILED',
      errors: [['othello@zulip.example.com', 'Already has an account.', false]],
      sent_invitations: true,
    });
    const unknown = await h.gql('mutation { revokeEmailInvitation(id: 999) { zulipId } }', {}, HAMLET);
    expect(unknown.errors?.[0]).toMatchObject({ message: 'No such invitation', extensions: { code: 'BAD_REQUEST', route: 'revoke-email-invite' } });
  });

  it('refuses bad addresses and lifetimes before any upstream call', async () => {
    const { h } = harness();
    for (const [variables, argument] of [
      [{ emails: [], channels: [] }, 'emails'],
      [{ emails: ['a@example.com, b@example.com'], channels: [] }, 'emails'],
      [{ emails: [' '], channels: [] }, 'emails'],
      [{ emails: ['a@example.com'], channels: [], expires: 0 }, 'expiresInMinutes'],
    ] as const) {
      const { errors } = await h.gql(SEND, variables, HAMLET);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('invitation links', () => {
  it('creates a link on the server\u2019s origin in one call, lists it, and revokes it in one call', async () => {
    const { h, calls, store } = harness();
    const created = await h.gql<{ createInvitationLink: { url: string; invitation: { zulipId: number; role: string; url: string } } }>(
      'mutation { createInvitationLink(role: GUEST, expiresInMinutes: 60) { url invitation { zulipId role url } } }',
      {},
      IAGO,
    );
    expect(created.errors).toBeUndefined();
    const { url, invitation } = created.data!.createInvitationLink;
    expect(url).toMatch(/\/join\/[a-z0-9]{24}\/$/);
    expect(invitation).toMatchObject({ role: 'GUEST', url });
    expect(calls()).toEqual(['POST invites/multiuse', 'GET invites']);
    h.resetUpstreamRequests();
    const revoked = await h.gql('mutation ($id: Long!) { revokeInvitationLink(id: $id) { deletedId } }', { id: invitation.zulipId }, IAGO);
    expect(revoked.data).toEqual({ revokeInvitationLink: { deletedId: encodeGlobalID('InvitationLink', invitation.zulipId) } });
    expect(calls()).toEqual([`DELETE invites/multiuse/${invitation.zulipId}`]);
    const again = await h.gql('mutation ($id: Long!) { revokeInvitationLink(id: $id) { deletedId } }', { id: invitation.zulipId }, IAGO);
    expect(again.errors?.[0]).toMatchObject({ message: 'Invitation has already been revoked', extensions: { code: 'BAD_REQUEST', route: 'revoke-invite-link' } });
    expect(store.invites.link.get(invitation.zulipId)?.revoked).toBe(true);
  });

  it('passes on "Insufficient permission" to a member by default', async () => {
    const { h } = harness();
    const { errors } = await h.gql('mutation { createInvitationLink { url } }', {}, HAMLET);
    expect(errors?.[0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST', route: 'create-invite-link' } });
  });
});

describe('feature levels', () => {
  it('answers UNSUPPORTED_BY_SERVER for each newer option below its level, before the invitation call', async () => {
    const { h, calls } = harness({ emulatorSettings: { featureLevel: 260 } });
    for (const [mutation, required] of [
      ['sendInvitations(emails: ["a@example.com"], channelIds: [], includeRealmDefaultChannels: true) { emails }', 261],
      ['sendInvitations(emails: ["a@example.com"], channelIds: [], notifyReferrerOnJoin: false) { emails }', 267],
      ['createInvitationLink(groupIds: [1]) { url }', 322],
      ['createInvitationLink(welcomeMessageCustomText: "Hi") { url }', 416],
    ] as const) {
      const { errors } = await h.gql(`mutation { ${mutation} }`, {}, IAGO);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: required, featureLevel: 260 });
    }
    expect(calls()).toEqual(['GET server_settings']);
  });

  it('sends them at their level', async () => {
    const { h, store } = harness({ emulatorSettings: { featureLevel: 416 } });
    const sent = await h.gql(
      'mutation ($c: Long!) { sendInvitations(emails: ["a@example.com"], channelIds: [$c], includeRealmDefaultChannels: true, notifyReferrerOnJoin: false, welcomeMessageCustomText: "") { emails } }',
      { c: h.channelId('general') },
      IAGO,
    );
    expect(sent.errors).toBeUndefined();
    expect([...store.invites.email.values()][0]).toMatchObject({ include_realm_default_subscriptions: true, notify_referrer_on_join: false, welcome_message_custom_text: '' });
  });
});
