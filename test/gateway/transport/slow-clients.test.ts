/**
 * Slow and greedy clients against the gateway's listener (transport/http.ts), on real loopback
 * sockets: a header drip is cut at the header timeout, lingering after a refused body is bounded
 * by bytes, connections over the cap are refused with a coded 503 while one under it is served,
 * and every refusal node's HTTP server makes carries a JSON body with a code.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/gateway/config/index.js';
import { createGatewayServer, DEFAULT_DRAIN_MS, SERVER_LIMITS, type GatewayServer, type GatewayServerOptions } from '../../../src/gateway/transport/http.js';
import { createGateway, type Gateway } from '../../../src/gateway/yoga.js';
import { until } from '../../helpers/wait.js';

const started: { gateway: Gateway; served: GatewayServer }[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const { gateway, served } of started.splice(0)) {
    await served.close();
    await gateway.dispose();
  }
});

/** A gateway that must make no upstream call, served with `options` on an ephemeral port. */
async function serve(options: GatewayServerOptions, maxRequestBodyBytes?: number): Promise<{ url: string; served: GatewayServer; port: number }> {
  const gateway = createGateway({
    zulipUrl: 'http://upstream.invalid',
    fetch: () => Promise.reject(new Error('no upstream call expected')),
    logging: false,
    liveDirectory: false,
    ...(maxRequestBodyBytes !== undefined && { maxRequestBodyBytes }),
  });
  const served = createGatewayServer(gateway, { drainMs: 0, ...options });
  started.push({ gateway, served });
  const url = await served.listen(0, '127.0.0.1');
  return { url, served, port: Number(new URL(url).port) };
}

/**
 * A raw connection: what arrived, whether and when it closed. It ends its side when the server
 * ends its own, as HTTP clients do, unless `sendOn` (a client that keeps sending regardless).
 */
function raw(port: number, sendOn = false) {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: sendOn });
  sockets.push(socket);
  const received: Buffer[] = [];
  const state = { closed: false, closedAt: 0, connected: false, sent: 0 };
  socket.on('connect', () => (state.connected = true));
  socket.on('data', (data) => received.push(data));
  socket.on('error', () => undefined); // a reset while we still send; what arrived is checked
  socket.on('close', () => ((state.closed = true), (state.closedAt = performance.now())));
  const text = () => Buffer.concat(received).toString('utf8');
  return {
    socket,
    state,
    text,
    status: () => Number(text().slice(9, 12)),
    json: () => JSON.parse(text().slice(text().indexOf('\r\n\r\n') + 4)) as { errors: { message: string; extensions: { code: string } }[] },
    write: (data: string | Buffer) => socket.writable && socket.write(data) && (state.sent += data.length),
  };
}

const codeOf = (connection: ReturnType<typeof raw>) => connection.json().errors[0]!.extensions.code;

