/**
 * Settings end to end: `me { settings }` (read from the register state, queue deleted at once), the
 * enums, `updateSettings` with its ignored parameters (in the payload and the response extensions),
 * all-or-nothing server validation, account fields, and a server that predates the settings object.
 */
import { describe, expect, it } from 'vitest';
import { initialPassword } from '../../../src/emulator/routes/settings.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { setupHarness } from '../../helpers/harness.js';
import { scriptedFetch, success } from '../../helpers/scripted-fetch.js';

const HAMLET = demoUser('hamlet').email;

function harness() {
  const h = setupHarness();
  const hamlet = h.emulator.store.userByEmail(HAMLET)!;
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, hamlet, calls };
}

const ALL_FIELDS = /* GraphQL */ `
  twentyFourHourTime webChannelDefaultView starredMessageCounts receivesTypingNotifications
  webSuggestUpdateTimezone fluidLayoutWidth highContrastMode webFontSizePx webLineHeightPercent colorScheme
  enableDraftsSynchronization translateEmoticons displayEmojiReactionUsers defaultLanguage webHomeView
  webEscapeNavigatesToHomeView leftSideUserlist emojiset demoteInactiveChannels userListStyle
  webAnimateImagePreviews webChannelUnreadsCountDisplayPolicy hideAiFeatures timezone
  enableChannelDesktopNotifications enableChannelEmailNotifications enableChannelPushNotifications
  enableChannelAudibleNotifications notificationSound enableDesktopNotifications enableSounds
  emailNotificationsBatchingPeriodSeconds enableOfflineEmailNotifications enableOfflinePushNotifications
  enableOnlinePushNotifications enableFollowedTopicDesktopNotifications enableFollowedTopicEmailNotifications
  enableFollowedTopicPushNotifications enableFollowedTopicAudibleNotifications
  enableFollowedTopicWildcardMentionsNotify enableDigestEmails enableMarketingEmails enableLoginEmails
  messageContentInEmailNotifications dmContentInDesktopNotifications wildcardMentionsNotify
  automaticallyFollowTopicsWhereMentioned presenceEnabled enterSends sendDirectTypingNotifications
  sendChannelTypingNotifications sendReadReceipts availableNotificationSounds
`;

interface UpdateResult {
  updateSettings: { settings: Record<string, unknown>; ignoredParametersUnsupported: string[] };
}

/** Settings changed together by the update test; the response must echo them back. */
const CHANGES = {
  colorScheme: 'LIGHT',
  emojiset: 'TWITTER',
  webHomeView: 'RECENT_TOPICS',
  webChannelUnreadsCountDisplayPolicy: 'ALL_CHANNELS',
  demoteInactiveChannels: 'NEVER',
  enableChannelDesktopNotifications: true,
  timezone: 'Asia/Tokyo',
  defaultLanguage: 'de',
  webFontSizePx: 18,
  webAnimateImagePreviews: 'NEVER',
};

