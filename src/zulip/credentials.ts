/**
 * A Zulip account's API credentials and their HTTP form: Zulip authenticates REST calls with HTTP
 * Basic, the account's email as the username and its API key as the password.
 * See https://zulip.com/api/http-headers.
 */

export interface Credentials {
  /** The account's (API) email address, the Basic-auth username. */
  email: string;
  /** The API key, the Basic-auth password. */
  apiKey: string;
}

/** The `Authorization` header value for `credentials`: `Basic base64(email:apiKey)`. */
export function basicAuthorization(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.email}:${credentials.apiKey}`, 'utf8').toString('base64')}`;
}
