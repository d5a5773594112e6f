/**
 * Mobile push registration: the deprecated token mutations `addApnsToken`, `removeApnsToken`,
 * `addFcmToken` and `removeFcmToken` (https://zulip.com/api/add-apns-token and the pages beside
 * it), kept for servers before end-to-end encrypted push (Zulip 11.0, feature level 406). A push
 * token identifies a device: the gateway never puts one in an error message or a log line.
 */
import { addApnsToken, addFcmToken, removeApnsToken, removeFcmToken } from '../../zulip/routes/mobile.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { reaches } from '../zulip-operations.js';

/** Zulip's limit on a token's length. */
const MAX_TOKEN_LENGTH = 4096;

const DEPRECATED = 'Zulip deprecated token registration in 11.0 (feature level 406) for end-to-end encrypted push registration.';

/** Refuses an empty or over-long token, or an APNs token that is not hex, before any call (without echoing it). */
function checkToken(field: string, token: string, apns: boolean): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw badInput(`${field}: \`token\` must be 1 to ${MAX_TOKEN_LENGTH} characters.`, { argument: 'token' });
  if (apns && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) throw badInput(`${field}: \`token\` must be an APNs token in hex.`, { argument: 'token' });
}

const tokenArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], what: string) =>
  t.arg.string({ required: true, description: `The ${what} token the device got from its push service (a secret of the device).` });

builder.mutationFields((t) => ({
  addApnsToken: t.boolean({
    extensions: reaches('add-apns-token'),
    deprecationReason: DEPRECATED,
    description: 'Registers the caller\u2019s iOS device for push notifications (always true). Server refusals are BAD_REQUEST ("Invalid app ID").',
    args: {
      token: tokenArg(t, 'APNs'),
      appId: t.arg.string({ required: true, description: 'The ID of the Zulip app asking (e.g. `org.zulip.Zulip`).' }),
    },
    resolve: async (_root, args, ctx) => {
      checkToken('addApnsToken', args.token, true);
      if (args.appId.trim() === '') throw badInput('addApnsToken: `appId` must not be blank.', { argument: 'appId' });
      await addApnsToken(ctx.connection, { token: args.token, appid: args.appId });
      return true;
    },
  }),
  removeApnsToken: t.boolean({
    extensions: reaches('remove-apns-token'),
    deprecationReason: DEPRECATED,
    description: 'Stops push notifications to an iOS device (always true). An unknown token fails with BAD_REQUEST ("Token does not exist").',
    args: { token: tokenArg(t, 'APNs') },
    resolve: async (_root, args, ctx) => {
      checkToken('removeApnsToken', args.token, true);
      await removeApnsToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
  addFcmToken: t.boolean({
    extensions: reaches('add-fcm-token'),
    deprecationReason: DEPRECATED,
    description: 'Registers the caller\u2019s Android device for push notifications (always true).',
    args: { token: tokenArg(t, 'FCM registration') },
    resolve: async (_root, args, ctx) => {
      checkToken('addFcmToken', args.token, false);
      await addFcmToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
  removeFcmToken: t.boolean({
    extensions: reaches('remove-fcm-token'),
    deprecationReason: DEPRECATED,
    description: 'Stops push notifications to an Android device (always true). An unknown token fails with BAD_REQUEST ("Token does not exist").',
    args: { token: tokenArg(t, 'FCM registration') },
    resolve: async (_root, args, ctx) => {
      checkToken('removeFcmToken', args.token, false);
      await removeFcmToken(ctx.connection, { token: args.token });
      return true;
    },
  }),
}));
