/**
 * The emulator side of `npm run bench:gateway`: a child process that serves the emulator on a
 * loopback port (so its CPU is not counted as the gateway's), seeded so that a dashboard page has
 * many distinct senders and channels, and answers the bench process over IPC (latency faults, its
 * own CPU usage, requests counted, load driven at a gateway).
 */
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';
import { checkGraphQL } from './clients.js';

/** Load the emulator process drives against a gateway (BENCH_MODE=transport), so that none of the client's CPU is counted as the gateway's. */
export interface Drive {
  url: string;
  query: string;
  variables: Record<string, unknown>;
  count: number;
  concurrency: number;
}

export type ToChild =
  | { id: number; type: 'latency'; ms: number }
  | { id: number; type: 'cpu' }
  | { id: number; type: 'requests' }
  | { id: number; type: 'exit' }
  | ({ id: number; type: 'drive' } & Drive);
export type FromChild =
  | { type: 'ready'; url: string; email: string; apiKey: string; messageId: number; userId: number }
  | { id: number; type: 'ok' }
  | { id: number; type: 'cpu'; usage: NodeJS.CpuUsage }
  | { id: number; type: 'requests'; count: number }
  | { id: number; type: 'driven'; count: number };

// ---- the emulator process ----------------------------------------------------------------------------

export async function runEmulatorChild(): Promise<void> {
  const { createEmulator } = await import('../../src/emulator/app.js');
  const { seedDashboard } = await import('../dashboard-seed.js');
  const { DEMO_USERS } = await import('../../src/emulator/seed.js');
  const emulator = createEmulator({ seed: 'demo' });
  const store = emulator.store;
  const viewer = DEMO_USERS[0]!;
  const viewerId = store.userByEmail(viewer.email)!.user_id;
  const { senderIds, lastMessageId } = seedDashboard(store, viewerId);
  const { url } = await emulator.listen({ host: '127.0.0.1', port: 0 });
  const send = (message: FromChild) => process.send!(message);
  const auth = `Basic ${Buffer.from(`${viewer.email}:${viewer.apiKey}`).toString('base64')}`;
  const driver = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const drive = async ({ url: target, query, variables, count, concurrency }: Drive): Promise<number> => {
    let issued = 0;
    const worker = async () => {
      while (issued < count) {
        issued++;
        const { statusCode, body } = await request(target, {
          method: 'POST',
          dispatcher: driver,
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ query, variables }),
        });
        checkGraphQL(statusCode, await body.json());
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return issued;
  };
  // Never outlive the parent, whatever way it ends.
  process.once('disconnect', () => void emulator.close().then(() => process.exit(0)));
  process.on('message', (message: ToChild) => {
    switch (message.type) {
      case 'latency':
        emulator.faults.clear();
        if (message.ms > 0) emulator.faults.inject('*', { latencyMs: message.ms });
        return send({ id: message.id, type: 'ok' });
      case 'cpu':
        return send({ id: message.id, type: 'cpu', usage: process.cpuUsage() });
      case 'requests':
        return send({ id: message.id, type: 'requests', count: emulator.requests.length });
      case 'drive':
        void drive(message).then((count) => send({ id: message.id, type: 'driven', count }));
        return;
      case 'exit':
        void emulator.close().then(() => process.exit(0));
    }
  });
  send({ type: 'ready', url, email: viewer.email, apiKey: viewer.apiKey, messageId: lastMessageId, userId: senderIds[0]! });
}

/** Request/response over the IPC channel to the emulator process. */
export class EmulatorProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: FromChild) => void>();

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: FromChild) => {
      if ('id' in message) {
        this.waiting.get(message.id)?.(message);
        this.waiting.delete(message.id);
      }
    });
  }

  private ask<T extends FromChild>(message: { type: ToChild['type']; ms?: number } | ({ type: 'drive' } & Drive)): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (m: FromChild) => void);
      this.child.send({ ...message, id });
    });
  }

  async setLatency(ms: number): Promise<void> {
    await this.ask({ type: 'latency', ms });
  }

  async cpuUsage(): Promise<NodeJS.CpuUsage> {
    return (await this.ask<Extract<FromChild, { type: 'cpu' }>>({ type: 'cpu' })).usage;
  }

  async requestCount(): Promise<number> {
    return (await this.ask<Extract<FromChild, { type: 'requests' }>>({ type: 'requests' })).count;
  }

  /** Has the emulator process send `drive.count` queries to `drive.url`; resolves when all are answered. */
  async drive(drive: Drive): Promise<number> {
    return (await this.ask<Extract<FromChild, { type: 'driven' }>>({ type: 'drive', ...drive })).count;
  }

  exit(): void {
    this.child.send({ id: 0, type: 'exit' });
  }
}
