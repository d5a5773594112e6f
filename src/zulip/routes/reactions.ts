/** Bindings for emoji reactions on messages. */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { ReactionType } from '../model/reactions.js';
import * as ops from '../generated/reactions.js';

/** Names one emoji: by name alone, or (more precisely) by code and namespace. */
export interface ReactionOptions {
  messageId: number;
  /** Human-readable name, e.g. `octopus`. Required when adding. */
  emojiName?: string;
  /** The emoji's code in the namespace of `reactionType` (e.g. `1f419`). @default looked up from the name (server side) */
  emojiCode?: string;
  /** @default 'unicode_emoji' unless the name is a custom emoji's (server side) */
  reactionType?: ReactionType;
}

/**
 * Adds the caller's reaction to a message. Fails with REACTION_ALREADY_EXISTS (feature level 193;
 * BAD_REQUEST before) when the caller already reacted with that emoji.
 * https://zulip.com/api/add-reaction
 */
export function addReaction(
  connection: ZulipConnection,
  options: ReactionOptions & { emojiName: string },
  call: SendOptions = {},
): Promise<Record<string, never>> {
  return ops.addReaction(connection, options, call);
}

/**
 * Removes the caller's reaction from a message. Fails with REACTION_DOES_NOT_EXIST (feature
 * level 193; BAD_REQUEST before) when there is no such reaction.
 * https://zulip.com/api/remove-reaction
 */
export function removeReaction(
  connection: ZulipConnection,
  options: ReactionOptions,
  call: SendOptions = {},
): Promise<Record<string, never>> {
  return ops.removeReaction(connection, options, call);
}
