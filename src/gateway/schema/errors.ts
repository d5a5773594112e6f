/**
 * The GraphQL side of the expected errors of mutations (typed-errors.ts has the classes, the
 * mapping from Zulip's codes and the rule; docs/errors.md explains it to clients): the `Error`
 * interface and one object type per class. A mutation lists those it can return in its `errors`
 * option; its `<Mutation>Result` union holds its payload and them.
 */
import { builder } from '../builder.js';
import {
  AuthenticationFailedError,
  BadRequestError,
  ChannelDoesNotExistError,
  ConflictError,
  MoveMessagesTimeLimitExceededError,
  NotFoundError,
  PermissionDeniedError,
  type TypedError,
  UnsupportedByServerError,
} from '../typed-errors.js';

export const ErrorInterface = builder.interfaceRef<TypedError>('Error').implement({
  description:
    'An expected failure of a mutation, returned as data in its result union: select `... on Error { message code }` ' +
    '(and a type\u2019s own fields where it has some). Failures a client cannot act on (authentication, rate limits, ' +
    'the transport, an unavailable server, arguments refused before any call) are top-level errors instead. docs/errors.md',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'The chat server\u2019s explanation (translated for the caller), for people.' }),
    code: t.exposeString('code', {
      description: 'Zulip\u2019s error code (https://zulip.com/api/rest-error-handling), or the gateway\u2019s for its own checks, for programs.',
    }),
  }),
});

const plain = [
  [
    BadRequestError,
    'Zulip refused the request as invalid: a value it does not accept, a name already in use, a record it calls ' +
      'invalid. Zulip gives most of these its generic code BAD_REQUEST and tells them apart only in `message`.',
  ],
  [
    NotFoundError,
    'A record that does not exist or that the caller cannot see (an HTTP 404 of Zulip, REACTION_DOES_NOT_EXIST, ' +
      'or the gateway\u2019s NOT_FOUND for a record it looked up).',
  ],
  [
    PermissionDeniedError,
    'The caller lacks a role or permission the operation needs (UNAUTHORIZED_PRINCIPAL, CANNOT_ADMINISTER_CHANNEL, ' +
      'SYSTEM_GROUP_REQUIRED, STREAM_WILDCARD_MENTION_NOT_ALLOWED, TOPIC_WILDCARD_MENTION_NOT_ALLOWED, an HTTP 403).',
  ],
  [
    ConflictError,
    'The request conflicts with the organization\u2019s state (REACTION_ALREADY_EXISTS, CHANNEL_ALREADY_EXISTS, ' +
      'CANNOT_DEACTIVATE_LAST_USER, CANNOT_DEACTIVATE_GROUP_IN_USE, EXPECTATION_MISMATCH, an HTTP 409).',
  ],
  [
    AuthenticationFailedError,
    'Signing in failed (AUTHENTICATION_FAILED: a wrong password or an unknown account; USER_DEACTIVATED, ' +
      'REALM_DEACTIVATED, PASSWORD_AUTH_DISABLED, PASSWORD_RESET_REQUIRED).',
  ],
] as const;

for (const [type, description] of plain) {
  builder.objectType(type, { name: type.name, description, interfaces: [ErrorInterface] });
}

builder.objectType(UnsupportedByServerError, {
  name: 'UnsupportedByServerError',
  description:
    'The mutation, or an argument given, needs a newer chat server (code UNSUPPORTED_BY_SERVER): the client can ' +
    'hide the feature for this server.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    requiredFeatureLevel: t.exposeInt('requiredFeatureLevel', { description: 'The feature level it needs.' }),
    featureLevel: t.exposeInt('featureLevel', { description: 'The feature level of this chat server.' }),
  }),
});

builder.objectType(ChannelDoesNotExistError, {
  name: 'ChannelDoesNotExistError',
  description: 'A channel named in the request does not exist (code STREAM_DOES_NOT_EXIST).',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    channelName: t.exposeString('channelName', { nullable: true, description: 'The name that matched no channel, when named.' }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The ID that matched no channel, when given by ID.',
      resolve: (e) => e.channelId,
    }),
  }),
});

builder.objectType(MoveMessagesTimeLimitExceededError, {
  name: 'MoveMessagesTimeLimitExceededError',
  description:
    'The move is beyond the organization\u2019s time limit for part of the topic (code MOVE_MESSAGES_TIME_LIMIT_EXCEEDED). ' +
    'When `firstMessageIdAllowedToMove` is set, the client may retry with `messageId: firstMessageIdAllowedToMove` and ' +
    '`propagateMode: CHANGE_LATER` to move only the part it may.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    firstMessageIdAllowedToMove: t.field({
      type: 'Long',
      nullable: true,
      description: 'The oldest message of the topic the caller may move; null when the server did not compute it.',
      resolve: (e) => e.firstMessageIdAllowedToMove,
    }),
    totalMessagesAllowedToMove: t.exposeInt('totalMessagesAllowedToMove', {
      description: 'How many (of the most recent) messages the caller may move.',
    }),
    totalMessagesInTopic: t.exposeInt('totalMessagesInTopic', { description: 'How many messages the topic has.' }),
  }),
});
