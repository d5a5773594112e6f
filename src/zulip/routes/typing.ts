/** Bindings for typing notifications. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { TypingOp, TypingType } from '../model/typing.js';
import { json, raw } from '../params.js';

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
  return connection.request<object>(
    'set-typing-status',
    'POST',
    'typing',
    {
      type: raw(options.type),
      op: raw(options.op),
      to: json(options.to),
      stream_id: json(options.streamId),
      topic: raw(options.topic),
    },
    call,
  );
}
