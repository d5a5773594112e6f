/** Wire types of saved snippets (https://zulip.com/api/get-saved-snippets), new in Zulip 10.0 (feature level 297). */

/** A saved snippet: text the user inserts into messages they compose. */
export interface SavedSnippet {
  id: number;
  title: string;
  /** Zulip-flavored Markdown, inserted as is into a message being composed. */
  content: string;
  /** When it was created, in UNIX seconds. */
  date_created: number;
}

export interface GetSavedSnippetsResult {
  saved_snippets: SavedSnippet[];
}

export interface CreateSavedSnippetResult {
  saved_snippet_id: number;
}
