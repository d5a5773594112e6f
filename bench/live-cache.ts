/**
 * `npm run bench:live-cache`: the gateway's CPU per README dashboard query (100 newest messages
 * with senders, channels and reactions), with the message cache off (every query fetches its page:
 * `GET /messages`, parsed and resolved) and warm (the page comes from the credential's window).
 * Both gateways have the live directory on, so senders and channels cost nothing upstream either way.
 *
 * The emulator runs in a child process on a loopback port, so its CPU is not counted as the
 * gateway's. Queries go in process through yoga's fetch handler (`gateway.fetch`), one after another;
 * each round measures both gateways (process.cpuUsage around a bounded loop) after a warm-up, and
 * the figures are the medians of BENCH_ROUNDS rounds (default 5), alternating which goes first.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuPerCall, median } from './cpu.js';

process.env.NODE_ENV ??= 'production';

const CHILD_FLAG = '--emulator-child';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOP = { count: 300, maxMs: 4000 };
const WARMUP = { count: 200, maxMs: 3000 };

const DASHBOARD = /* GraphQL */ `
  query Dashboard {
    messages(last: 100) {
      edges {
        cursor
        node {
          zulipId timestamp content
          sender { zulipId fullName avatarUrl role }
          channel { zulipId name description }
          reactions { emojiName user { zulipId fullName } }
        }
      }
      pageInfo { hasPreviousPage startCursor }
    }
  }
`;

interface Ready {
  url: string;
  email: string;
  apiKey: string;
}

async function runEmulatorChild(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { seedDashboard } = await import('./dashboard-seed.js');
  const { DEMO_USERS } = await import('../src/emulator/seed.js');
  const emulator = createEmulator({ seed: 'demo' });
  const store = emulator.store;
  const viewer = DEMO_USERS[0]!;
  const viewerId = store.userByEmail(viewer.email)!.user_id;
  seedDashboard(store, viewerId);
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  process.once('disconnect', () => void emulator.close().then(() => process.exit(0)));
  process.send!({ url, email: viewer.email, apiKey: viewer.apiKey } satisfies Ready);
}

async function main(): Promise<void> {
  const { createGateway } = await import('../src/gateway/yoga.js');
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message) => resolve(message as Ready));
  });
  const authorization = `Basic ${Buffer.from(`${ready.email}:${ready.apiKey}`).toString('base64')}`;
  const gateways = {
    off: createGateway({ zulipUrl: ready.url, logging: false, messageCache: false }),
    warm: createGateway({ zulipUrl: ready.url, logging: false }),
  };
  const query = async (gateway: (typeof gateways)['off']): Promise<number> => {
    const response = await gateway.fetch('http://gateway.local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query: DASHBOARD }),
    });
    const body = (await response.json()) as { errors?: unknown; data?: { messages: { edges: unknown[] } }; extensions?: { upstreamRequests?: number } };
    if (body.errors || body.data?.messages.edges.length !== 100) throw new Error(`bad answer: ${JSON.stringify(body).slice(0, 300)}`);
    return body.extensions?.upstreamRequests ?? -1;
  };
  // Until each is warm: the directory loaded, and (cache on) the window stored.
  for (const [name, gateway] of Object.entries(gateways)) {
    const want = name === 'warm' ? 0 : 1;
    const deadline = Date.now() + 15_000;
    while ((await query(gateway)) !== want) {
      if (Date.now() > deadline) throw new Error(`${name}: never reached ${want} upstream call(s) per query (${JSON.stringify({ directories: gateway.directories?.stats().readyDirectories, cache: gateway.directories?.messages?.stats() })})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const results: Record<keyof typeof gateways, number[]> = { off: [], warm: [] };
  const calls: Record<keyof typeof gateways, number> = { off: 0, warm: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const order = (round % 2 === 0 ? ['off', 'warm'] : ['warm', 'off']) as (keyof typeof gateways)[];
    for (const name of order) {
      await cpuPerCall(() => query(gateways[name]), WARMUP);
      let upstream = 0;
      const { cpuMs, count } = await cpuPerCall(async () => (upstream += await query(gateways[name])), LOOP);
      results[name].push(cpuMs);
      calls[name] = upstream / count;
    }
  }
  const fmt = (xs: number[]) => `${median(xs).toFixed(3)} ms (rounds: ${xs.map((x) => x.toFixed(3)).join(', ')})`;
  console.log(`dashboard, cache off (GET /messages each): ${fmt(results.off)}, ${calls.off} upstream call(s) per query`);
  console.log(`dashboard, cache warm:                     ${fmt(results.warm)}, ${calls.warm} upstream call(s) per query`);
  console.log(`saved: ${(100 * (1 - median(results.warm) / median(results.off))).toFixed(0)}% of the gateway's CPU per query`);
  await Promise.all(Object.values(gateways).map((g) => g.dispose()));
  child.disconnect();
}

if (process.argv.includes(CHILD_FLAG)) await runEmulatorChild();
else await main();
