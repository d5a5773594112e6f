/**
 * The entry point: `start()` in demo mode (DEMO=1 without ZULIP_URL) and with default credentials
 * the chat server refuses, then real processes: `npm start` and `npm run emulator` stopped with
 * SIGTERM sent to the npm process (no orphan left), the refusals of a wrong start (production
 * without ZULIP_URL, a busy port: one line each, exit non-zero), `--help` and a bad configuration
 * (exit 2 at once), and the production build (`npm run build`, then `node` on the compiled entry
 * with no tsx, in demo mode and against an emulator, stdout JSON lines only). Everything on
 * 127.0.0.1. `npm run start:prod` is stopped the same way in test/deploy.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator/app.js';
import { VARIABLES } from '../src/gateway/config/index.js';
import { start } from '../src/main.js';
import { memoryDestination } from './gateway/observability/server.js';
import { alive, processTree } from './helpers/process-tree.js';
import { until } from './helpers/wait.js';
import { rawSocket } from './helpers/ws-client.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('start', () => {
  it('serves the demo organization and prints a working credential and curl example', async () => {
    const lines: string[] = [];
    const started = await start({ DEMO: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }, (line) => lines.push(line));
    try {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      const authorization = lines.map((l) => /^\s+Authorization: (Basic \S+)$/.exec(l)?.[1]).find(Boolean);
      expect(authorization).toBeDefined();
      expect(lines.some((l) => l.includes(`curl -s ${started.url}`) && l.includes(authorization!))).toBe(true);

      const response = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: authorization! },
        body: JSON.stringify({ query: '{ serverSettings { realmName featureLevel } }' }),
      });
      const body = await response.json();
      expect(body.errors).toBeUndefined();
      expect(body.data.serverSettings.realmName).toBeTruthy();

      // The same server refuses possible cross-site form posts, and upgrades graphql-ws sockets.
      const form = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query=%7B__typename%7D',
      });
      expect(form.status).toBe(403);
      expect((await form.json()).errors[0].extensions.code).toBe('CSRF_REFUSED');
      const socket = await rawSocket(started.url.replace(/^http/, 'ws'));
      socket.send({ type: 'connection_init', payload: { authorization } });
      await socket.waitForMessage((m) => m.type === 'connection_ack');
      socket.close();

      // Demo mode serves GraphiQL (even with NODE_ENV=production) with the demo credential pre-filled.
      const page = await (await fetch(started.url, { headers: { accept: 'text/html' } })).text();
      expect(page).toContain('<title>chatgraph</title>');
      expect(page).toContain(authorization!);
    } finally {
      await started.close();
    }
    await expect(fetch(started.url, { method: 'POST' })).rejects.toThrow();
  });

  it.each([
    [{ ZULIP_URL: 'http://127.0.0.1:9', ZULIP_EMAIL: 'a@b.c' }, /ZULIP_EMAIL and ZULIP_API_KEY/],
    [{ DEMO: '1', PORT: 'eighty' }, /PORT must be an integer from 0 to 65535/],
    [{ DEMO: '1', MAX_BODY_BYTES: '-1' }, /MAX_BODY_BYTES must be an integer/],
    [{}, /ZULIP_URL is not set: .* DEMO=1 \(npm start sets it\)/],
    [{ ZULIP_URL: 'notaurl' }, /ZULIP_URL must be an http\(s\) URL/],
  ])('refuses an inconsistent configuration %o', async (env, message) => {
    await expect(start(env, () => undefined)).rejects.toThrow(message);
  });

  it('checks default credentials once upstream: refused ones are logged once at error, and readiness is 503 with the reason', async () => {
    const emulator = createEmulator({ seed: 'demo' });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    const logs = memoryDestination();
    const owner = (await import('../src/emulator/seed.js')).DEMO_USERS[0]!;
    const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', ZULIP_EMAIL: owner.email, ZULIP_API_KEY: 'not-the-key' }, () => undefined, { logDestination: logs });
    try {
      const origin = new URL(started.url).origin;
      for (let probe = 0; probe < 2; probe++) {
        const ready = await fetch(`${origin}/readiness`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toEqual({
          ready: false,
          upstream: 'ok',
          credentials: 'refused',
          reason: 'ZULIP_EMAIL/ZULIP_API_KEY refused by the chat server (HTTP 401 INVALID_API_KEY): requests without an Authorization header will fail',
        });
      }
      expect(emulator.requests.filter((r) => r.path === '/users/me')).toHaveLength(1);
      const errors = logs.lines.filter((l) => l.level === 'error');
      expect(errors).toEqual([expect.objectContaining({ variable: 'ZULIP_API_KEY', msg: expect.stringContaining('ZULIP_EMAIL/ZULIP_API_KEY refused') })]);
      expect(JSON.stringify(logs.lines)).not.toContain('not-the-key');
    } finally {
      await started.close();
      await emulator.close();
    }
  });

  it('is ready with default credentials the chat server accepts, and logs an old variable name once at warn', async () => {
    const emulator = createEmulator({ seed: 'demo' });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    const logs = memoryDestination();
    const owner = (await import('../src/emulator/seed.js')).DEMO_USERS[0]!;
    const started = await start({ ZULIP_URL: zulipUrl, PORT: '0', ZULIP_EMAIL: owner.email, ZULIP_API_KEY: owner.apiKey, LIVE_CACHE: 'on' }, () => undefined, { logDestination: logs });
    try {
      const ready = await fetch(`${new URL(started.url).origin}/readiness`);
      expect(await ready.json()).toEqual({ ready: true, upstream: 'ok' });
      expect(emulator.requests.filter((r) => r.path === '/users/me')).toHaveLength(1);
      expect(logs.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['LIVE_CACHE is deprecated and will be removed in the next release: rename it MESSAGE_CACHE.']);
    } finally {
      await started.close();
      await emulator.close();
    }
  });
});

/** Spawns a command, collecting its output; resolves the GraphQL URL once it prints it. */
function spawnGateway(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (chunk) => ((output += chunk), (stdout += chunk)));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = (async () => {
    await until(() => /GraphQL on (http:\S+)/.test(output) || child.exitCode !== null, 60_000, 'the gateway to print its URL');
    const match = /GraphQL on (http:\S+)/.exec(output);
    if (!match) throw new Error(`the gateway did not start:\n${output}`);
    return match[1]!;
  })();
  return { child, url, exited, output: () => output, stdout: () => stdout };
}

