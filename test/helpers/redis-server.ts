/**
 * A real `redis-server` on a free loopback port, with no persistence in a temporary directory:
 * ready once it answers PING, stopped by its PID, restartable on the same port. Free of vitest,
 * so benchmarks use it too; tests use it through redis.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.js';

/** The server binary: `redis-server` from the PATH, or the one REDIS_SERVER names. */
const REDIS_SERVER = process.env.REDIS_SERVER || 'redis-server';

/** Whether `redis-server` can be run here. */
export const redisServerFound: boolean = spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** True once something on the port answers a PING like Redis (PONG, or NOAUTH with a password). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}

export interface RedisServerOptions {
  /** Sets `requirepass`. */
  password?: string;
}

export class RedisServer {
  #process: ChildProcess | undefined;
  #dir: string | undefined;
  /** While stopped: a listener on the port that drops every connection, so no other process takes the port. */
  #placeholder: Server | undefined;
  port = 0;

  constructor(private readonly options: RedisServerOptions = {}) {}

  /** `redis://` URL with the password, when there is one. */
  get url(): string {
    const auth = this.options.password ? `:${encodeURIComponent(this.options.password)}@` : '';
    return `redis://${auth}127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  /** Starts (or restarts, on the same port) an empty server; resolves once it answers PING. */
  async start(withinMs = 10_000): Promise<void> {
    if (this.#process) return;
    this.port ||= await freePort();
    await this.#release();
    this.#dir ??= mkdtempSync(join(tmpdir(), 'chatgraph-redis-'));
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir];
    if (this.options.password) args.push('--requirepass', this.options.password);
    const child = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    this.#process = child;
    let exited = false;
    // A test process that dies (or is interrupted) must not leave its server running.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => ((exited = true), process.off('exit', orphanGuard)));
    await until(
      async () => {
        if (exited) throw new Error(`redis-server exited at start-up (port ${this.port})`);
        return answersPing(this.port);
      },
      withinMs,
      `redis-server to answer PING (port ${this.port})`,
      20,
    );
  }

  /** Stops the server by its PID (SIGKILL by default: an abrupt loss of every key and connection). */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#process;
    if (!child) return;
    this.#process = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(child.pid!, signal);
    await exited;
    // Hold the port while down: a test restarting on it must not find another process's server there.
    const placeholder = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => {
      placeholder.once('error', () => resolve()); // taken meanwhile: nothing to hold
      placeholder.listen(this.port, '127.0.0.1', () => ((this.#placeholder = placeholder), resolve()));
    });
  }

  async #release(): Promise<void> {
    const placeholder = this.#placeholder;
    this.#placeholder = undefined;
    if (placeholder) await new Promise<void>((resolve) => placeholder.close(() => resolve()));
  }

  /** Stops the server and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    await this.#release();
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }
}

/** The shared wait helper, under the name the cluster tests use. */
export { until as waitUntil } from './wait.js';
