/**
 * Wire types for typing notifications (https://zulip.com/api/set-typing-status), snake_case as
 * sent.
 */

export type TypingOp = 'start' | 'stop';

/**
 * What is being composed. `channel` is the name since feature level 248; `stream` works from 215
 * (and, with `to` holding the channel ID, from 58); `direct` is the default.
 */
export type TypingType = 'direct' | 'stream' | 'channel';