describe('slow clients', () => {
  it('has production defaults: headers within 10 s, a whole request within 30 s, idle keep-alive 5 s', () => {
    expect(SERVER_LIMITS).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
  });

  it('takes its bounds from the environment, with the same defaults (README table)', () => {
    expect(loadConfig({ DEMO: '1' }).server).toEqual({ ...SERVER_LIMITS, drainMs: DEFAULT_DRAIN_MS });
    const env = { DEMO: '1', DRAIN_MS: '0', HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '4000', KEEP_ALIVE_TIMEOUT_MS: '65000', LINGER_MS: '100', LINGER_MAX_BYTES: '1000', MAX_CONNECTIONS: '50' };
    expect(loadConfig(env).server).toEqual({ drainMs: 0, headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 65_000, lingerMs: 100, lingerMaxBytes: 1000, maxConnections: 50 });
    expect(() => loadConfig({ DEMO: '1', HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
  });

  it('cuts a client sending its headers one byte per interval at the header timeout, with 408 REQUEST_TIMEOUT', async () => {
    const headersTimeoutMs = 300;
    const { port } = await serve({ headersTimeoutMs, requestTimeoutMs: headersTimeoutMs });
    const head = `GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nhost: x\r\nx-pad: ${'a'.repeat(2000)}\r\n\r\n`;
    const client = raw(port);
    await until(() => client.state.connected, 5000, 'the connection');
    const start = performance.now();
    let offset = 0;
    const drip = setInterval(() => (client.state.closed ? clearInterval(drip) : client.write(head[offset++]!)), 20);
    try {
      await until(() => client.state.closed, 10_000, 'the server to cut the drip');
    } finally {
      clearInterval(drip);
    }
    const elapsed = client.state.closedAt - start;
    expect(elapsed).toBeGreaterThanOrEqual(headersTimeoutMs - 20);
    expect(elapsed).toBeLessThan(headersTimeoutMs * 5);
    expect(offset).toBeLessThan(head.length); // cut long before the headers could have ended
    expect(client.status()).toBe(408);
    expect(codeOf(client)).toBe('REQUEST_TIMEOUT');
  });

  it('cuts a connection that sends nothing at the header timeout', async () => {
    const { served, port } = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 200 });
    const client = raw(port);
    await until(() => served.connections === 1, 5000, 'the connection');
    await until(() => client.state.closed, 5000, 'the idle connection to be cut');
    expect(served.connections).toBe(0);
  });

  it('cuts a request whose body trickles past the request timeout, with 408 REQUEST_TIMEOUT', async () => {
    const { port } = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const client = raw(port);
    client.write('POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"query":');
    const drip = setInterval(() => (client.state.closed ? clearInterval(drip) : client.write(' ')), 20);
    try {
      await until(() => client.state.closed, 10_000, 'the server to cut the body');
    } finally {
      clearInterval(drip);
    }
    expect(client.status()).toBe(408);
    expect(codeOf(client)).toBe('REQUEST_TIMEOUT');
  });

  it('bounds the lingering after a refused body by bytes: a client sending on is cut long before the time bound', async () => {
    const lingerMaxBytes = 200_000;
    const { served, port } = await serve({ lingerMs: 60_000, lingerMaxBytes }, 1000);
    const accepted: Socket[] = [];
    served.server.on('connection', (socket: Socket) => accepted.push(socket));
    const client = raw(port, true);
    const start = performance.now();
    client.write('POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n');
    const piece = Buffer.alloc(16_384, 'x');
    const pump = () => {
      while (!client.state.closed && client.socket.writable && client.write(piece));
      if (!client.state.closed && client.socket.writable) client.socket.once('drain', pump);
    };
    pump();
    await until(() => client.state.closed, 20_000, 'the lingering connection to be cut');
    expect(client.status()).toBe(413);
    expect(codeOf(client)).toBe('REQUEST_ENTITY_TOO_LARGE');
    expect(client.state.closedAt - start).toBeLessThan(10_000); // lingerMs is 60 s
    // Read past the bound only between two looks at the count (loopback moves hundreds of MB a second).
    expect(accepted[0]!.bytesRead).toBeGreaterThan(lingerMaxBytes);
    expect(accepted[0]!.bytesRead).toBeLessThan(lingerMaxBytes + 50_000_000);
  });
});

describe('greedy clients', () => {
  it('refuses connections over the cap with 503 TOO_MANY_CONNECTIONS, while a request under it is served', async () => {
    const maxConnections = 5;
    const { url, served, port } = await serve({ maxConnections });
    const idle = Array.from({ length: maxConnections - 1 }, () => raw(port));
    await until(() => served.connections === maxConnections - 1, 5000, 'the idle connections');
    // Under the cap: answered.
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(await answer.json()).toMatchObject({ data: { __typename: 'Query' } });
    await until(() => served.connections === maxConnections - 1, 5000, 'the answered connection to close');
    // The last slot, taken idle; everything after it is refused, answered and closed.
    idle.push(raw(port));
    await until(() => served.connections === maxConnections, 5000, 'the last idle connection');
    const over = Array.from({ length: 20 }, () => raw(port));
    await until(() => over.every((c) => c.state.closed), 5000, 'the refused connections to close');
    for (const refused of over) {
      expect(refused.status()).toBe(503);
      expect(refused.text()).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(codeOf(refused)).toBe('TOO_MANY_CONNECTIONS');
    }
    expect(served.connections).toBe(maxConnections);
    expect(idle.every((c) => !c.state.closed)).toBe(true);
    // A slot freed: served again.
    idle.pop()!.socket.destroy();
    await until(() => served.connections === maxConnections - 1, 5000, 'the freed slot');
    const again = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(await again.json()).toMatchObject({ data: { __typename: 'Query' } });
  });
});

describe('refusals node makes before yoga', () => {
  it.each([
    ['malformed HTTP', 'NOT HTTP AT ALL\r\n\r\n', 400, 'BAD_REQUEST'],
    ['headers over node\'s size limit', `GET /graphql HTTP/1.1\r\nhost: x\r\nx-pad: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE'],
  ])('answers %s with a JSON body and a code', async (_, request, status, code) => {
    const { port } = await serve({});
    const client = raw(port);
    client.write(request);
    await until(() => client.state.closed, 5000, 'the answer');
    expect(client.status()).toBe(status);
    expect(client.text()).toMatch(/\r\ncontent-type: application\/json/i);
    expect(codeOf(client)).toBe(code);
  });
});