describe('me { settings }', () => {
  it('works next to the user record', async () => {
    const { h } = harness();
    const { data, errors } = await h.gql('{ me { user { fullName } settings { colorScheme } } }', {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ me: { user: { fullName: 'King Hamlet' }, settings: { colorScheme: 'AUTOMATIC' } } });
  });

  it('types every setting, reading the register state and deleting the queue at once', async () => {
    const { h, hamlet, calls } = harness();
    Object.assign(hamlet.settings, { color_scheme: 2, emojiset: 'google-blob', web_stream_unreads_count_display_policy: 3, user_list_style: 3 });
    hamlet.timezone = 'Europe/Paris';
    const { data, errors } = await h.gql<{ me: { settings: Record<string, unknown> } }>(`{ me { settings { ${ALL_FIELDS} } } }`, {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.me.settings).toEqual({
      twentyFourHourTime: false,
      webChannelDefaultView: 'TOP_TOPIC',
      starredMessageCounts: true,
      receivesTypingNotifications: true,
      webSuggestUpdateTimezone: true,
      fluidLayoutWidth: false,
      highContrastMode: false,
      webFontSizePx: 16,
      webLineHeightPercent: 140,
      colorScheme: 'DARK',
      enableDraftsSynchronization: true,
      translateEmoticons: false,
      displayEmojiReactionUsers: true,
      defaultLanguage: 'en',
      webHomeView: 'INBOX',
      webEscapeNavigatesToHomeView: true,
      leftSideUserlist: false,
      emojiset: 'GOOGLE_BLOB',
      demoteInactiveChannels: 'AUTOMATIC',
      userListStyle: 'WITH_AVATAR_AND_STATUS',
      webAnimateImagePreviews: 'ON_HOVER',
      webChannelUnreadsCountDisplayPolicy: 'NO_CHANNELS',
      hideAiFeatures: false,
      timezone: 'Europe/Paris',
      enableChannelDesktopNotifications: false,
      enableChannelEmailNotifications: false,
      enableChannelPushNotifications: false,
      enableChannelAudibleNotifications: false,
      notificationSound: 'zulip',
      enableDesktopNotifications: true,
      enableSounds: true,
      emailNotificationsBatchingPeriodSeconds: 120,
      enableOfflineEmailNotifications: true,
      enableOfflinePushNotifications: true,
      enableOnlinePushNotifications: true,
      enableFollowedTopicDesktopNotifications: true,
      enableFollowedTopicEmailNotifications: true,
      enableFollowedTopicPushNotifications: true,
      enableFollowedTopicAudibleNotifications: true,
      enableFollowedTopicWildcardMentionsNotify: true,
      enableDigestEmails: true,
      enableMarketingEmails: true,
      enableLoginEmails: true,
      messageContentInEmailNotifications: true,
      dmContentInDesktopNotifications: true,
      wildcardMentionsNotify: true,
      automaticallyFollowTopicsWhereMentioned: true,
      presenceEnabled: true,
      enterSends: false,
      sendDirectTypingNotifications: true,
      sendChannelTypingNotifications: true,
      sendReadReceipts: true,
      availableNotificationSounds: ['chime-bell', 'ding', 'zulip'],
    });
    expect(calls()).toEqual(['GET users/me', 'POST register', 'DELETE events']);
    expect(h.emulator.queues.size()).toBe(0);
  });

  it('gives null for a value the gateway does not know', async () => {
    const { h, hamlet } = harness();
    hamlet.settings.color_scheme = 9;
    const { data, errors } = await h.gql<{ me: { settings: { colorScheme: string | null; emojiset: string } } }>(
      '{ me { settings { colorScheme emojiset } } }',
      {},
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.me.settings).toEqual({ colorScheme: null, emojiset: 'GOOGLE' });
  });
});

describe('updateSettings', () => {
  it('applies typed changes and returns the settings the server now holds', async () => {
    const { h, hamlet, calls } = harness();
    const { data, errors, extensions } = await h.gql<UpdateResult>(
      `mutation($input: SettingsInput!) {
        updateSettings(input: $input) {
          settings { colorScheme emojiset webHomeView webChannelUnreadsCountDisplayPolicy demoteInactiveChannels
                     enableChannelDesktopNotifications timezone defaultLanguage webFontSizePx webAnimateImagePreviews }
          ignoredParametersUnsupported
        }
      }`,
      {
        input: CHANGES,
      },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateSettings).toEqual({
      settings: CHANGES,
      ignoredParametersUnsupported: [],
    });
    expect(hamlet.settings).toMatchObject({ color_scheme: 3, emojiset: 'twitter', enable_stream_desktop_notifications: true, web_stream_unreads_count_display_policy: 1 });
    expect(hamlet.timezone).toBe('Asia/Tokyo');
    expect(extensions).not.toHaveProperty('ignoredParametersUnsupported');
    expect(calls()).toEqual(['PATCH settings', 'POST register', 'DELETE events']);
  });

  it('reports unchanged parameters in the payload (input names) and in the extensions (wire names)', async () => {
    const { h } = harness();
    const { data, errors, extensions } = await h.gql<UpdateResult>(
      'mutation { updateSettings(input: { colorScheme: AUTOMATIC, enableChannelPushNotifications: false, fullName: "King Hamlet", leftSideUserlist: true }) { settings { leftSideUserlist } ignoredParametersUnsupported } }',
      {},
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.updateSettings).toEqual({
      settings: { leftSideUserlist: true },
      ignoredParametersUnsupported: ['fullName', 'colorScheme', 'enableChannelPushNotifications'],
    });
    expect(extensions?.ignoredParametersUnsupported).toEqual(['full_name', 'color_scheme', 'enable_stream_push_notifications']);
  });

  it('changes the name and password', async () => {
    const { h, hamlet } = harness();
    const { errors } = await h.gql(
      'mutation($old: String) { updateSettings(input: { fullName: "Prince Hamlet", oldPassword: $old, newPassword: "to-be-or-not" }) { ignoredParametersUnsupported } }',
      { old: initialPassword(HAMLET) },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(hamlet.full_name).toBe('Prince Hamlet');
    const { data } = await h.gql('{ me { user { fullName } } }', {}, { as: HAMLET });
    expect(data).toEqual({ me: { user: { fullName: 'Prince Hamlet' } } });
  });

  it('maps server validation errors, applying nothing', async () => {
    const { h, hamlet } = harness();
    const before = { ...hamlet.settings };
    const cases: [string, Record<string, unknown>][] = [
      ['BAD_REQUEST', { colorScheme: 'DARK', timezone: 'Mars/Olympus_Mons' }],
      ['BAD_REQUEST', { defaultLanguage: 'xx' }],
      ['BAD_REQUEST', { fullName: 'x'.repeat(101) }],
      ['BAD_REQUEST', { oldPassword: 'guess', newPassword: 'to-be-or-not' }],
      ['REQUEST_VARIABLE_MISSING', { newPassword: 'to-be-or-not' }],
      ['BAD_REQUEST', { email: 'not an address' }],
    ];
    for (const [code, input] of cases) {
      const { data, errors } = await h.gql('mutation($input: SettingsInput!) { updateSettings(input: $input) { ignoredParametersUnsupported } }', { input }, { as: HAMLET });
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({ path: ['updateSettings'], extensions: { code, httpStatus: 400, route: 'update-settings' } });
    }
    expect(hamlet.settings).toEqual(before);
    expect(hamlet.full_name).toBe('King Hamlet');
  });

  it('refuses an empty change and unknown enum values before any upstream call', async () => {
    const { h } = harness();
    const empty = await h.gql('mutation { updateSettings(input: {}) { ignoredParametersUnsupported } }', {}, { as: HAMLET });
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const badEnum = await h.gql('mutation { updateSettings(input: { colorScheme: PURPLE }) { ignoredParametersUnsupported } }', {}, { as: HAMLET });
    expect(badEnum.errors?.[0]?.message).toMatch(/PURPLE/);
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('settings from a server without the settings object (before feature level 89)', () => {
  it('reads the legacy top-level keys', async () => {
    const fetch = scriptedFetch([
      success({ user_id: 7, email: 'old@example.com', full_name: 'Old Timer' }),
      success({ queue_id: 'q1', last_event_id: -1, zulip_feature_level: 60, zulip_version: '4.0', color_scheme: 2, emojiset: 'text', enable_sounds: false, timezone: 'UTC' }),
      success({}),
    ]);
    const gateway = createGateway({ zulipUrl: 'http://old-settings.localhost', fetch, logging: false, defaultCredentials: { email: 'old@example.com', apiKey: 'k' } });
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { settings { colorScheme emojiset enableSounds timezone hideAiFeatures } } }' }),
    });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.me.settings).toEqual({ colorScheme: 'DARK', emojiset: 'TEXT', enableSounds: false, timezone: 'UTC', hideAiFeatures: null });
    expect(fetch.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET users/me', 'POST register', 'DELETE events']);
    expect(JSON.parse(fetch.requests[1]!.form.fetch_event_types!)).toEqual(['user_settings', 'update_display_settings', 'update_global_notifications']);
    expect(JSON.parse(fetch.requests[1]!.form.event_types!)).toEqual([]);
    expect(fetch.requests[2]!.form).toEqual({ queue_id: 'q1' });
    await gateway.dispose();
  });
});
