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
