/**
 * Where a caller's credentials come from, read once into {@link Credentials}: the `Authorization`
 * header of an HTTP request, or the `connection_init` payload of a graphql-ws socket. Both
 * transports then build the same context from the result (context.ts).
 *
 * The header is `Authorization: Basic base64(email:apiKey)`, Zulip's own scheme, so a client can
 * send the header it already uses with the REST API (https://zulip.com/api/http-headers). A
 * `connection_init` payload carries `{ authorization: "Basic …" }` (`Authorization` is accepted
 * too) or `{ email, apiKey }`; a payload without any credential field falls back to the upgrade
 * request's Authorization header. Anything present but unusable is a problem, never "no
 * credentials": only a caller that sent none may get the gateway's default identity. Problems
 * name what is wrong without echoing the value.
 */
import type { Credentials } from '../zulip/credentials.js';

/**
 * What a caller sent: usable credentials, or a problem (the operation is refused with
 * UNAUTHENTICATED, plugins/credentials.ts). `undefined` where this type is expected means nothing
 * was sent (the default credentials apply, if configured).
 */
export type SentCredentials =
  | { credentials: Credentials }
  | {
      problem: string;
      /** The problem is the shape of a `connection_init` payload, not an Authorization value. */
      payload?: true;
    };

/** Parses an `Authorization` header value of the form `Basic base64(email:apiKey)`. */
export function parseAuthorization(value: string): SentCredentials {
  const match = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(value);
  if (!match) return { problem: 'The Authorization header must be "Basic " followed by base64(email:apiKey).' };
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const email = decoded.slice(0, colon);
  const apiKey = decoded.slice(colon + 1);
  if (colon <= 0 || apiKey === '' || CONTROL_CHARACTER.test(decoded)) return NOT_EMAIL_AND_KEY;
  return { credentials: { email, apiKey } };
}

/**
 * The credentials of recently seen Authorization header values, parsed once each: a client sends
 * the same header with every request, and the same credentials object then lets its connections
 * share their credential key (zulip/connection.ts). Bounded; the oldest value is dropped first.
 * It holds nothing a request's own connection does not hold while it runs.
 */
export class AuthorizationCache {
  readonly #parsed = new Map<string, SentCredentials>();

  constructor(readonly maxEntries = 1024) {}

  /** `credentialsFromHeader(authorization)`, the same object for the same value while it is kept. */
  get(authorization: string | null | undefined): SentCredentials | undefined {
    if (authorization === null || authorization === undefined) return undefined;
    let sent = this.#parsed.get(authorization);
    if (sent === undefined) {
      sent = parseAuthorization(authorization);
      if (this.#parsed.size >= this.maxEntries) this.#parsed.delete(this.#parsed.keys().next().value!);
      this.#parsed.set(authorization, sent);
    }
    return sent;
  }
}

/** The credentials of an HTTP request's Authorization header; undefined when it has none. */
export function credentialsFromHeader(authorization: string | null | undefined): SentCredentials | undefined {
  return authorization === null || authorization === undefined ? undefined : parseAuthorization(authorization);
}

/** Fields of a `connection_init` payload that carry credentials. */
const CREDENTIAL_FIELDS = ['authorization', 'Authorization', 'email', 'apiKey', 'api_key'] as const;

/**
 * The credentials of a graphql-ws `connection_init` payload, or of the upgrade request's
 * Authorization header when the payload has no credential field; undefined when neither has any.
 */
export function credentialsFromConnectionParams(
  payload: unknown,
  upgradeAuthorization: string | undefined,
): SentCredentials | undefined {
  const params: Record<string, unknown> =
    payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
  const present = CREDENTIAL_FIELDS.filter((field) => Object.hasOwn(params, field));
  if (present.length === 0) return credentialsFromHeader(upgradeAuthorization);
  const { authorization, Authorization, email, apiKey } = params;
  if (present.length === 1 && (present[0] === 'authorization' || present[0] === 'Authorization')) {
    const value = authorization ?? Authorization;
    return typeof value === 'string' && value !== ''
      ? parseAuthorization(value)
      : { problem: 'Unusable credentials: authorization must be a non-empty string', payload: true };
  }
  if (present.length === 2 && present.includes('email') && present.includes('apiKey')) {
    if (typeof email !== 'string' || email === '' || typeof apiKey !== 'string' || apiKey === '') {
      return { problem: 'Unusable credentials: email and apiKey must be non-empty strings', payload: true };
    }
    // The rules of the header form: an email with a colon or a control character cannot be
    // written as `email:apiKey`, so it is refused the same way.
    return email.includes(':') || CONTROL_CHARACTER.test(email) || CONTROL_CHARACTER.test(apiKey)
      ? NOT_EMAIL_AND_KEY
      : { credentials: { email, apiKey } };
  }
  return { problem: 'Unusable credentials: send either authorization or both email and apiKey', payload: true };
}

const CONTROL_CHARACTER = /[\u0000-\u001f]/;

const NOT_EMAIL_AND_KEY: SentCredentials = Object.freeze({ problem: 'The Authorization header must carry base64 of "email:apiKey".' });
