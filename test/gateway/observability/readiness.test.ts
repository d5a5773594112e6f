/** /health and /readiness through real HTTP, against the emulator on loopback. */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/app.js';
import { opsEndpoints } from '../../../src/gateway/observability/endpoints.js';
import { GatewayMetrics } from '../../../src/gateway/observability/metrics.js';
import { Readiness, type ReadinessOptions } from '../../../src/gateway/observability/readiness.js';
import { useMetrics } from '../../../src/gateway/plugins/metrics.js';
import { startTestServer, type TestServer } from './server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => void (await Promise.all(cleanup.splice(0).map((f) => f()))));

async function setup(options: Partial<ReadinessOptions> = {}) {
  const emulator: Emulator = createEmulator({ seed: 'empty' });
  const upstream = await emulator.listen();
  cleanup.push(() => emulator.close());
  let now = 1_000_000;
  const probes: string[] = [];
  const readiness = new Readiness({
    zulipUrl: upstream.url,
    cacheMs: 5000,
    now: () => now,
    fetch: (url, init) => (probes.push(new URL(url).pathname), fetch(url, init)),
    ...options,
  });
  const metrics = new GatewayMetrics({ processMetrics: false });
  const server: TestServer = await startTestServer({ plugins: [useMetrics(metrics, opsEndpoints({ metrics, readiness }))] });
  cleanup.push(() => server.close());
  const get = async (path: string) => {
    const response = await fetch(`${server.origin}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { emulator, readiness, probes, get, advance: (ms: number) => void (now += ms) };
}

describe('health and readiness', () => {
  it('/health answers 200 without asking the chat server', async () => {
    const { get, probes } = await setup();
    expect(await get('/health')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(probes).toEqual([]);
  });

  it('/readiness is 200 when the chat server answers GET /server_settings, and caches the check', async () => {
    const { get, probes, advance } = await setup();
    expect(await get('/readiness')).toEqual({ status: 200, body: { ready: true, upstream: 'ok' } });
    await get('/readiness');
    expect(probes).toEqual(['/api/v1/server_settings']);
    advance(5000);
    await get('/readiness');
    expect(probes).toHaveLength(2);
  });

  it('shares one check among concurrent probes', async () => {
    const { get, probes } = await setup();
    await Promise.all([get('/readiness'), get('/readiness'), get('/readiness')]);
    expect(probes).toHaveLength(1);
  });

  it('is 503 with a reason when the chat server fails, and recovers after the cache time', async () => {
    const { emulator, get, advance } = await setup();
    emulator.faults.inject('GET /server_settings', { status: 502, times: 1 });
    expect(await get('/readiness')).toEqual({
      status: 503,
      body: { ready: false, reason: 'chat server answered GET /server_settings with HTTP 502', upstream: 'unavailable' },
    });
    advance(5000);
    expect((await get('/readiness')).status).toBe(200);
  });

  it('is 503 when the chat server does not answer in time or is unreachable', async () => {
    const slow = await setup({ probeTimeoutMs: 50 });
    slow.emulator.faults.inject('GET /server_settings', { hang: true });
    expect((await slow.get('/readiness')).body).toMatchObject({ ready: false, reason: 'chat server did not answer GET /server_settings in time' });
    const gone = await setup({ zulipUrl: 'http://127.0.0.1:1' });
    expect((await gone.get('/readiness')).body).toMatchObject({ ready: false, reason: 'chat server unreachable' });
  });

  it('is 503 while shutting down, without asking the chat server', async () => {
    const { readiness, get, probes } = await setup();
    readiness.shutdown();
    expect(await get('/readiness')).toEqual({ status: 503, body: { ready: false, reason: 'shutting down', upstream: 'unchecked' } });
    expect(probes).toEqual([]);
  });

  it('reports the Redis state in cluster mode and is 503 until Redis is ready', async () => {
    let state = 'connecting';
    const { get } = await setup({ redisState: () => state });
    expect(await get('/readiness')).toEqual({ status: 503, body: { ready: false, reason: 'redis connecting', upstream: 'ok', redis: 'connecting' } });
    state = 'ready';
    expect(await get('/readiness')).toEqual({ status: 200, body: { ready: true, upstream: 'ok', redis: 'ready' } });
  });
});
