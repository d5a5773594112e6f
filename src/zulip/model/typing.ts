/**
 * Wire types for typing notifications (https://zulip.com/api/set-typing-status and the `typing`
 * event), snake_case as sent.
 */

export type TypingOp = 'start' | 'stop';

/**
 * What is being composed. `channel` is the name since feature level 248; `stream` works from 215
 * (and, with `to` holding the channel ID, from 58); `direct` is the default.
 */
export type TypingType = 'direct' | 'stream' | 'channel';

/** A participant as the `typing` event names it. */
export interface TypingPerson {
  user_id: number;
  email: string;
}
