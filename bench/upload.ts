/**
 * `npm run bench:upload`: the gateway's memory while it streams a 25 MB upload to the chat server.
 *
 * The gateway runs alone in a child process (this file with the argument `gateway`), served as
 * `npm start` serves it, in front of an emulator on a loopback port in this process; the client
 * (undici's fetch with a FormData and a Blob, a GraphQL multipart request) runs here too, so the
 * child's resident set size is the gateway's own. The child samples `process.memoryUsage().rss`
 * every 5 ms; each round reports its peak during one upload. The baseline is the child's RSS after
 * a warm-up upload of 1 kB. Three rounds; the table shows each, and the median.
 * `BENCH_UPLOAD_BYTES` sets another file size (the peak should not grow with it: nothing holds the
 * whole file). @default 25_000_000
 */
import { fork } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const FILE_BYTES = Number(process.env.BENCH_UPLOAD_BYTES ?? 25_000_000);
const ROUNDS = 3;
const SAMPLE_MS = 5;
const MIB = 1024 * 1024;

type Message = { url: string } | { rss: number; peak: number };

async function runGateway(zulipUrl: string): Promise<void> {
  const { createGateway } = await import('../src/gateway/yoga.js');
  const { createGatewayServer } = await import('../src/gateway/transport/http.js');
  const gateway = createGateway({ zulipUrl, logging: false, liveDirectory: false });
  const server = createGatewayServer(gateway, { drainMs: 0 });
  const url = await server.listen(0, '127.0.0.1');
  let peak = 0;
  setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), SAMPLE_MS).unref();
  process.on('message', (command: string) => {
    if (command === 'reset') (peak = process.memoryUsage().rss), process.send!({ rss: peak, peak });
    else if (command === 'peak') process.send!({ rss: process.memoryUsage().rss, peak: Math.max(peak, process.memoryUsage().rss) });
    else if (command === 'exit') void server.close().then(() => gateway.dispose()).then(() => process.exit(0));
  });
  process.send!({ url });
}

async function main(): Promise<void> {
  const { createEmulator } = await import('../src/emulator/app.js');
  const { demoUser } = await import('../src/emulator/seed.js');
  const { fetch, FormData } = await import('undici');
  const emulator = createEmulator();
  const upstream = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const child = fork(fileURLToPath(import.meta.url), ['gateway', upstream.url], { execArgv: ['--import', 'tsx'], env: { ...process.env, NODE_ENV: 'production' } });
  const replies: ((m: Message) => void)[] = [];
  child.on('message', (m: Message) => replies.shift()?.(m));
  const next = () => new Promise<Message>((resolve) => replies.push(resolve));
  const ask = (command: string) => {
    const reply = next();
    child.send(command);
    return reply as Promise<{ rss: number; peak: number }>;
  };
  const { url } = (await next()) as { url: string };
  const hamlet = demoUser('hamlet');
  const authorization = `Basic ${Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString('base64')}`;
  const query = 'mutation($file: Upload!) { uploadFile(file: $file) { pathId size } }';
  async function upload(bytes: Uint8Array): Promise<{ pathId: string; size: number }> {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query, variables: { file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'bench.bin');
    const response = await fetch(url, { method: 'POST', headers: { authorization, 'x-graphql-yoga-csrf': '1' }, body: form });
    const body = (await response.json()) as { data?: { uploadFile: { pathId: string; size: number } }; errors?: unknown };
    if (!body.data) throw new Error(`upload failed: ${JSON.stringify(body.errors)}`);
    return body.data.uploadFile;
  }
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  try {
    await upload(randomFillSync(new Uint8Array(1024)));
    const baseline = (await ask('reset')).rss;
    const peaks: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const bytes = randomFillSync(new Uint8Array(FILE_BYTES));
      const start = (await ask('reset')).rss;
      const started = performance.now();
      const file = await upload(bytes);
      const ms = performance.now() - started;
      const { peak } = await ask('peak');
      const stored = emulator.store.uploadedFiles.get(file.pathId);
      if (!stored || sha(stored.bytes) !== sha(bytes)) throw new Error('the stored file differs from the one sent');
      peaks.push(peak);
      console.log(`round ${round}: RSS before ${(start / MIB).toFixed(1)} MiB, peak ${(peak / MIB).toFixed(1)} MiB (+${((peak - start) / MIB).toFixed(1)}), ${ms.toFixed(0)} ms, stored byte-exact`);
      emulator.store.uploadedFiles.delete(file.pathId);
    }
    const median = [...peaks].sort((a, b) => a - b)[Math.floor(peaks.length / 2)]!;
    console.log(`\ngateway RSS while streaming a ${FILE_BYTES / 1e6} MB upload: median peak ${(median / MIB).toFixed(1)} MiB; baseline ${(baseline / MIB).toFixed(1)} MiB (+${((median - baseline) / MIB).toFixed(1)} MiB)`);
  } finally {
    child.send('exit');
    await new Promise((resolve) => child.once('exit', resolve));
    await upstream.close();
    await emulator.close();
  }
}

if (process.argv[2] === 'gateway') await runGateway(process.argv[3]!);
else await main();
