/**
 * ZULIP_URL pointing at a web server that is not the chat server (issue 19): its HTML 404 is
 * UPSTREAM_BAD_RESPONSE with a hint, logged once per gateway, and /readiness is 503.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { opsEndpoints } from '../../src/gateway/observability/endpoints.js';
import { createLogger } from '../../src/gateway/observability/logger.js';
import { Readiness } from '../../src/gateway/observability/readiness.js';
import { createGateway } from '../../src/gateway/yoga.js';
import { memoryDestination } from './observability/server.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => void (await Promise.all(cleanup.splice(0).map((f) => f()))));

/** A web server answering every path with an HTML 404, as nginx does for a wrong origin. */
async function htmlServer(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>404 Not Found</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('an upstream that is not the chat server', () => {
  it('fails { me { id } } with UPSTREAM_BAD_RESPONSE and a hint, logged once, and readiness is 503', async () => {
    const upstream = await htmlServer();
    const destination = memoryDestination();
    const logger = createLogger({ level: 'debug', destination });
    const readiness = new Readiness({ zulipUrl: upstream.url });
    const gateway = createGateway({
      zulipUrl: upstream.url,
      logger,
      liveDirectory: false,
      endpoints: opsEndpoints({ readiness }),
    });
    cleanup.push(async () => gateway.dispose());
    const ask = async () => {
      const response = await gateway.fetch('http://gateway/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('a@example.com:key').toString('base64')}` },
        body: JSON.stringify({ query: '{ me { zulipId } }' }),
      });
      return (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
    };
    for (let i = 0; i < 3; i++) {
      const { errors } = await ask();
      expect(errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        httpStatus: 404,
        hint: "is ZULIP_URL the chat server's origin?",
      });
      expect(errors?.[0]?.extensions?.code).not.toBe('NOT_FOUND');
    }
    const logged = destination.lines.filter((line) => line.hint !== undefined);
    expect(logged.map((line) => line.level)).toEqual(['error', 'debug', 'debug']);
    expect(logged[0]!.msg).toContain("is ZULIP_URL the chat server's origin?");

    const probe = await gateway.fetch('http://gateway/readiness');
    expect(probe.status).toBe(503);
    expect(await probe.json()).toMatchObject({
      ready: false,
      upstream: 'unavailable',
      reason: "chat server answered GET /server_settings with HTTP 404 (is ZULIP_URL the chat server's origin?)",
    });
  });

  it('readiness is 503 for a JSON 200 that is not the API (no feature level)', async () => {
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"success"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const readiness = new Readiness({ zulipUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    expect(await readiness.check()).toMatchObject({ ready: false, reason: expect.stringContaining('not a Zulip response') });
  });
});
