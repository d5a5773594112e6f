/**
 * Organization-wide administration end to end: GraphQL → gateway → REST → emulator. The Welcome
 * Bot test in one upstream call, linked to the direct message it sent; Zulip's refusal of a member
 * with its code, bad input refused before any call, and UNSUPPORTED_BY_SERVER below level 416.
 * The defaults of new users' settings the same way (one call; the defaults when selected).
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { setupHarness } from '../../helpers/harness.js';

const IAGO = { as: demoUser('iago').email };
const HAMLET = { as: demoUser('hamlet').email };
const FL = featureLevels.testWelcomeBotCustomMessage;

function harness(featureLevel: number = FL) {
  const h = setupHarness({ emulatorSettings: { featureLevel } });
  return { h, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

describe('testWelcomeBotCustomMessage', () => {
  it('has the Welcome Bot send the administrator the message, in one upstream call', async () => {
    const { h, calls } = harness();
    const { data, errors } = await h.gql<{ testWelcomeBotCustomMessage: { messageId: number } }>(
      'mutation { testWelcomeBotCustomMessage(text: "Read the **rules**.") { messageId } }',
      {},
      IAGO,
    );
    expect(errors).toBeUndefined();
    const id = data!.testWelcomeBotCustomMessage.messageId;
    expect(h.emulator.store.messages.get(id)).toMatchObject({ type: 'private', content: expect.stringMatching(/Read the \*\*rules\*\*\.$/) });
    expect(calls()).toEqual(['GET server_settings', 'POST realm/test_welcome_bot_custom_message']);
    h.resetUpstreamRequests();
    const linked = await h.gql('mutation { testWelcomeBotCustomMessage(text: "Hi") { message { type senderFullName content } } }', {}, IAGO);
    expect(linked.data).toEqual({ testWelcomeBotCustomMessage: { message: { type: 'DIRECT', senderFullName: 'Welcome Bot', content: expect.stringMatching(/<p>Hi<\/p>$/) } } });
    // The message is fetched only because it was selected.
    expect(calls()).toEqual(['POST realm/test_welcome_bot_custom_message', 'GET messages']);
  });

  it('keeps Zulip\u2019s refusal of a member, and refuses empty or over-long text before any call', async () => {
    const { h, calls } = harness();
    const member = await h.gql('mutation { testWelcomeBotCustomMessage(text: "Hi") { messageId } }', {}, HAMLET);
    expect(member.errors?.[0]).toMatchObject({
      message: 'Must be an organization administrator',
      extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'test-welcome-bot-custom-message' },
    });
    h.resetUpstreamRequests();
    for (const text of ['', 'x'.repeat(8001)]) {
      const { errors } = await h.gql('mutation ($t: String!) { testWelcomeBotCustomMessage(text: $t) { messageId } }', { t: text }, IAGO);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'text' });
    }
    expect(calls()).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 416, before calling the endpoint', async () => {
    const { h, calls } = harness(FL - 1);
    const { errors } = await h.gql('mutation { testWelcomeBotCustomMessage(text: "Hi") { messageId } }', {}, IAGO);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: FL, featureLevel: FL - 1 });
    expect(calls()).toEqual(['GET server_settings']);
  });
});

describe('updateRealmUserSettingsDefaults', () => {
  it('changes the defaults in one upstream call, and reads them back only when selected', async () => {
    const { h, calls } = harness();
    const { data, errors } = await h.gql(
      'mutation { updateRealmUserSettingsDefaults(input: { colorScheme: DARK, enterSends: true }) { ignoredParametersUnsupported } }',
      {},
      IAGO,
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ updateRealmUserSettingsDefaults: { ignoredParametersUnsupported: [] } });
    expect(calls()).toEqual(['GET server_settings', 'PATCH realm/user_settings_defaults']);
    expect(Object.fromEntries(h.emulator.store.realmUserSettingsDefaults)).toEqual({ color_scheme: 2, enter_sends: true });
    h.resetUpstreamRequests();
    const read = await h.gql(
      'mutation { updateRealmUserSettingsDefaults(input: { emojiset: TEXT }) { defaults { colorScheme emojiset enterSends timezone } } }',
      {},
      IAGO,
    );
    expect(read.data).toEqual({ updateRealmUserSettingsDefaults: { defaults: { colorScheme: 'DARK', emojiset: 'TEXT', enterSends: true, timezone: null } } });
    expect(calls()).toEqual(['PATCH realm/user_settings_defaults', 'POST register', 'DELETE events']);
  });

  it('keeps Zulip\u2019s refusal of a member, refuses an empty change before any call, and is UNSUPPORTED_BY_SERVER below level 96', async () => {
    const { h, calls } = harness();
    const member = await h.gql('mutation { updateRealmUserSettingsDefaults(input: { enterSends: true }) { ignoredParametersUnsupported } }', {}, HAMLET);
    expect(member.errors?.[0]).toMatchObject({
      message: 'Must be an organization administrator',
      extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'update-realm-user-settings-defaults' },
    });
    h.resetUpstreamRequests();
    const empty = await h.gql('mutation { updateRealmUserSettingsDefaults(input: {}) { ignoredParametersUnsupported } }', {}, IAGO);
    expect(empty.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(calls()).toEqual([]);
    const level = featureLevels.realmUserSettingsDefaults;
    const old = harness(level - 1);
    const { errors } = await old.h.gql('mutation { updateRealmUserSettingsDefaults(input: { enterSends: true }) { ignoredParametersUnsupported } }', {}, IAGO);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: level, featureLevel: level - 1 });
    expect(old.calls()).toEqual(['GET server_settings']);
  });

  it('offers only the settings Zulip has defaults for', async () => {
    const { h } = harness();
    const { data } = await h.gql<{ __type: { inputFields: { name: string }[] } }>('{ __type(name: "RealmUserSettingsDefaultsInput") { inputFields { name } } }', {}, IAGO);
    const names = data!.__type.inputFields.map((f) => f.name);
    expect(names).toContain('colorScheme');
    expect(names).not.toContain('timezone');
    expect(names).not.toContain('defaultLanguage');
  });
});
