/**
 * Subscriptions end to end: GraphQL → gateway → REST → emulator. The `subscriptions` query,
 * `Channel.subscription` (one upstream request for any number of channels), and the `subscribe`,
 * `unsubscribe` (with its ChannelDoesNotExistError result) and `updateSubscriptionSettings` mutations.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createHarness } from '../../helpers/harness.js';

const email = (login: string) => demoUser(login).email;

const SUBSCRIPTION_FIELDS = /* GraphQL */ `
  channelId channel { zulipId name isPrivate } color isMuted inHomeView pinToTop
  desktopNotifications emailNotifications pushNotifications audibleNotifications wildcardMentionsNotify
`;

interface SubscriptionData {
  channelId: number;
  channel: { name: string };
  [key: string]: unknown;
}

describe('subscriptions query and Channel.subscription', () => {
  const h = createHarness();
  afterAll(() => h.close());

  it('lists the caller\u2019s subscriptions with their settings, from one upstream request', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ subscriptions: SubscriptionData[] }>(`{ subscriptions { ${SUBSCRIPTION_FIELDS} subscriberIds subscribers { zulipId } } }`, {}, { as: email('hamlet') });
    expect(errors).toBeUndefined();
    expect(data!.subscriptions.map((s) => s.channel.name)).toEqual(['announce', 'design', 'engineering', 'general']);
    const general = h.emulator.store.subscription(h.channelId('general'), h.userId('hamlet'))!;
    expect(data!.subscriptions.find((s) => s.channel.name === 'general')).toEqual({
      channelId: h.channelId('general'),
      channel: { zulipId: h.channelId('general'), name: 'general', isPrivate: false },
      color: general.color,
      isMuted: false,
      inHomeView: true,
      pinToTop: false,
      desktopNotifications: null,
      emailNotifications: null,
      pushNotifications: null,
      audibleNotifications: null,
      wildcardMentionsNotify: null,
      subscriberIds: null,
      subscribers: null,
    });
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['users/me/subscriptions']);
  });

  it('answers subscription of a channel reached through a subscription without another request', async () => {
    h.resetUpstreamRequests();
    const { data } = await h.gql<{ subscriptions: { channel: { subscription: { color: string } } }[] }>(
      '{ subscriptions { color channel { subscription { color } } } }',
      {},
      { as: email('hamlet') },
    );
    expect(data!.subscriptions.every((s) => s.channel.subscription.color.startsWith('#'))).toBe(true);
    expect(h.upstreamRequests).toHaveLength(1);
  });

  it('fills in subscribers with includeSubscribers', async () => {
    const { data } = await h.gql<{ subscriptions: { channel: { name: string }; subscriberIds: number[]; subscribers: { fullName: string }[] }[] }>(
      '{ subscriptions(includeSubscribers: true) { channel { name } subscriberIds subscribers { fullName } } }',
      {},
      { as: email('hamlet') },
    );
    const engineering = data!.subscriptions.find((s) => s.channel.name === 'engineering')!;
    expect(engineering.subscriberIds).toEqual(['desdemona', 'iago', 'shiva', 'hamlet'].map((l) => h.userId(l)).sort((a, b) => a - b));
    expect(engineering.subscribers.map((u) => u.fullName).sort()).toEqual(['Desdemona', 'Iago', 'King Hamlet', 'Shiva']);
  });

  it('resolves Channel.subscription for every channel with one extra upstream request, null when not subscribed', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ channels: { name: string; subscription: { color: string } | null }[] }>(
      '{ channels(includeAll: true) { name subscription { color } } }',
      {},
      { as: email('cordelia') },
    );
    expect(errors).toBeUndefined();
    expect(Object.fromEntries(data!.channels.map((c) => [c.name, c.subscription !== null]))).toEqual({ announce: true, design: true, general: true });
    const byPath = h.upstreamRequests.map((r) => r.path).filter((p) => p !== 'server_settings');
    expect(byPath.sort()).toEqual(['streams', 'users/me/subscriptions']);
    const hidden = await h.gql<{ channel: { subscription: null } }>('query($id: Long!) { channel(id: $id) { subscription { color } } }', { id: h.channelId('moderation requests') }, { as: email('othello') });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const notSubscribed = await h.gql<{ channel: { subscription: null } }>('query($id: Long!) { channel(id: $id) { subscription { color } } }', { id: h.channelId('announce') }, { as: email('polonius') });
    expect(notSubscribed.data).toEqual({ channel: { subscription: null } });
  });
});

