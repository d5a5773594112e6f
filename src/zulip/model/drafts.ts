/**
 * Wire types for drafts (https://zulip.com/api/get-drafts), snake_case as sent. Drafts exist
 * since feature level 87; the server keeps them only while the user's
 * `enable_drafts_synchronization` setting is on.
 */

/** `''` unaddressed, `stream` a channel draft, `private` a direct-message draft. */
export type DraftType = '' | 'stream' | 'private';

/** A draft as sent to the server (`POST /drafts`, `PATCH /drafts/{id}`): never carries an `id`. */
export interface DraftData {
  type: DraftType;
  /** Exactly one channel ID for channel drafts; user IDs for direct drafts; `[]` when unaddressed. */
  to: number[];
  /** Ignored for non-channel drafts (send `''`). Must not contain null bytes. */
  topic: string;
  /** Must not contain null bytes. */
  content: string;
  /** UNIX seconds of the last edit; the server fills it in when absent. */
  timestamp?: number;
}

/** A stored draft, as `GET /drafts`, the register state and `drafts` events return it. */
export interface Draft extends DraftData {
  id: number;
  timestamp: number;
}

/** `GET /drafts` success body. */
export interface GetDraftsResult {
  /** Number of drafts (the length of `drafts`). */
  count: number;
  /** Most recently edited first. */
  drafts: Draft[];
}

/** `POST /drafts` success body. */
export interface CreateDraftsResult {
  /** IDs of the new drafts, in the order they were submitted. */
  ids: number[];
}
