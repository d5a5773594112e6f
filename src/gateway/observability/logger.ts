/**
 * Structured logs: pino JSON lines, one logger per gateway instance (no global logger), secrets
 * redacted by path. Failures are logged by what they mean to an operator: a chat server refusing a
 * caller (4xx) is routine and logged at debug without a stack; the chat server being unreachable or
 * failing is a warning; anything else is a gateway bug, logged at error with its stack.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { YogaLogger } from '@graphql-yoga/logger';
import { GraphQLError } from 'graphql';
import { MalformedResponseError, NetworkError, ServerError, ZulipApiError } from '../../zulip/errors.js';
import type { LogLevel } from '../config/defaults.js';

export type { Logger } from 'pino';

/** Paths whose values are replaced by "[redacted]" wherever they appear in a log record. */
const REDACTED_PATHS = [
  'authorization',
  'apiKey',
  'api_key',
  'password',
  'token',
  'credentials',
  'gatewaySecret',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.token',
  '*.credentials',
  'connectionParams',
  '*.connectionParams',
  // A device's E2EE push key and its encrypted push registration (registerPushDevice).
  'pushKey',
  '*.pushKey',
  'push_key',
  '*.push_key',
  'encryptedPushRegistration',
  '*.encryptedPushRegistration',
  'encrypted_push_registration',
  '*.encrypted_push_registration',
];

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go. @default stdout */
  destination?: DestinationStream;
  /** Fields on every line, e.g. { instance }. */
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'chatgraph', ...options.base },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Error objects: message, type and stack, never enumerable fields a library may have put
      // a request (and its headers) in.
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  return { type: error.name, message: error.message, stack: error.stack };
}

/** How a failure is logged. */
export interface ErrorClass {
  level: 'debug' | 'info' | 'warn' | 'error';
  /** Whether the stack is worth printing (only for gateway bugs). */
  stack: boolean;
  kind: 'refused' | 'upstream' | 'client' | 'bug';
}

/**
 * Classifies what was thrown while serving a request (the original error, or a GraphQLError
 * wrapping it as graphql-js reports resolver throws).
 */
export function classifyError(error: unknown): ErrorClass {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof GraphQLError && original !== error) return classifyError(original);
  if (original instanceof ZulipApiError) {
    // The chat server said no to this caller (bad argument, no permission, rate limit): routine.
    return original.httpStatus >= 500 ? { level: 'warn', stack: false, kind: 'upstream' } : { level: 'debug', stack: false, kind: 'refused' };
  }
  if (original instanceof NetworkError || original instanceof ServerError || original instanceof MalformedResponseError) {
    return { level: 'warn', stack: false, kind: 'upstream' };
  }
  // A GraphQLError raised on purpose (validation, BAD_USER_INPUT, UNAUTHENTICATED...).
  if (original instanceof GraphQLError) return { level: 'debug', stack: false, kind: 'client' };
  return { level: 'error', stack: true, kind: 'bug' };
}

/** Logs one failure of a request at the level its class calls for. */
export function logFailure(log: Logger, error: unknown, fields: Record<string, unknown> = {}): void {
  const cls = classifyError(error);
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const summary: Record<string, unknown> = { ...fields, errorKind: cls.kind };
  if (original instanceof ZulipApiError) Object.assign(summary, { route: original.routeName, httpStatus: original.httpStatus, code: original.code });
  else if (original instanceof NetworkError) Object.assign(summary, { route: original.routeName, reason: original.reason });
  else if (original instanceof ServerError || original instanceof MalformedResponseError) Object.assign(summary, { route: original.routeName, httpStatus: original.httpStatus });
  else if (original instanceof GraphQLError) summary.code = original.extensions.code;
  if (cls.stack) summary.err = original;
  const message = original instanceof Error ? original.message : String(original);
  log[cls.level](summary, cls.kind === 'bug' ? `gateway error: ${message}` : message);
}

/**
 * yoga's `logging` option: yoga's own messages through pino. yoga passes printf-like arguments;
 * the first string is the message, objects become fields.
 */
export function yogaLogger(log: Logger): YogaLogger {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      if (!log.isLevelEnabled(level)) return;
      const text = args.filter((a) => typeof a === 'string').join(' ');
      const error = args.find((a): a is Error => a instanceof Error);
      if (error) logFailure(log.child({ source: 'yoga' }), error, { yogaMessage: text || undefined });
      else log[level]({ source: 'yoga' }, text);
    };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}