describe('subscribe', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const SUBSCRIBE = /* GraphQL */ `
    mutation($channels: [SubscribeChannelInput!]!, $principals: [Long!], $emails: [String!], $fatal: Boolean,
             $inviteOnly: Boolean, $canAdminister: GroupSettingValueInput, $retention: MessageRetentionInput) {
      subscribe(channels: $channels, principals: $principals, principalEmails: $emails, authorizationErrorsFatal: $fatal,
                inviteOnly: $inviteOnly, canAdministerChannelGroup: $canAdminister, messageRetentionDays: $retention) {
        subscribed { userId email user { fullName } channelNames }
        alreadySubscribed { userId channelNames }
        unauthorized
      }
    }`;

  it('creates a channel and subscribes the caller', async () => {
    const { data, errors } = await h.gql<{ subscribe: Record<string, unknown> }>(
      SUBSCRIBE,
      { channels: [{ name: 'plays', description: 'Scripts', color: '#123456' }], inviteOnly: true, canAdminister: { directMembers: [h.userId('hamlet'), h.userId('iago')] } },
      { as: email('hamlet') },
    );
    expect(errors).toBeUndefined();
    expect(data!.subscribe).toEqual({
      subscribed: [{ userId: h.userId('hamlet'), email: null, user: { fullName: 'King Hamlet' }, channelNames: ['plays'] }],
      alreadySubscribed: [],
      unauthorized: [],
    });
    expect(h.emulator.store.channelByName('plays')).toMatchObject({
      description: 'Scripts',
      invite_only: true,
      can_administer_channel_group: { direct_members: [h.userId('hamlet'), h.userId('iago')].sort((a, b) => a - b), direct_subgroups: [] },
    });
  });

  it('subscribes others by ID or email, and reports those already subscribed', async () => {
    const byId = await h.gql<{ subscribe: { subscribed: { userId: number; channelNames: string[] }[]; alreadySubscribed: { userId: number }[] } }>(
      SUBSCRIBE,
      { channels: [{ name: 'plays' }], principals: [h.userId('cordelia'), h.userId('hamlet')] },
      { as: email('hamlet') },
    );
    expect(byId.errors).toBeUndefined();
    expect(byId.data!.subscribe.subscribed).toEqual([{ userId: h.userId('cordelia'), email: null, user: { fullName: expect.any(String) }, channelNames: ['plays'] }]);
    expect(byId.data!.subscribe.alreadySubscribed).toEqual([{ userId: h.userId('hamlet'), channelNames: ['plays'] }]);
    const byEmail = await h.gql<{ subscribe: { subscribed: { userId: number }[] } }>(SUBSCRIBE, { channels: [{ name: 'plays' }], emails: [email('othello')] }, { as: email('hamlet') });
    expect(byEmail.data!.subscribe.subscribed.map((s) => s.userId)).toEqual([h.userId('othello')]);
  });

  it('lists channels the caller may not join when authorization errors are not fatal, and fails otherwise', async () => {
    const lenient = await h.gql<{ subscribe: { unauthorized: string[]; subscribed: unknown[] } }>(SUBSCRIBE, { channels: [{ name: 'engineering' }], fatal: false }, { as: email('othello') });
    expect(lenient.data!.subscribe).toMatchObject({ unauthorized: ['engineering'], subscribed: [] });
    const strict = await h.gql(SUBSCRIBE, { channels: [{ name: 'engineering' }] }, { as: email('othello') });
    expect(strict.data).toBeNull();
    expect(strict.errors?.[0]).toMatchObject({ message: 'Unable to access channel (engineering).', extensions: { code: 'BAD_REQUEST', route: 'subscribe' } });
  });

  it('maps other refusals to GraphQL errors with the server code', async () => {
    const cases: [Record<string, unknown>, string, string, number][] = [
      [{ channels: [{ name: 'general' }] }, 'polonius', 'Not allowed for guest users', 400],
      [{ channels: [{ name: 'plays2' }], principals: [9999] }, 'hamlet', 'No such user', 400],
      [{ channels: [{ name: 'kept' }], retention: { days: 5 } }, 'iago', 'Must be an organization owner', 400],
    ];
    for (const [vars, login, message, httpStatus] of cases) {
      const { errors } = await h.gql(SUBSCRIBE, vars, { as: email(login) });
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', httpStatus } });
    }
  });

  it('refuses principals and principalEmails together before calling upstream', async () => {
    h.resetUpstreamRequests();
    const { errors } = await h.gql(SUBSCRIBE, { channels: [{ name: 'x' }], principals: [1], emails: ['a@b.c'] }, { as: email('hamlet') });
    expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('subscribe on a server older than feature level 9', () => {
  const h = createHarness({ emulatorSettings: { featureLevel: 8 } });
  afterAll(() => h.close());

  it('refuses integer principals with UNSUPPORTED_BY_SERVER but accepts emails', async () => {
    const { errors } = await h.gql('mutation($p: [Long!]) { subscribe(channels: [{name: "general"}], principals: $p) { unauthorized } }', { p: [h.userId('othello')] }, { as: email('iago') });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 9, featureLevel: 8 });
    const byEmail = await h.gql<{ subscribe: { subscribed: { email: string; userId: number | null }[] } }>(
      'mutation($e: [String!]) { subscribe(channels: [{name: "plays"}], principalEmails: $e) { subscribed { email userId } } }',
      { e: [email('othello')] },
      { as: email('iago') },
    );
    expect(byEmail.errors).toBeUndefined();
    // Before feature level 289 the result is keyed by email.
    expect(byEmail.data!.subscribe.subscribed).toEqual([{ email: email('othello'), userId: null }]);
  });
});

describe('unsubscribe', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const UNSUBSCRIBE = /* GraphQL */ `
    mutation($names: [String!]!, $principals: [Long!]) {
      unsubscribe(channelNames: $names, principals: $principals) {
        __typename
        ... on UnsubscribePayload { removed notRemoved }
        ... on ChannelDoesNotExistError { code message channelName }
      }
    }`;

  it('returns what was removed and what was not', async () => {
    const { data, errors } = await h.gql<{ unsubscribe: Record<string, unknown> }>(UNSUBSCRIBE, { names: ['design', 'engineering'] }, { as: email('cordelia') });
    expect(errors).toBeUndefined();
    expect(data!.unsubscribe).toEqual({ __typename: 'UnsubscribePayload', removed: ['design'], notRemoved: ['engineering'] });
    expect(h.emulator.store.isSubscribed(h.userId('cordelia'), h.channelId('design'))).toBe(false);
  });

  it('returns ChannelDoesNotExistError with the channel name for an unknown channel', async () => {
    const { data, errors } = await h.gql<{ unsubscribe: Record<string, unknown> }>(UNSUBSCRIBE, { names: ['general', 'atlantis'] }, { as: email('othello') });
    expect(errors).toBeUndefined();
    expect(data!.unsubscribe).toEqual({
      __typename: 'ChannelDoesNotExistError',
      code: 'STREAM_DOES_NOT_EXIST',
      message: "Channel 'atlantis' does not exist",
      channelName: 'atlantis',
    });
    expect(h.emulator.store.isSubscribed(h.userId('othello'), h.channelId('general'))).toBe(true);
  });

  it('lets administrators remove others; refuses members with a GraphQL error', async () => {
    const refused = await h.gql(UNSUBSCRIBE, { names: ['general'], principals: [h.userId('othello')] }, { as: email('hamlet') });
    expect(refused.data).toBeNull();
    expect(refused.errors?.[0]).toMatchObject({ message: 'Insufficient permission', extensions: { code: 'BAD_REQUEST', route: 'unsubscribe' } });
    const removed = await h.gql<{ unsubscribe: Record<string, unknown> }>(UNSUBSCRIBE, { names: ['general'], principals: [h.userId('othello')] }, { as: email('iago') });
    expect(removed.data!.unsubscribe).toEqual({ __typename: 'UnsubscribePayload', removed: ['general'], notRemoved: [] });
    const unknownUser = await h.gql(UNSUBSCRIBE, { names: ['general'], principals: [9999] }, { as: email('iago') });
    expect(unknownUser.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });
});

describe('updateSubscriptionSettings', () => {
  const h = createHarness();
  afterAll(() => h.close());

  const UPDATE = /* GraphQL */ `
    mutation($changes: [SubscriptionSettingsInput!]!) {
      updateSubscriptionSettings(changes: $changes) { channel { name } color isMuted pinToTop desktopNotifications wildcardMentionsNotify }
    }`;

  it('changes several settings of several channels in one upstream call and returns them', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ updateSubscriptionSettings: Record<string, unknown>[] }>(
      UPDATE,
      {
        changes: [
          { channelId: h.channelId('design'), color: '#aabbcc', isMuted: true },
          { channelId: h.channelId('general'), pinToTop: true, desktopNotifications: false, wildcardMentionsNotify: true },
        ],
      },
      { as: email('hamlet') },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateSubscriptionSettings).toEqual([
      { channel: { name: 'design' }, color: '#aabbcc', isMuted: true, pinToTop: false, desktopNotifications: null, wildcardMentionsNotify: null },
      { channel: { name: 'general' }, color: expect.any(String), isMuted: false, pinToTop: true, desktopNotifications: false, wildcardMentionsNotify: true },
    ]);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET users/me/subscriptions', 'POST users/me/subscriptions/properties']);
    // What it returned is what the server now has.
    const again = await h.gql<{ updateSubscriptionSettings: Record<string, unknown>[] }>(UPDATE, { changes: [{ channelId: h.channelId('design'), pinToTop: false }] }, { as: email('hamlet') });
    expect(again.data!.updateSubscriptionSettings[0]).toMatchObject({ color: '#aabbcc', isMuted: true });
  });

  it('refuses an empty change before calling upstream, and maps upstream refusals', async () => {
    const empty = await h.gql(UPDATE, { changes: [{ channelId: h.channelId('design') }] }, { as: email('hamlet') });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // The server would apply the first change before refusing the second: refused before any change.
    h.resetUpstreamRequests();
    const before = h.emulator.store.subscription(h.channelId('general'), h.userId('polonius'))!.pin_to_top;
    const notSubscribed = await h.gql(
      UPDATE,
      { changes: [{ channelId: h.channelId('general'), pinToTop: !before }, { channelId: h.channelId('announce'), pinToTop: true }] },
      { as: email('polonius') },
    );
    expect(notSubscribed.errors?.[0]).toMatchObject({ message: `Not subscribed to channel ID ${h.channelId('announce')}`, extensions: { code: 'BAD_USER_INPUT' } });
    expect(h.upstreamRequests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(h.emulator.store.subscription(h.channelId('general'), h.userId('polonius'))!.pin_to_top).toBe(before);
    const badColor = await h.gql(UPDATE, { changes: [{ channelId: h.channelId('design'), color: 'blue' }] }, { as: email('hamlet') });
    expect(badColor.errors?.[0]).toMatchObject({ message: 'color is not a valid hex color code', extensions: { code: 'BAD_REQUEST' } });
  });
});
