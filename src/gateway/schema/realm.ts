/**
 * Organization-wide administration without a resource of its own: `testWelcomeBotCustomMessage`
 * (feature level 416) previews the Welcome Bot's custom message, sent to the administrator asking
 * as a direct message. https://zulip.com/api/test-welcome-bot-custom-message
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import { testWelcomeBotCustomMessage } from '../../zulip/routes/realm.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../feature-level.js';
import { reaches } from '../zulip-operations.js';
import { messageOrNull } from './messages/history.js';
import { MessageRef } from './messages/message.js';

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
