/**
 * Bindings for saved snippets, new in Zulip 10.0 (feature level 297; editing at 368). Title and
 * content are stripped of surrounding whitespace by the server and may not be empty. An unknown or
 * another user's snippet fails with BAD_REQUEST "Saved snippet does not exist." (HTTP 404).
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/saved-snippets.js';
import type { CreateSavedSnippetResult, GetSavedSnippetsResult } from '../model/saved-snippets.js';

/** The caller's saved snippets. https://zulip.com/api/get-saved-snippets */
export const getSavedSnippets = (connection: ZulipConnection, params: ops.GetSavedSnippetsParams = {}, call?: SendOptions): Promise<GetSavedSnippetsResult> =>
  ops.getSavedSnippets(connection, params, call);

/** Creates a saved snippet. https://zulip.com/api/create-saved-snippet */
export const createSavedSnippet = (connection: ZulipConnection, params: ops.CreateSavedSnippetParams, call?: SendOptions): Promise<CreateSavedSnippetResult> =>
  ops.createSavedSnippet(connection, params, call);

/** Changes a saved snippet's title and/or content. https://zulip.com/api/edit-saved-snippet */
export const editSavedSnippet = (connection: ZulipConnection, params: ops.EditSavedSnippetParams, call?: SendOptions): Promise<object> =>
  ops.editSavedSnippet(connection, params, call);

/** Deletes a saved snippet. https://zulip.com/api/delete-saved-snippet */
export const deleteSavedSnippet = (connection: ZulipConnection, params: ops.DeleteSavedSnippetParams, call?: SendOptions): Promise<object> =>
  ops.deleteSavedSnippet(connection, params, call);
