/**
 * No silent degradation (issue 19): a register answer without a key the live directory needs
 * leaves the directory unloaded, and that is logged once per credential and kind of failure
 * (naming the missing keys, never the credential), counted in
 * chatgraph_live_directory_load_failures_total{reason}, and reported by /readiness, still 200.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../../src/emulator/app.js';
import { demoUser } from '../../../src/emulator/seed.js';
import { opsEndpoints } from '../../../src/gateway/observability/endpoints.js';
import { createLogger } from '../../../src/gateway/observability/logger.js';
import { GatewayMetrics } from '../../../src/gateway/observability/metrics.js';
import { Readiness } from '../../../src/gateway/observability/readiness.js';
import { createGateway, type Gateway } from '../../../src/gateway/yoga.js';
import type { FetchLike } from '../../../src/zulip/connection.js';
import { basicAuth } from '../../helpers/harness.js';
import { until } from '../../helpers/wait.js';
import { memoryDestination } from '../observability/server.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => void (await Promise.all(cleanup.splice(0).map((f) => f()))));

/** The emulator, with `subscriptions` stripped from every register answer (a proxy, a server variant). */
function strippingFetch(): { fetch: FetchLike; registers: () => number; zulipUrl: string } {
  const emulator = createEmulator({ seed: 'demo' });
  cleanup.push(() => emulator.close());
  let registers = 0;
  const fetch: FetchLike = async (input, init) => {
    const response = await emulator.fetch(new Request(input, init));
    if (!new URL(input instanceof Request ? input.url : input).pathname.endsWith('/register')) return response;
    registers++;
    const body = (await response.json()) as Record<string, unknown>;
    delete body.subscriptions;
    return new Response(JSON.stringify(body), { status: response.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, registers: () => registers, zulipUrl: 'http://zulip.localhost' };
}

async function ask(gateway: Gateway, login: string, query: string) {
  const response = await gateway.fetch('http://gateway/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(demoUser(login)) },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

describe('a live directory that cannot load', () => {
  it('is warned about once, counted and reported by readiness (still 200), and lookups still answer', async () => {
    const upstream = strippingFetch();
    const destination = memoryDestination();
    const logger = createLogger({ level: 'info', destination });
    const metrics = new GatewayMetrics({ processMetrics: false });
    let gateway: Gateway | undefined;
    const readiness = new Readiness({
      zulipUrl: upstream.zulipUrl,
      fetch: (url, init) => upstream.fetch(url, init),
      degradations: () => gateway?.directories?.loadFailures.detail() ?? [],
    });
    gateway = createGateway({
      zulipUrl: upstream.zulipUrl,
      fetch: upstream.fetch,
      logger,
      metrics,
      liveDirectory: true,
      endpoints: opsEndpoints({ metrics, readiness }),
    });
    cleanup.push(async () => gateway.dispose());
    const warnings = () => destination.lines.filter((line) => line.msg === 'live directory not loaded: lookups of this credential go upstream');

    const first = await ask(gateway, 'hamlet', '{ me { user { fullName } } }');
    expect(first.data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });
    await until(() => warnings().length === 1, 5000, 'the warning');
    // The directory is asked again on later lookups (each one re-registers nothing new): still one warning.
    for (let i = 0; i < 3; i++) expect((await ask(gateway, 'hamlet', '{ me { user { fullName } } }')).data).toEqual({ me: { user: { fullName: 'King Hamlet' } } });
    expect(warnings()).toHaveLength(1);
    const warning = warnings()[0]!;
    expect(warning).toMatchObject({ level: 'warn', reason: 'missing_keys', missingKeys: ['subscriptions'] });
    expect(warning.credential).toMatch(/^[0-9a-f]{12}$/);
    const line = JSON.stringify(warning);
    expect(line).not.toContain(demoUser('hamlet').email);
    expect(line).not.toContain(demoUser('hamlet').apiKey);
    expect(gateway.directories!.stats().loads).toBe(0);

    const scraped = await (await gateway.fetch('http://gateway/metrics')).text();
    expect(scraped).toContain('chatgraph_live_directory_load_failures_total{reason="missing_keys"} 1');

    const probe = await gateway.fetch('http://gateway/readiness');
    expect(probe.status).toBe(200);
    expect(await probe.json()).toMatchObject({
      ready: true,
      detail: ['live directory not loaded for 1 credential (register answers lack subscriptions): lookups go upstream'],
    });

    // Another credential is another warning, and one more in the count.
    await ask(gateway, 'othello', '{ me { user { fullName } } }');
    await until(() => warnings().length === 2, 5000, "othello's warning");
    expect(warnings()[1]!.credential).not.toBe(warning.credential);
    expect(await (await gateway.fetch('http://gateway/readiness')).json()).toMatchObject({
      detail: ['live directory not loaded for 2 credentials (register answers lack subscriptions): lookups go upstream'],
    });
  });
});
