/**
 * Expected failures of mutations as typed data (docs/errors.md states the rule).
 *
 * Every mutation returns a result union, `<Mutation>Result`: its payload, or one of the error
 * types it declares with the `errors` option (`errors: { types: [NotFoundError, ...] }`; the
 * builder makes every such union a direct result named after the field). Those are the failures
 * a form can act on: a record Zulip does not find, a permission it does not grant, a value it
 * refuses, a conflict with the organization's state, a field this server is too old for. Each
 * error type is a class here, mapped from Zulip's error `code` (and, where Zulip uses no code of
 * its own, its HTTP status) by `typedErrorFor`, the one table of that mapping; its GraphQL object
 * type is in schema/errors.ts. What a form cannot act on stays a top-level error with its
 * `extensions.code` (errors.ts): authentication, rate limits and the upstream budget, the
 * transport, an upstream that is down, and arguments the gateway refuses before any call.
 *
 * The `typedErrors` Pothos plugin, registered between the errors plugin and the facts plugin:
 * - a field with a feature gate (`zulip.gate`, facts.ts) can give UnsupportedByServerError, so the
 *   plugin adds that type to its declared ones (the gate is stated once, on the facts);
 * - around the resolver and its gate, a thrown failure that maps to one of the field's declared
 *   types is thrown again as that type, which the errors plugin returns as data. Any other failure
 *   propagates unchanged, a top-level error as before.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { GraphQLError, type GraphQLFieldResolver } from 'graphql';
import { ZulipErrorCode } from '../zulip/error-codes.js';
import { ZulipApiError, isAuthError } from '../zulip/errors.js';
import type { MoveMessagesTimeLimitExceededData } from '../zulip/model/messages.js';
import { GatewayErrorCode } from './errors.js';

/** The common shape: the server's (or the gateway's) explanation for people, and the code for programs. */
export abstract class TypedError extends Error {
  /** Zulip's error code (e.g. BAD_REQUEST, UNAUTHORIZED_PRINCIPAL), or the gateway's for its own checks. */
  readonly code: string;

  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Zulip refused the request as invalid: a value it does not accept, a name already in use, a record
 * it reports only as "invalid" (Zulip gives most of these the generic BAD_REQUEST and tells them
 * apart only in the message, translated for the caller).
 */
export class BadRequestError extends TypedError {
  override readonly name = 'BadRequestError';
}

/** A record that does not exist or that the caller cannot see (HTTP 404, REACTION_DOES_NOT_EXIST, or the gateway's NOT_FOUND). */
export class NotFoundError extends TypedError {
  override readonly name = 'NotFoundError';
}

/** The caller lacks a role or permission the operation needs (UNAUTHORIZED_PRINCIPAL, a wildcard mention, HTTP 403). */
export class PermissionDeniedError extends TypedError {
  override readonly name = 'PermissionDeniedError';
}

/** The request conflicts with the organization's state: something that already exists, the last owner, a group in use. */
export class ConflictError extends TypedError {
  override readonly name = 'ConflictError';
}

/** Signing in failed: a wrong password, a deactivated account or organization, a disabled method. */
export class AuthenticationFailedError extends TypedError {
  override readonly name = 'AuthenticationFailedError';
}

/** The field, or an argument given, needs a newer chat server (the gateway's UNSUPPORTED_BY_SERVER). */
export class UnsupportedByServerError extends TypedError {
  override readonly name = 'UnsupportedByServerError';
  readonly requiredFeatureLevel: number;
  readonly featureLevel: number;

  constructor(message: string, requiredFeatureLevel: number, featureLevel: number) {
    super(message, GatewayErrorCode.unsupportedByServer);
    this.requiredFeatureLevel = requiredFeatureLevel;
    this.featureLevel = featureLevel;
  }
}

/** A channel named in the request does not exist (STREAM_DOES_NOT_EXIST, with the name or ID Zulip sent). */
export class ChannelDoesNotExistError extends TypedError {
  override readonly name = 'ChannelDoesNotExistError';
  readonly channelName: string | null;
  readonly channelId: number | null;

  constructor(message: string, data: Record<string, unknown>) {
    super(message, ZulipErrorCode.streamDoesNotExist);
    this.channelName = typeof data.stream === 'string' ? data.stream : null;
    this.channelId = typeof data.stream_id === 'number' ? data.stream_id : null;
  }
}

/**
 * MOVE_MESSAGES_TIME_LIMIT_EXCEEDED: the client can retry with CHANGE_LATER from
 * `firstMessageIdAllowedToMove`. https://zulip.com/api/update-message
 */
export class MoveMessagesTimeLimitExceededError extends TypedError {
  override readonly name = 'MoveMessagesTimeLimitExceededError';
  readonly firstMessageIdAllowedToMove: number | null;
  readonly totalMessagesAllowedToMove: number;
  readonly totalMessagesInTopic: number;

