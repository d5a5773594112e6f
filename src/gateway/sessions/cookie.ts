/**
 * The session cookie and the bearer token: where a request's session token comes from, and the
 * `Set-Cookie` values that hand it to a browser or take it back.
 *
 * The cookie is `HttpOnly` (no script reads it), `SameSite=Lax` (not sent on cross-site
 * subrequests), `Path=/`, and `Secure` with the `__Host-` prefix (the browser then refuses it from
 * plain HTTP and from any other host, and no subdomain can set it), except on a loopback host,
 * where a developer runs the gateway over plain HTTP: there it is `chatgraph-session`, without
 * `Secure`. Its lifetime is the session's absolute one (SESSION_MAX): the idle expiry is the
 * gateway's to enforce.
 */

/** The cookie's name on any host but loopback. */
export const SECURE_COOKIE = '__Host-chatgraph-session';
/** The cookie's name on a loopback host (plain HTTP). */
export const LOOPBACK_COOKIE = 'chatgraph-session';

/** Where a request's session token came from. */
export interface SentSession {
  token: string;
  via: 'cookie' | 'bearer';
}

/** Whether `host` (a Host header, port included or not) is a loopback name or address. */
export function isLoopbackHost(host: string | null | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The session token of a `Cookie` header, under either name; undefined without one. */
export function sessionCookieOf(cookie: string | null | undefined): string | undefined {
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === SECURE_COOKIE || name === LOOPBACK_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The token of an `Authorization: Bearer …` value; undefined for any other value. */
export function bearerOf(authorization: string | null | undefined): string | undefined {
  const match = authorization ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization) : null;
  return match ? match[1] : undefined;
}

/**
 * The session a request sent, from its headers: a bearer token in Authorization, else the cookie
 * when it sent no Authorization at all (`Authorization: Basic` keeps its meaning, cookie or not).
 */
export function sentSessionOf(headers: { authorization?: string | null; cookie?: string | null }): SentSession | undefined {
  if (headers.authorization) {
    const bearer = bearerOf(headers.authorization);
    return bearer === undefined ? undefined : { token: bearer, via: 'bearer' };
  }
  const token = sessionCookieOf(headers.cookie);
  return token === undefined ? undefined : { token, via: 'cookie' };
}

/** The `Set-Cookie` value that gives the browser `token` until `expiresAt` (ms since the epoch). */
export function sessionCookie(token: string, expiresAt: number, loopback: boolean): string {
  const name = loopback ? LOOPBACK_COOKIE : SECURE_COOKIE;
  return `${name}=${token}; Path=/; HttpOnly; SameSite=Lax; Expires=${new Date(expiresAt).toUTCString()}${loopback ? '' : '; Secure'}`;
}

/** The `Set-Cookie` value that removes the cookie. */
export function clearedSessionCookie(loopback: boolean): string {
  const name = loopback ? LOOPBACK_COOKIE : SECURE_COOKIE;
  return `${name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${loopback ? '' : '; Secure'}`;
}

/**
 * Whether a browser request from `origin` may use this gateway's session, WebSocket or SSE: its own
 * origin (the same host), or one of CORS_ORIGINS (`*` lets any origin in, but never with the cookie).
 */
export function originAllowed(origin: string, host: string | null | undefined, corsOrigins: readonly string[] | '*', withCookie: boolean): boolean {
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false;
  }
  if (host && originHost === host) return true;
  if (corsOrigins === '*') return !withCookie;
  return corsOrigins.includes(origin);
}
