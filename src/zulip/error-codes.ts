/**
 * The Zulip error codes our code switches on or sends, named once. Zulip's own come in the `code`
 * of an error response (https://zulip.com/api/rest-error-handling); for a 4xx whose body is not a
 * Zulip error (a proxy's page, an empty body) the connection names the HTTP status instead
 * (connection/outcome.ts). `ZulipApiError.code` stays a plain string: a server may send codes not
 * listed here, and callers compare it with these.
 */
export const ZulipErrorCode = {
  /** Zulip's generic client error, and what a response without a code counts as. */
  badRequest: 'BAD_REQUEST',
  /** The event queue is gone (expired, deleted, or the server restarted): register a new one. */
  badEventQueueId: 'BAD_EVENT_QUEUE_ID',
  /** Too many requests; the response says when to retry (`retry-after`). */
  rateLimitHit: 'RATE_LIMIT_HIT',
  /** No credentials, or refused ones (also the code of a bare HTTP 401). */
  unauthorized: 'UNAUTHORIZED',
  invalidApiKey: 'INVALID_API_KEY',
  userDeactivated: 'USER_DEACTIVATED',
  realmDeactivated: 'REALM_DEACTIVATED',
  /** Unsubscribing from a channel that does not exist (https://zulip.com/api/unsubscribe). */
  streamDoesNotExist: 'STREAM_DOES_NOT_EXIST',
  /** Moving messages past the organization's time limit (https://zulip.com/api/update-message). */
  moveMessagesTimeLimitExceeded: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
  // Codes the gateway reads as typed errors of mutations (gateway/typed-errors.ts).
  /** A role the operation needs (organization member, administrator, owner), or a principal refused. */
  unauthorizedPrincipal: 'UNAUTHORIZED_PRINCIPAL',
  /** The caller may not administer the channel. */
  cannotAdministerChannel: 'CANNOT_ADMINISTER_CHANNEL',
  /** A group setting that only a system group may hold. */
  systemGroupRequired: 'SYSTEM_GROUP_REQUIRED',
  /** A message mentioning the channel (@all...) where the caller may not. */
  streamWildcardMentionNotAllowed: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
  /** A message mentioning the topic (@topic) where the caller may not. */
  topicWildcardMentionNotAllowed: 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
  /** Removing a reaction the caller has not made (https://zulip.com/api/remove-reaction). */
  reactionDoesNotExist: 'REACTION_DOES_NOT_EXIST',
  /** Adding a reaction the caller has already made (https://zulip.com/api/add-reaction). */
  reactionAlreadyExists: 'REACTION_ALREADY_EXISTS',
  /** Creating a channel whose name is taken (https://zulip.com/api/create-channel, HTTP 409). */
  channelAlreadyExists: 'CHANNEL_ALREADY_EXISTS',
  /** Deactivating the organization's only user or only owner. */
  cannotDeactivateLastUser: 'CANNOT_DEACTIVATE_LAST_USER',
  /** Deactivating a user group that a setting still uses (https://zulip.com/api/deactivate-user-group). */
  cannotDeactivateGroupInUse: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
  /** A group setting's `old` value that is no longer its value. */
  expectationMismatch: 'EXPECTATION_MISMATCH',
  /** Signing in with a wrong password, or an unknown user (https://zulip.com/api/fetch-api-key). */
  authenticationFailed: 'AUTHENTICATION_FAILED',
  /** Signing in with a password where the organization disabled passwords. */
  passwordAuthDisabled: 'PASSWORD_AUTH_DISABLED',
  /** Signing in with a password that must be reset first. */
  passwordResetRequired: 'PASSWORD_RESET_REQUIRED',
  // Codes of a bare HTTP status (connection/outcome.ts), for the statuses not named above.
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  requestTimeout: 'REQUEST_TIMEOUT',
  conflict: 'CONFLICT',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  unprocessableEntity: 'UNPROCESSABLE_ENTITY',
} as const;

export type ZulipErrorCode = (typeof ZulipErrorCode)[keyof typeof ZulipErrorCode];