  constructor(message: string, data: Partial<MoveMessagesTimeLimitExceededData>) {
    super(message, ZulipErrorCode.moveMessagesTimeLimitExceeded);
    this.firstMessageIdAllowedToMove = data.first_message_id_allowed_to_move ?? null;
    this.totalMessagesAllowedToMove = data.total_messages_allowed_to_move ?? 0;
    this.totalMessagesInTopic = data.total_messages_in_topic ?? 0;
  }
}

type Plain = new (message: string, code: string) => TypedError;

/** Zulip's codes with a type of their own meaning; any other code is read by its HTTP status (`byStatus`). */
const BY_CODE: Readonly<Record<string, Plain>> = {
  [ZulipErrorCode.unauthorizedPrincipal]: PermissionDeniedError,
  [ZulipErrorCode.cannotAdministerChannel]: PermissionDeniedError,
  [ZulipErrorCode.systemGroupRequired]: PermissionDeniedError,
  [ZulipErrorCode.streamWildcardMentionNotAllowed]: PermissionDeniedError,
  [ZulipErrorCode.topicWildcardMentionNotAllowed]: PermissionDeniedError,
  [ZulipErrorCode.reactionDoesNotExist]: NotFoundError,
  [ZulipErrorCode.reactionAlreadyExists]: ConflictError,
  [ZulipErrorCode.channelAlreadyExists]: ConflictError,
  [ZulipErrorCode.cannotDeactivateLastUser]: ConflictError,
  [ZulipErrorCode.cannotDeactivateGroupInUse]: ConflictError,
  [ZulipErrorCode.expectationMismatch]: ConflictError,
  [ZulipErrorCode.authenticationFailed]: AuthenticationFailedError,
  [ZulipErrorCode.userDeactivated]: AuthenticationFailedError,
  [ZulipErrorCode.realmDeactivated]: AuthenticationFailedError,
  [ZulipErrorCode.passwordAuthDisabled]: AuthenticationFailedError,
  [ZulipErrorCode.passwordResetRequired]: AuthenticationFailedError,
};

/** The type of a code Zulip gives no meaning of its own (BAD_REQUEST, mostly), by the HTTP status it came with. */
function byStatus(status: number): Plain | undefined {
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status >= 400 && status < 500) return BadRequestError;
  return undefined;
}

/**
 * The typed form of a failure, or undefined for one that is never data: a rate limit, anything that
 * is not an answer of the chat server, and, outside signing in (`AuthenticationFailedError` is
 * declared only by the sign-in mutations), the caller's own credentials refused.
 */
export function typedErrorFor(error: unknown): TypedError | undefined {
  if (error instanceof GraphQLError) {
    const { code } = error.extensions;
    if (code === GatewayErrorCode.notFound) return new NotFoundError(error.message, GatewayErrorCode.notFound);
    if (code === GatewayErrorCode.unsupportedByServer) {
      const { requiredFeatureLevel, featureLevel } = error.extensions as { requiredFeatureLevel: number; featureLevel: number };
      return new UnsupportedByServerError(error.message, requiredFeatureLevel, featureLevel);
    }
    return undefined;
  }
  if (!(error instanceof ZulipApiError)) return undefined;
  if (error.httpStatus === 429 || error.code === ZulipErrorCode.rateLimitHit) return undefined;
  if (error.code === ZulipErrorCode.streamDoesNotExist) return new ChannelDoesNotExistError(error.message, error.data);
  if (error.code === ZulipErrorCode.moveMessagesTimeLimitExceeded) {
    return new MoveMessagesTimeLimitExceededError(error.message, error.data as Partial<MoveMessagesTimeLimitExceededData>);
  }
  const { code, httpStatus } = error;
  const type = BY_CODE[code] ?? (isAuthError(error) ? undefined : byStatus(httpStatus));
  return type && new type(error.message, code);
}

type ErrorClass = abstract new (...args: never[]) => Error;

interface ErrorsOption {
  types?: ErrorClass[];
  directResult?: boolean;
  dataField?: { name?: string; description?: string };
}

const pluginName = 'typedErrors';

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      typedErrors: TypedErrorsPlugin<Types>;
    }
  }
}

/** See the module comment: the gate's type added to the declared ones, and failures thrown as their declared type. */
export class TypedErrorsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const options = fieldConfig.pothosOptions as { errors?: ErrorsOption; zulip?: { gate?: unknown } };
    if (!options.errors) return fieldConfig;
    const errors: ErrorsOption = { ...options.errors };
    const types = errors.types ?? [];
    if (options.zulip?.gate !== undefined && !types.includes(UnsupportedByServerError)) errors.types = [...types, UnsupportedByServerError];
    // A union holds objects only: a scalar result (a mutation that answers `true`) goes in `<Mutation>Payload.ok`.
    if (fieldConfig.type.kind === 'Scalar' || fieldConfig.type.kind === 'Enum') {
      errors.directResult = false;
      errors.dataField ??= { name: 'ok', description: 'Always true: the chat server accepted the request.' };
    }
    return { ...fieldConfig, pothosOptions: { ...fieldConfig.pothosOptions, errors } } as PothosOutputFieldConfig<Types>;
  }

  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const declared = (fieldConfig.extensions?.pothosErrors ?? []) as ErrorClass[];
    if (declared.length === 0) return resolver;
    return async (parent, args, context, info) => {
      try {
        return await resolver(parent, args, context, info);
      } catch (error) {
        const typed = typedErrorFor(error);
        throw typed && declared.some((type) => typed instanceof type) ? typed : error;
      }
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, TypedErrorsPlugin);

export default pluginName;
