/**
 * Organization-wide administration without a resource of its own: `testWelcomeBotCustomMessage`
 * (feature level 416) previews the Welcome Bot's custom message, sent to the administrator asking
 * as a direct message. https://zulip.com/api/test-welcome-bot-custom-message
 *
 * `updateRealmUserSettingsDefaults` (feature level 96) changes the settings new users start with,
 * as `updateSettings` changes the caller's own (the same `Settings` type, the input limited to the
 * settings Zulip has defaults for). https://zulip.com/api/update-realm-user-settings-defaults
 */
import * as realmOps from '../../zulip/generated/realm.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { UserSettings } from '../../zulip/model/settings.js';
import { testWelcomeBotCustomMessage, updateRealmUserSettingsDefaults } from '../../zulip/routes/realm.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { messageOrNull } from './messages/history.js';
import { MessageRef } from './messages/message.js';
import { camelCase, fetchInitialState, SETTINGS, settingInputFields, SettingsRef } from './settings.js';

/** Zulip's limit on the custom text, in Unicode code points. */
const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

const WelcomeBotTestMessageRef = builder.objectRef<{ messageId: number }>('WelcomeBotTestMessage').implement({
  description: 'The Welcome Bot\u2019s custom message, as sent to the administrator who tested it.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The ID of the direct message the Welcome Bot sent.', resolve: (r) => r.messageId }),
    message: t.field({
      type: MessageRef,
      nullable: true,
      description: 'The direct message (fetched only when selected); null if deleted in the meantime.',
      resolve: (r, _args, ctx) => messageOrNull(ctx, r.messageId),
    }),
  }),
});

builder.mutationField('testWelcomeBotCustomMessage', (t) =>
  t.field({
    extensions: reaches('test-welcome-bot-custom-message'),
    type: WelcomeBotTestMessageRef,
    description:
      'Has the Welcome Bot send the caller, as a direct message, the custom message new users would get with this text. ' +
      'Organization administrators only (else UNAUTHORIZED_PRINCIPAL). Feature level 416.',
    args: {
      text: t.arg.string({ required: true, description: 'The custom text, in Zulip-flavored Markdown (1 to 8000 characters).' }),
    },
    resolve: async (_root, args, ctx) => {
      const length = [...args.text].length;
      if (length === 0 || length > MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH) {
        throw badInput(`testWelcomeBotCustomMessage: \`text\` must be 1 to ${MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH} characters.`, { argument: 'text' });
      }
      await requireFeatureLevel(ctx, featureLevels.testWelcomeBotCustomMessage, 'Testing the Welcome Bot\u2019s custom message');
      const { message_id } = await testWelcomeBotCustomMessage(ctx.connection, { welcomeMessageCustomText: args.text });
      return { messageId: message_id };
    },
  }),
);

// ---- defaults of new users' settings -------------------------------------------------------------

/** The settings Zulip keeps an organization default of: those its endpoint takes. */
const DEFAULT_SETTINGS = SETTINGS.filter(([, wire]) => realmOps.operations.updateRealmUserSettingsDefaults.parameters.some((p) => p.name === wire));

const RealmUserSettingsDefaultsInput = builder.inputType('RealmUserSettingsDefaultsInput', {
  description: 'Changes to the settings new users start with. Leave out (or set to null) what should stay as it is.',
  fields: (t) => settingInputFields(t, DEFAULT_SETTINGS),
});

interface RealmUserSettingsDefaultsPayload {
  ignored: string[];
}

/** The defaults as the server now holds them, from the register state (register and delete a queue). */
async function loadDefaults(ctx: Context): Promise<UserSettings | null> {
  const state = await fetchInitialState(ctx, { fetchEventTypes: ['realm_user_settings_defaults'] });
  return (state.realm_user_settings_defaults as UserSettings | undefined) ?? null;
}

const RealmUserSettingsDefaultsPayloadRef = builder.objectRef<RealmUserSettingsDefaultsPayload>('RealmUserSettingsDefaultsPayload').implement({
  description: 'The outcome of updateRealmUserSettingsDefaults.',
  fields: (t) => ({
    defaults: t.field({
      type: SettingsRef,
      nullable: true,
      description:
        'The defaults after the change, as the server now holds them (fetched only when selected: two more upstream ' +
        'requests, registering and deleting a queue). Fields Zulip has no default for are null.',
      resolve: (_p, _args, ctx) => loadDefaults(ctx),
    }),
    ignoredParametersUnsupported: t.stringList({
      description: 'Input fields the server did not apply because it does not know them (its ignored_parameters_unsupported).',
      resolve: (p) => p.ignored,
    }),
  }),
});

builder.mutationField('updateRealmUserSettingsDefaults', (t) =>
  t.field({
    extensions: reaches('update-realm-user-settings-defaults'),
    type: RealmUserSettingsDefaultsPayloadRef,
    description:
      'Changes the settings new users of the organization start with. Organization administrators only (else ' +
      'UNAUTHORIZED_PRINCIPAL); every value is checked before any is applied (BAD_REQUEST). Feature level 96.',
    args: { input: t.arg({ type: RealmUserSettingsDefaultsInput, required: true, description: 'What to change.' }) },
    resolve: async (_root, args, ctx) => {
      const input = args.input as Record<string, unknown>;
      const params: Record<string, unknown> = {};
      for (const [name, wire] of DEFAULT_SETTINGS) if (input[name] != null) params[camelCase(wire)] = input[name];
      if (Object.keys(params).length === 0) throw badInput('updateRealmUserSettingsDefaults: give at least one change.');
      await requireFeatureLevel(ctx, featureLevels.realmUserSettingsDefaults, 'Changing the defaults of new users\u2019 settings');
      const result = await updateRealmUserSettingsDefaults(ctx.connection, params as realmOps.UpdateRealmUserSettingsDefaultsParams);
      const names = new Map(DEFAULT_SETTINGS.map(([name, wire]) => [wire as string, name]));
      return { ignored: (result.ignored_parameters_unsupported ?? []).map((wire) => names.get(wire) ?? wire) };
    },
  }),
);
