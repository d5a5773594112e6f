/**
 * Wire types for linkifiers (https://zulip.com/api/get-linkifiers), snake_case as sent: the
 * organization's ordered regular-expression patterns that messages and topics link to URLs.
 */

/** One linkifier, as `GET /realm/linkifiers`, the register state and `realm_linkifiers` events send it. */
export interface Linkifier {
  id: number;
  /** A regular expression with named groups, `(?P<name>...)`. */
  pattern: string;
  /** An RFC 6570 URL template over the pattern's groups (feature level 176; `url_format` before). */
  url_template: string;
}

/** `GET /realm/linkifiers` success body. */
export interface GetLinkifiersResult {
  /** In processing order. */
  linkifiers: Linkifier[];
}

/** `POST /realm/filters` success body. */
export interface AddLinkifierResult {
  id: number;
}
