import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { NetworkError, ZulipConnection } from '../../../src/zulip/index.js';
import { FAST_RETRY, IAGO, failure } from './shared.js';
import { json } from '../../../src/zulip/params.js';

describe('default undici fetch against a real server on 127.0.0.1', () => {
  const servers: Server[] = [];
  const connections: ZulipConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function open(baseUrl: string): ZulipConnection {
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, retry: { ...FAST_RETRY, maxRetries: 0 } });
    connections.push(connection);
    return connection;
  }

  test('a round-trip carries auth and parses the body', async () => {
    const baseUrl = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ result: 'success', msg: '', path: req.url, auth: req.headers.authorization }));
    });
    const body = await open(baseUrl).request<{ path: string; auth: string }>('get-users', 'GET', 'users', { client_gravatar: json(false) });
    expect(body.path).toBe('/api/v1/users?client_gravatar=false');
    expect(body.auth).toBe(`Basic ${Buffer.from(`${IAGO.email}:${IAGO.apiKey}`).toString('base64')}`);
  });

  test('a connection reset by the server is NetworkError reset', async () => {
    const baseUrl = await serve((req) => req.socket.destroy());
    const error = (await failure(open(baseUrl).request('get-users', 'GET', 'users'))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('reset');
    expect(error.message).not.toContain(baseUrl);
  });

  test('a server that never answers hits the per-call timeout', async () => {
    const baseUrl = await serve(() => undefined);
    const started = performance.now();
    const error = (await failure(open(baseUrl).request('get-events', 'GET', 'events', {}, { deadlineMs: 50 }))) as NetworkError;
    expect(error.reason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('a server that never answers costs one deadline in all, not one per attempt', async () => {
    let requests = 0;
    const baseUrl = await serve(() => {
      requests++;
    });
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, deadlineMs: 300, retry: FAST_RETRY });
    connections.push(connection);
    const started = performance.now();
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as NetworkError;
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(900); // three attempts of 300 ms each would take 900 ms or more
    expect(requests).toBe(1);
  });

  test('retries fit inside the deadline: a 503, then a server that hangs, ends at the deadline', async () => {
    let requests = 0;
    const baseUrl = await serve((_req, res) => {
      requests++;
      if (requests === 1) res.writeHead(503).end('Service Unavailable');
    });
    const connection = new ZulipConnection({ baseUrl, credentials: IAGO, deadlineMs: 300, retry: FAST_RETRY });
    connections.push(connection);
    const started = performance.now();
    const error = (await failure(connection.request('get-users', 'GET', 'users'))) as NetworkError;
    const elapsed = performance.now() - started;
    expect(error.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(900);
    expect(requests).toBe(2);
  });

  test('a refused connection is NetworkError connect', async () => {
    const baseUrl = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = (await failure(open(baseUrl).request('get-users', 'GET', 'users'))) as NetworkError;
    expect(error.reason).toBe('connect');
    expect(error.causeCode).toBe('ECONNREFUSED');
  });

  test('close() destroys the agent shared with withCredentials copies', async () => {
    const baseUrl = await serve((_req, res) => res.end('{"result":"success","msg":""}'));
    const connection = open(baseUrl);
    const copy = connection.withCredentials(undefined);
    await copy.request('get-server-settings', 'GET', 'server_settings');
    await connection.close();
    const error = (await failure(copy.request('get-server-settings', 'GET', 'server_settings'))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
  });
});
