/**
 * The chat servers one gateway may talk to (`ZULIP_SERVERS`, or `ZULIP_URL` as a list of one) and
 * their `UpstreamServer`s, one per server, each with its own keep-alive pool, feature level, live
 * directories, message caches, revocations and budgets (server.ts). A session's accounts may sit
 * on any of them (docs/accounts.md); the first is the default server, where `Authorization: Basic`
 * and the default credentials go.
 *
 * The list is an allow-list: a server not on it is refused by `allowedServer` before anything
 * connects to it, so that no client can make the gateway call an address of its choosing (SSRF).
 */
import type { UpstreamServer, UpstreamServerOptions } from './server.js';

/**
 * A server address as the allow-list holds it: scheme, host, port and path, without a trailing
 * slash, query or fragment; undefined when `value` is not an http(s) URL.
 */
export function serverAddress(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) return undefined;
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The allow-listed address `value` names (the same server however it is spelled: case of the
 * host, default port, trailing slash), or undefined when the server is not on the list: then no
 * connection to it may be made.
 */
export function allowedServer(servers: readonly string[], value: string): string | undefined {
  const address = serverAddress(value);
  return address !== undefined && servers.includes(address) ? address : undefined;
}

/** One `UpstreamServer` per allowed server, made on first use by the gateway's own factory. */
export class UpstreamServers {
  /** The allowed servers, the default first, each as `serverAddress` writes it. */
  readonly addresses: readonly string[];
  readonly #servers = new Map<string, UpstreamServer>();
  readonly #create: (options: Pick<UpstreamServerOptions, 'baseUrl'>) => UpstreamServer;

  /**
   * `defaultServer` first, then the others (duplicates dropped). `create` builds one server with
   * the gateway's options; the default server is built at once and keeps the default credentials.
   */
  constructor(
    defaultServer: UpstreamServer,
    others: readonly string[],
    create: (options: Pick<UpstreamServerOptions, 'baseUrl'>) => UpstreamServer,
  ) {
    const first = serverAddress(defaultServer.config.baseUrl) ?? defaultServer.config.baseUrl;
    this.addresses = [first, ...new Set(others.map((o) => serverAddress(o) ?? o).filter((o) => o !== first))];
    this.#servers.set(first, defaultServer);
    this.#create = create;
  }

  /** The default server (`ZULIP_URL`, or the first of `ZULIP_SERVERS`). */
  get default(): UpstreamServer {
    return this.#servers.get(this.addresses[0]!)!;
  }

  /** The server at an allowed address, made on first use; undefined for any other address. */
  get(value: string): UpstreamServer | undefined {
    const address = allowedServer(this.addresses, value);
    if (address === undefined) return undefined;
    let server = this.#servers.get(address);
    if (!server) {
      server = this.#create({ baseUrl: address });
      this.#servers.set(address, server);
    }
    return server;
  }

  /** Every server made so far (for disposal and statistics). */
  made(): UpstreamServer[] {
    return [...this.#servers.values()];
  }

  /**
   * Closes the servers other than the default one (whose parts yoga.ts disposes one by one, in its
   * stated order): their directories, revocations and keep-alive pools.
   */
  async closeOthers(): Promise<void> {
    const others = this.made().filter((server) => server !== this.default);
    await Promise.all(others.map(async (server) => {
      await server.directories?.close();
      server.revocations?.close();
      await server.close();
    }));
  }
}
