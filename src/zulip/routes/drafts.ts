/**
 * Bindings for drafts (feature level 87). Every draft endpoint fails with BAD_REQUEST "User has
 * disabled synchronizing drafts." while the user's `enable_drafts_synchronization` is off.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import type { CreateDraftsResult, DraftData, GetDraftsResult } from '../model/drafts.js';
import * as ops from '../generated/drafts.js';

/**
 * All of the caller's drafts, most recently edited first.
 * https://zulip.com/api/get-drafts
 */
export function getDrafts(connection: ZulipConnection, call: SendOptions = {}): Promise<GetDraftsResult> {
  return ops.getDrafts(connection, {}, call);
}

export interface CreateDraftsOptions {
  /** The drafts to create; all or none are stored. @default [] (server side) */
  drafts?: DraftData[];
}

/**
 * Creates drafts; the result's `ids` are in the order the drafts were given.
 * https://zulip.com/api/create-drafts
 */
export function createDrafts(
  connection: ZulipConnection,
  options: CreateDraftsOptions,
  call: SendOptions = {},
): Promise<CreateDraftsResult> {
  return ops.createDrafts(connection, options, call);
}

export interface EditDraftOptions {
  draftId: number;
  /** The replacement draft (every field; `timestamp` is filled in when absent). */
  draft: DraftData;
}

/**
 * Replaces a draft. An unknown ID fails with BAD_REQUEST "Draft does not exist" (HTTP 404).
 * https://zulip.com/api/edit-draft
 */
export function editDraft(connection: ZulipConnection, options: EditDraftOptions, call: SendOptions = {}): Promise<object> {
  return ops.editDraft(connection, options, call);
}

export interface DeleteDraftOptions {
  draftId: number;
}

/**
 * Deletes a draft. An unknown ID fails with BAD_REQUEST "Draft does not exist" (HTTP 404).
 * https://zulip.com/api/delete-draft
 */
export function deleteDraft(
  connection: ZulipConnection,
  options: DeleteDraftOptions,
  call: SendOptions = {},
): Promise<object> {
  return ops.deleteDraft(connection, options, call);
}
