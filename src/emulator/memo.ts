/**
 * Memoised derivations of store data. Each emulator's Store owns one, so two emulators in one
 * process share nothing and a discarded emulator takes its memory with it.
 */
import type { Message } from './records.js';

export class Memo {
  /** Lowercased `topic + content` per message, valid while both are unchanged (narrow/match.ts). */
  readonly searchText = new WeakMap<Message, { topic: string; content: string; text: string }>();
  /** Compiled search-keyword patterns: Unicode property classes are costly to compile; the latest few hundred. */
  readonly keywordPatterns = new Map<string, RegExp>();
  /** Gravatar hashes by `algorithm:input` (routes/users/wire.ts). */
  readonly hashes = new Map<string, string>();
}
