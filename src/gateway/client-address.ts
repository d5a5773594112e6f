/**
 * The address of the client that sent a request, for the anonymous operations' per-address limit
 * (plugins/upstream-budget.ts). `X-Forwarded-For` is honoured only when the peer is one of the
 * configured trusted proxies (`TRUSTED_PROXIES`): then the client is the rightmost address of the
 * header that is not itself a trusted proxy. Any other peer could write the header itself, so its
 * own address counts.
 */
import type { IncomingMessage } from 'node:http';

/** What the yoga context carries of the node request (HTTP and graphql-ws alike: transport/). */
type NodeRequest = Pick<IncomingMessage, 'headers'> & { socket?: { remoteAddress?: string | undefined } };

/** `::ffff:1.2.3.4` is IPv4 `1.2.3.4`. */
function normalize(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('::ffff:') && trimmed.includes('.') ? trimmed.slice(7) : trimmed;
}

/** The client's address, or undefined when the request has no socket (in-process calls). */
export function clientAddress(request: NodeRequest | undefined, trustedProxies: ReadonlySet<string>): string | undefined {
  const peer = request?.socket?.remoteAddress;
  if (peer === undefined) return undefined;
  let client = normalize(peer);
  if (!trustedProxies.has(client)) return client;
  const header = request!.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map(normalize).filter((a) => a !== '');
  for (let i = forwarded.length - 1; i >= 0; i--) {
    client = forwarded[i]!;
    if (!trustedProxies.has(client)) return client;
  }
  return client;
}
