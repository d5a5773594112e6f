/**
 * Wire types for code playgrounds (https://zulip.com/api/add-code-playground), snake_case as sent:
 * external sites a code block of a given language can be opened in.
 */

/** One code playground, as the `realm_playgrounds` register state and events send it. */
export interface CodePlayground {
  id: number;
  /** The name users pick it by, e.g. `Python playground`. */
  name: string;
  /** The Pygments lexer name of the language, e.g. `Python`. */
  pygments_language: string;
  /** An RFC 6570 URL template with the one variable `code` (feature level 196; `url_prefix` before). */
  url_template: string;
}

/** `POST /realm/playgrounds` success body. */
export interface AddCodePlaygroundResult {
  id: number;
}
