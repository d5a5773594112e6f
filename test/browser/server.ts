/**
 * What the browser test drives: `npm start` in demo mode, spawned as a child process on a free
 * loopback port (PORT=0), exactly as a developer runs it; or CHATGRAPH_URL (an already running
 * gateway, e.g. http://127.0.0.1:4000/graphql, with CHATGRAPH_AUTHORIZATION for its credential).
 * The URL and the demo Authorization header are read from the banner `npm start` prints.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BrowserTarget {
  /** The GraphQL endpoint (GraphiQL in a browser). */
  url: string;
  /** The demo credential `npm start` printed. */
  authorization: string;
  close(): Promise<void>;
}

export async function browserTarget(): Promise<BrowserTarget> {
  if (process.env.CHATGRAPH_URL) {
    return { url: process.env.CHATGRAPH_URL, authorization: process.env.CHATGRAPH_AUTHORIZATION ?? '', close: async () => {} };
  }
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await until(() => /Authorization: Basic \S+\n/.test(output) || child.exitCode !== null, 60_000, '`npm start` to print its banner');
  } catch (error) {
    await close();
    throw error;
  }
  const url = /GraphQL on (http:\S+)/.exec(output)?.[1];
  const authorization = /Authorization: (Basic \S+)/.exec(output)?.[1];
  if (!url || !authorization) {
    await close();
    throw new Error(`npm start did not start:\n${output}`);
  }
  return { url, authorization, close };
}
