/**
 * Login: the `fetchApiKey` mutation trades a username and password for an API key
 * (https://zulip.com/api/fetch-api-key). It runs without credentials: it always calls the server
 * anonymously, whatever Authorization the request carries, and plugins/credentials.ts lets it
 * through when that Authorization is unusable (its facts say `anonymous: true`). `jwtFetchApiKey`
 * does the same for a JSON Web Token
 * (https://zulip.com/api/jwt-fetch-api-key). The password and the token are never part of an error
 * message, and logs never carry variables (observability/logger.ts also redacts any `password` or
 * `token` field). `regenerateApiKey` replaces the caller's key
 * (https://zulip.com/api/regenerate-api-key): the new key is the payload, and like every key it never
 * reaches a log, a metric or an error.
 */
import type { ApiKeyResult } from '../../zulip/model/authentication.js';
import { fetchApiKey, jwtFetchApiKey, regenerateApiKey } from '../../zulip/routes/authentication.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { LOGIN_COST } from '../upstream/cost.js';

const ApiKeyPayloadRef = builder.objectRef<ApiKeyResult>('ApiKeyPayload').implement({
  description: 'An API key and the account it belongs to. Send it as `Authorization: Basic base64(email:apiKey)`.',
  fields: (t) => ({
    apiKey: t.exposeString('api_key', { description: 'The API key: a secret, to be stored like a password.' }),
    email: t.exposeString('email', { description: "The account's API email, the user half of the Authorization header." }),
    userId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The account\u2019s user ID; null from servers before feature level 171, and from jwtFetchApiKey (Zulip answers it without one).',
      resolve: (key) => key.user_id ?? null,
    }),
  }),
});

builder.mutationField('fetchApiKey', (t) =>
  t.field({
    zulip: { reaches: ['fetch-api-key'], cost: LOGIN_COST, writes: [], anonymous: true },
    type: ApiKeyPayloadRef,
    description:
      'Logs in with a username (usually the email) and password, and answers the API key. Needs no credentials. ' +
      'A wrong username or password is UNAUTHENTICATED (upstreamCode AUTHENTICATION_FAILED).',
    args: {
      username: t.arg.string({ required: true, description: 'The username, usually the account email.' }),
      password: t.arg.string({ required: true, description: 'The password; never logged nor echoed in an error.' }),
    },
    resolve: (_root, args, ctx) => {
      if (args.username.trim() === '') throw badInput('username must not be empty');
      if (args.password === '') throw badInput('password must not be empty');
      return fetchApiKey(ctx.anonymousConnection, { username: args.username, password: args.password });
    },
  }),
);

builder.mutationField('jwtFetchApiKey', (t) =>
  t.field({
    zulip: { reaches: ['jwt-fetch-api-key'], cost: LOGIN_COST, gate: 'jwt-fetch-api-key', writes: [], anonymous: true },
    type: ApiKeyPayloadRef,
    description:
      'Logs in with a JSON Web Token signed with the organization\u2019s key (its `email` claim names the account), and ' +
      'answers the API key. Needs no credentials. An unknown account is UNAUTHENTICATED (upstreamCode ' +
      'AUTHENTICATION_FAILED); a token the server cannot verify, BAD_REQUEST. Feature level 160.',
    args: {
      token: t.arg.string({ required: true, description: 'The JSON Web Token; never logged nor echoed in an error.' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.token.trim() === '') throw badInput('token must not be empty');
      return jwtFetchApiKey(ctx.anonymousConnection, { token: args.token });
    },
  }),
);

const RegenerateApiKeyPayloadRef = builder.objectRef<{ api_key: string }>('RegenerateApiKeyPayload').implement({
  description: 'The caller\u2019s new API key. The old one stopped working: send this one from now on.',
  fields: (t) => ({
    apiKey: t.exposeString('api_key', { description: 'The new API key: a secret, to be stored like a password.' }),
  }),
});

builder.mutationField('regenerateApiKey', (t) =>
  t.field({
    zulip: { reaches: ['regenerate-api-key'], writes: [] },
    type: RegenerateApiKeyPayloadRef,
    description:
      'Replaces the caller\u2019s API key with a new one and answers it; the old key stops working at once (so does this ' +
      'request\u2019s credential for any later request). Bots cannot (BAD_REQUEST).',
    resolve: async (_root, _args, ctx) => {
      const result = await regenerateApiKey(ctx.connection);
      // The old key is refused from now on: nothing held for it is served again (revocation.ts).
      ctx.server.revocations?.refused(ctx.connection);
      return result;
    },
  }),
);
