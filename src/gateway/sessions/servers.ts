/**
 * Which chat servers a session may sign in to: refused before any connection is made, so that
 * signIn cannot be used to reach arbitrary hosts from the gateway (SSRF). For now the one server
 * of ZULIP_URL; the allow-list of many servers replaces this function.
 */

/**
 * The canonical name of `server` (an origin, or omitted: the configured server) when sessions may
 * sign in to it; undefined when it is not allowed (or not a URL).
 */
export function allowedServer(config: { baseUrl: string }, server: string | null | undefined): string | undefined {
  if (server === null || server === undefined) return config.baseUrl;
  let origin: string;
  try {
    origin = new URL(server).origin;
  } catch {
    return undefined;
  }
  return origin === new URL(config.baseUrl).origin ? config.baseUrl : undefined;
}