const spawned: ChildProcess[] = [];
afterAll(() => {
  for (const child of spawned) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('npm start as a process', () => {
  it('stops on SIGTERM sent to the npm process: the port closes, exit 0, no process left behind', { timeout: 90_000 }, async () => {
    const gateway = spawnGateway('npm', ['start', '--silent'], { PORT: '0', LOG_LEVEL: 'warn' });
    spawned.push(gateway.child);
    const url = await gateway.url;
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    const tree = processTree(gateway.child.pid!);
    expect(tree.length).toBeGreaterThan(1); // npm and the gateway under it

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    await until(() => tree.every((pid) => !alive(pid)), 15_000, 'every process of the tree to exit');
    await expect(fetch(`${origin}/health`)).rejects.toThrow();
    expect(gateway.output()).toContain('SIGTERM, shutting down');
  });

  it('stops `npm run emulator` on SIGTERM sent to the npm process, with no process left behind', { timeout: 60_000 }, async () => {
    const child = spawn('npm', ['run', 'emulator', '--silent'], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => /listening on (http:\S+)/.test(output) || child.exitCode !== null, 30_000, 'the emulator to listen');
    const url = /listening on (http:\S+)/.exec(output)![1]!;
    expect((await fetch(`${url}/api/v1/server_settings`)).status).toBe(200);
    const tree = processTree(child.pid!);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await until(() => tree.every((pid) => !alive(pid)), 15_000, 'every process of the tree to exit');
  });

  it('refuses production without ZULIP_URL: exit 2, one line that says how to run the demo, no credential', { timeout: 60_000 }, () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 45_000, env: { PATH: process.env.PATH!, PORT: '0' } });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('chatgraph: ZULIP_URL is not set: set it to your Zulip server (e.g. https://chat.example.com), or run the demo organization with DEMO=1 (npm start sets it). (--help lists every variable)\n');
    expect(result.stderr).not.toMatch(/Authorization|Basic /);
  });

  it.each([
    [{ ZULIP_URL: 'https://chat.example.com/api/v1' }, /^chatgraph: ZULIP_URL must be the server's address without the API path: set it to "https:\/\/chat\.example\.com"/],
    [{ DEMO: '1', NODE_ENV: 'prod' }, /^chatgraph: NODE_ENV must be one of production, development, test, got "prod"\./],
  ])('refuses %o with one line on stderr and exit 2', { timeout: 60_000 }, (env, line) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 45_000, env: { PATH: process.env.PATH!, PORT: '0', ...env } });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(line);
  });

  it('names a busy port in one line, once, and exits 1', { timeout: 60_000 }, async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 45_000, env: { PATH: process.env.PATH!, DEMO: '1', PORT: String(port) } });
      expect(result.status).toBe(1);
      const lines = result.stderr.split('\n').filter(Boolean);
      expect(lines).toEqual([`chatgraph: port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop what holds it, or set PORT (or METRICS_PORT) to a free port`]);
      expect(result.stdout.split('\n').filter(Boolean).every((l) => l.startsWith('{'))).toBe(true);
    } finally {
      holder.close();
    }
  });

  it('prints the variables with `npm start -- --help`, and exits 2 at once on a bad configuration', { timeout: 60_000 }, () => {
    const help = spawnSync('npm', ['start', '--silent', '--', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 45_000 });
    expect(help.status).toBe(0);
    for (const variable of VARIABLES) expect(help.stdout).toContain(variable.name);

    const bad = spawnSync('npm', ['start', '--silent'], { cwd: ROOT, encoding: 'utf8', timeout: 45_000, env: { ...process.env, ZULIP_URL: 'notaurl', UPSTREAM_DEADLINE_MS: '-1' } });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('ZULIP_URL must be an http(s) URL');
    expect(bad.stderr).toContain('UPSTREAM_DEADLINE_MS must be an integer');
    expect(bad.stdout).not.toContain('GraphQL on');
  });
});

