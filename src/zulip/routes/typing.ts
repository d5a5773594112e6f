/** Bindings for typing notifications. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { TypingOp, TypingType } from '../model/typing.js';
import * as ops from '../generated/typing.js';

export interface SetTypingStatusOptions {
  /** Started or stopped composing. */
  op: TypingOp;
  /** What is being composed. @default 'direct' (server side) */
  type?: TypingType;
  /** Direct: the recipients' user IDs (a list even for one). Ignored for channel types. */
  to?: number[];
  /** Channel types: the channel (feature level 215). Ignored for direct. */
  streamId?: number;
  /** Channel types: the topic; `(no topic)` and the empty-topic display name mean the empty topic. */
  topic?: string;
}

/**
 * Tells the recipients the caller started or stopped typing.
 * https://zulip.com/api/set-typing-status
 */
export function setTypingStatus(
  connection: ZulipConnection,
  options: SetTypingStatusOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.setTypingStatus(connection, options, call);
}

/**
 * Tells the message's readers the caller started or stopped editing it (feature level 351); only
 * someone who may edit its content may say so.
 * https://zulip.com/api/set-typing-status-for-message-edit
 */
export const setTypingStatusForMessageEdit = (
  connection: ZulipConnection,
  params: ops.SetTypingStatusForMessageEditParams,
  call?: SendOptions,
): Promise<object> => ops.setTypingStatusForMessageEdit(connection, params, call);
