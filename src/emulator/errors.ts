/**
 * Zulip-shaped error bodies: `{result: "error", msg, code, ...extra}` with the HTTP status real Zulip uses.
 * Route handlers throw {@link ApiError}; the app turns it into a response. See
 * https://zulip.com/api/rest-error-handling
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toBody(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

/** The generic 400 most validation failures use. */
export function badRequest(msg: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('BAD_REQUEST', msg, 400, extra);
}

export function missingArgument(name: string): ApiError {
  return new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name });
}

export function unauthorized(): ApiError {
  return new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401);
}

export function invalidApiKey(): ApiError {
  return new ApiError('INVALID_API_KEY', 'Invalid API key', 401);
}

export function userDeactivated(): ApiError {
  return new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
}

export function streamDoesNotExistById(streamId: number): ApiError {
  return new ApiError('STREAM_DOES_NOT_EXIST', `Channel with ID '${streamId}' does not exist`, 400, {
    stream_id: streamId,
  });
}

export function streamDoesNotExistByName(name: string): ApiError {
  return new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, 400, { stream: name });
}

export function invalidChannelId(): ApiError {
  return badRequest('Invalid channel ID');
}

export function invalidMessage(): ApiError {
  return badRequest('Invalid message(s)');
}

export function insufficientPermission(): ApiError {
  return new ApiError('BAD_REQUEST', 'Insufficient permission', 400);
}

/**
 * An endpoint a server below `level` does not have answers 404 "Not Found" there (Zulip's URL
 * router), so the emulator set to an older feature level does the same.
 */
export function requireFeatureLevel(settings: { featureLevel: number }, level: number): void {
  if (settings.featureLevel < level) throw new ApiError('BAD_REQUEST', 'Not Found', 404);
}