describe('the production build', () => {
  // Inside the repository, so that the compiled files resolve node_modules as dist/ does.
  const outDir = 'node_modules/.cache/chatgraph-build-test';
  afterAll(() => rmSync(`${ROOT}/${outDir}`, { recursive: true, force: true }));

  it('compiles with `npm run build` and runs with node alone, in demo mode and against a chat server', { timeout: 240_000 }, async () => {
    const build = spawnSync('npm', ['run', 'build', '--silent', '--', '--outDir', outDir], { cwd: ROOT, encoding: 'utf8', timeout: 200_000 });
    expect(build.stderr + build.stdout).not.toMatch(/error TS/);
    expect(build.status).toBe(0);
    const entry = `${ROOT}/${outDir}/main.js`;
    expect(existsSync(entry)).toBe(true);
    // tsx is a development dependency: nothing compiled refers to it.
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
    expect(pkg.scripts['start:prod']).toBe('exec node dist/main.js');

    // Demo mode: the embedded emulator.
    const demo = spawnGateway(process.execPath, [entry], { DEMO: '1', PORT: '0', LOG_LEVEL: 'warn' });
    spawned.push(demo.child);
    const demoUrl = await demo.url;
    await until(() => /Authorization: Basic \S+\n/.test(demo.output()), 10_000, 'the demo credential');
    const authorization = /Authorization: (Basic \S+)/.exec(demo.output())![1]!;
    const answer = await fetch(demoUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ query: '{ messages(last: 1) { edges { cursor } } }' }) });
    expect((await answer.json()).data.messages.edges).toHaveLength(1);
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(0);

    // Against a chat server (the emulator on a loopback port).
    const emulator = createEmulator({ seed: 'demo' });
    const { url: zulipUrl } = await emulator.listen({ host: '127.0.0.1', port: 0 });
    try {
      const real = spawnGateway(process.execPath, [entry], { PORT: '0', ZULIP_URL: zulipUrl, LOG_LEVEL: 'info', NODE_ENV: 'production' });
      spawned.push(real.child);
      const url = await real.url;
      const ready = await fetch(`${new URL(url).origin}/readiness`);
      expect(await ready.json()).toEqual({ ready: true, upstream: 'ok' });
      const { DEMO_USERS } = await import('../src/emulator/seed.js');
      const owner = DEMO_USERS[0]!;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'built-1', authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64')}` },
        body: JSON.stringify({ query: '{ messages(last: 1) { edges { cursor } } }' }),
      });
      expect((await response.json()).errors).toBeUndefined();
      expect(emulator.requests.some((r) => r.path === '/messages' && r.requestId === 'built-1')).toBe(true);
      real.child.kill('SIGTERM');
      expect(await real.exited).toBe(0);
      const logLines = real.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logLines.some((l) => l.msg === 'request' && l.requestId === 'built-1')).toBe(true);
      expect(real.output()).not.toContain(owner.apiKey);
      // In production stdout is for log collectors: JSON lines only (people's lines go to stderr).
      const stdoutLines = real.stdout().split('\n').filter(Boolean);
      expect(stdoutLines.length).toBeGreaterThanOrEqual(2);
      for (const line of stdoutLines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    } finally {
      await emulator.close();
    }
  });
});
