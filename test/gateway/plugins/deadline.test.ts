/**
 * One deadline per operation (plugins/deadline.ts): against a chat server that accepts connections
 * and never answers, a mutation of three serial upstream calls fails with UPSTREAM_TIMEOUT after
 * about the deadline, not three times it, and the calls after the deadline are never sent. The
 * gateway is served as `npm start` serves it (transport/http.ts).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../../../src/emulator/seed.js';
import { createGatewayServer, type GatewayServer } from '../../../src/gateway/transport/http.js';
import { createGateway, type Gateway } from '../../../src/gateway/yoga.js';
import { basicAuth } from '../../helpers/harness.js';

const DEADLINE_MS = 500;

let hung: Server;
const received: IncomingMessage[] = [];
let gateway: Gateway;
let served: GatewayServer;
let url: string;

beforeAll(async () => {
  hung = createServer((request) => void received.push(request)); // never answers
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const { port } = hung.address() as { port: number };
  // Each call alone may take as long as the operation: only the shared deadline can stop the third.
  gateway = createGateway({
    zulipUrl: `http://127.0.0.1:${port}`,
    upstreamDeadlineMs: DEADLINE_MS,
    logging: false,
    liveDirectory: false,
  });
  served = createGatewayServer(gateway, { drainMs: 0 });
  url = await served.listen(0, '127.0.0.1');
  // A first request pays for warming the server up (no upstream call), not the measured one.
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
});

afterAll(async () => {
  await served.close();
  await gateway.dispose();
  hung.closeAllConnections();
  await new Promise((resolve) => hung.close(resolve));
});

describe('the operation deadline', () => {
  it('ends every upstream call of an operation within one deadline', async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: basicAuth(DEMO_USERS[0]!) },
      // Mutation fields run one after the other, each with its own upstream call.
      body: JSON.stringify({ query: 'mutation { a: archiveChannel(id: 1) { zulipId } b: archiveChannel(id: 2) { zulipId } c: archiveChannel(id: 3) { zulipId } }' }),
    });
    const elapsed = performance.now() - started;
    const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.length).toBeGreaterThanOrEqual(1);
    expect(body.errors!.every((e) => e.extensions?.code === 'UPSTREAM_TIMEOUT')).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS * 0.9);
    expect(elapsed).toBeLessThan(DEADLINE_MS * 2.5); // three deadlines without the shared one
    // Only the first call was sent: the others were due after the deadline.
    expect(received).toHaveLength(1);
  });
});
