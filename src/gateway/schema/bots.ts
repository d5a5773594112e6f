/**
 * Bot API keys: the `botApiKey` query (feature level 463) and the `regenerateBotApiKey` mutation,
 * for the bot's owner or an administrator. https://zulip.com/api/get-bot-api-key
 *
 * A key is a secret: it is the payload and nothing else carries it (logs record no results, the
 * connection's errors never hold a response body's key).
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import { getBotApiKey, regenerateBotApiKey } from '../../zulip/routes/bots.js';
import { builder } from '../builder.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { UserRef } from './users.js';

interface BotKey {
  botId: number;
  apiKey: string;
}

const BotApiKeyRef = builder.objectRef<BotKey>('BotApiKey').implement({
  description: 'A bot\u2019s API key. Send it as `Authorization: Basic base64(botEmail:apiKey)`.',
  fields: (t) => ({
    botId: t.field({ type: 'Long', description: 'The bot\u2019s user ID.', resolve: (k) => k.botId }),
    bot: t.field({ type: UserRef, description: 'The bot (through the user loader).', resolve: (k, _args, ctx) => ctx.loaders.user(k.botId) }),
    apiKey: t.exposeString('apiKey', { description: 'The API key: a secret, to be stored like a password.' }),
  }),
});

const ERRORS = 'An unknown bot is BAD_REQUEST "No such bot"; a caller who neither owns it nor administers is "Insufficient permission".';

builder.queryField('botApiKey', (t) =>
  t.field({
    extensions: reaches('get-bot-api-key'),
    type: BotApiKeyRef,
    description: `A bot\u2019s API key (its owner or an administrator; feature level ${featureLevels.getBotApiKey}). ${ERRORS}`,
    args: { botId: t.arg({ type: 'Long', required: true, description: 'The bot\u2019s user ID.' }) },
    resolve: async (_root, args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.getBotApiKey, 'Reading a bot\u2019s API key');
      const { api_key } = await getBotApiKey(ctx.connection, { botId: args.botId });
      return { botId: args.botId, apiKey: api_key };
    },
  }),
);

builder.mutationField('regenerateBotApiKey', (t) =>
  t.field({
    extensions: reaches('regenerate-bot-api-key'),
    type: BotApiKeyRef,
    description: `Replaces a bot\u2019s API key and answers the new one; the old key stops working. ${ERRORS}`,
    args: { botId: t.arg({ type: 'Long', required: true, description: 'The bot\u2019s user ID.' }) },
    resolve: async (_root, args, ctx) => {
      const { api_key } = await regenerateBotApiKey(ctx.connection, { botId: args.botId });
      return { botId: args.botId, apiKey: api_key };
    },
  }),
);
