/**
 * `npm run bench:compression`: what compressed answers cost (src/gateway/plugins/compression.ts)
 * and what WebSocket permessage-deflate costs per connection (WS_PERMESSAGE_DEFLATE).
 *
 * 1. CPU per request and bytes of the README's mobile cold start (warm, over multipart HTTP as a
 *    mobile client sends it), in process through `gateway.fetch` against the embedded emulator,
 *    with `Accept-Encoding` identity, gzip and br: rounds alternate between the three after a
 *    warm-up, and the table shows medians (the emulator's CPU for the one upstream call is in every
 *    figure alike, so the differences are the compression's).
 * 2. Gateway RSS per graphql-ws connection with permessage-deflate off and on: the gateway and the
 *    emulator run in a child process; this process opens the connections, each subscribes and
 *    receives one event above the 1 KiB threshold (so that every connection's deflate state
 *    exists), then the child reports its RSS after a GC.
 *
 * Bounded: a fixed number of requests and connections, each loop also by time; loopback only.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpuPerCall, median } from './cpu.js';

process.env.NODE_ENV ??= 'production';
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const COLD_START = [...README.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!).find((q) => /query ColdStart\b/.test(q))!;
const ROUNDS = 3;
const LOOP = { count: 200, maxMs: 3000 };
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 300);

if (process.argv[2] === '--child') await child(process.argv[3] === 'on');
else await main();

async function main(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { DEMO_USERS } = await import('../src/emulator/seed.js');
  const { createGateway } = await import('../src/gateway/yoga.js');
  const emulator = createEmulator();
  const zulipUrl = 'http://emulator.bench';
  const gateway = createGateway({ zulipUrl, fetch: (input, init) => emulator.fetch(new Request(input, init)), logging: false });
  const owner = DEMO_USERS[0]!;
  const authorization = `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}`;
  const bytes: Record<string, number> = {};
  const call = (encoding: string) => async () => {
    const response = await gateway.fetch('http://gateway.bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization, 'accept-encoding': encoding },
      body: JSON.stringify({ query: COLD_START }),
    });
    bytes[encoding] = (await response.arrayBuffer()).byteLength;
  };
  const encodings = ['identity', 'gzip', 'br'];
  for (const e of encodings) await cpuPerCall(call(e), { count: 30, maxMs: 5000 }); // warm-up: directory, cache, JIT
  const rounds: Record<string, number[]> = { identity: [], gzip: [], br: [] };
  for (let r = 0; r < ROUNDS; r++) for (const e of encodings) rounds[e]!.push((await cpuPerCall(call(e), LOOP)).cpuMs);
  await gateway.dispose();
  console.log('\n## Mobile cold start (warm, multipart HTTP, in process), medians of %d rounds\n', ROUNDS);
  console.log('| Accept-Encoding | bytes | CPU per request | over identity |\n|---|---:|---:|---:|');
  const base = median(rounds.identity!);
  for (const e of encodings) {
    const cpu = median(rounds[e]!);
    console.log(`| ${e} | ${bytes[e]!.toLocaleString('en-US')} | ${cpu.toFixed(3)} ms | ${e === 'identity' ? '' : `+${(cpu - base).toFixed(3)} ms`} |`);
  }

  console.log('\n## graphql-ws: gateway RSS per connection (%d connections, each received one 2 KB event)\n', CONNECTIONS);
  console.log('| permessage-deflate | RSS before | RSS after | per connection |\n|---|---:|---:|---:|');
  for (const on of [false, true]) {
    const { before, after } = await measureWs(on, authorization);
    console.log(`| ${on ? 'on' : 'off'} | ${(before / 1e6).toFixed(1)} MB | ${(after / 1e6).toFixed(1)} MB | ${((after - before) / CONNECTIONS / 1000).toFixed(1)} KB |`);
  }
  console.log(`\nload average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
}

/** Opens the connections against a child gateway; its RSS before and after. */
async function measureWs(on: boolean, authorization: string): Promise<{ before: number; after: number }> {
  const { createClient } = await import('graphql-ws');
  const { WebSocket } = await import('ws');
  const proc = fork(new URL(import.meta.url).pathname, ['--child', on ? 'on' : 'off'], { execArgv: ['--import', 'tsx', '--expose-gc'] });
  const ask = (what: string) => new Promise<{ url?: string; rss?: number }>((resolve) => (proc.once('message', resolve), proc.send(what)));
  try {
    const { url } = await new Promise<{ url: string }>((resolve) => proc.once('message', resolve as never));
    const before = (await ask('rss')).rss!;
    const received: Promise<void>[] = [];
    const clients = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const client = createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams: { authorization }, lazy: false, retryAttempts: 0 });
      clients.push(client);
      received.push(
        new Promise<void>((resolve, reject) => {
          client.subscribe({ query: 'subscription { messages(narrow: { channelName: "general" }) { ... on MessageEvent { message { id content } } } }' }, { next: () => resolve(), error: reject, complete: () => {} });
        }),
      );
    }
    await waitFor(() => ask('subscribers').then((m) => (m.rss ?? 0) >= CONNECTIONS), 30_000);
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query: 'mutation ($c: String!) { sendMessage(channelName: "general", topic: "bench", content: $c) { messageId } }', variables: { c: 'x'.repeat(2000) } }),
    });
    await Promise.race([Promise.all(received), new Promise((_, reject) => setTimeout(() => reject(new Error('events not received in 30 s')), 30_000))]);
    const after = (await ask('rss')).rss!;
    for (const client of clients) await client.dispose();
    return { before, after };
  } finally {
    proc.kill();
  }
}

async function waitFor(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The child: emulator and gateway on loopback; answers `rss` and `subscribers` over IPC. */
async function child(deflate: boolean): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { createGateway } = await import('../src/gateway/yoga.js');
  const { createGatewayServer } = await import('../src/gateway/transport/http.js');
  const emulator = createEmulator();
  const gateway = createGateway({ zulipUrl: 'http://emulator.bench', fetch: (input, init) => emulator.fetch(new Request(input, init)), logging: false, maxSubscriptionsPerCredential: CONNECTIONS + 10 });
  const served = createGatewayServer(gateway, { ws: { perMessageDeflate: deflate }, maxConnections: CONNECTIONS + 100 });
  const url = await served.listen(0, '127.0.0.1');
  process.on('message', (what) => {
    if (what === 'subscribers') return void process.send!({ rss: gateway.graphqlSubscriptions.clients });
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ rss: process.memoryUsage().rss });
  });
  process.send!({ url });
}
